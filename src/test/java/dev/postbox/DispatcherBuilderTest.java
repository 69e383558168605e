package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/**
 * A dispatcher runs one outbox, one job queue and one inbox: a second call of the option that sets
 * one is refused, since keeping only the last would leave the first one's rows undelivered (or its
 * jobs parked for want of a handler).
 */
class DispatcherBuilderTest {
  private final JdbcDataSource ds = new JdbcDataSource();

  private static void assertRefused(String option, InvalidValueException e) {
    assertEquals(option, e.field());
    assertTrue(e.getMessage().contains(option + " was already set"), e.getMessage());
  }

  @Test
  void aSecondJobsCallIsRefusedInsteadOfDroppingTheFirstModulesHandlers() {
    Jobs jobs = Jobs.builder().build();
    Dispatcher.Builder builder =
        Dispatcher.builder(ds).jobs(jobs, JobHandler.of("invoice.send", job -> {}));
    InvalidValueException e =
        assertThrows(
            InvalidValueException.class,
            () -> builder.jobs(jobs, JobHandler.of("report.build", job -> {})));
    assertRefused("jobs", e);
  }

  @Test
  void aSecondOutboxCallIsRefusedInsteadOfReplacingTheFirst() {
    Dispatcher.Builder builder =
        Dispatcher.builder(ds).outbox(Outbox.builder().build(), envelope -> {});
    InvalidValueException e =
        assertThrows(
            InvalidValueException.class,
            () -> builder.outbox(Outbox.builder().table("other_outbox").build(), envelope -> {}));
    assertRefused("outbox", e);
  }

  @Test
  void aSecondInboxCallIsRefusedInsteadOfReplacingTheFirst() {
    Dispatcher.Builder builder = Dispatcher.builder(ds).inbox(Inbox.builder().build());
    InvalidValueException e =
        assertThrows(
            InvalidValueException.class,
            () -> builder.inbox(Inbox.builder().table("other_inbox").build()));
    assertRefused("inbox", e);
  }

  @Test
  void aRefusedSecondCallLeavesTheFirstInPlace() {
    Jobs jobs = Jobs.builder().build();
    Dispatcher.Builder builder =
        Dispatcher.builder(ds)
            .jobs(jobs, JobHandler.of("report", job -> {}))
            .recurring(Schedule.cron("@daily"), "report", "{}");
    assertThrows(
        InvalidValueException.class, () -> builder.jobs(jobs, JobHandler.of("other", job -> {})));
    builder.build(); // the schedule's handler is still there
  }
}
