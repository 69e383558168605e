package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** What the builder refuses about recurring jobs, before anything connects. */
class RecurringBuilderTest {
  private final JdbcDataSource ds = new JdbcDataSource();
  private final Jobs jobs = Jobs.builder().build();
  private final JobHandler report = JobHandler.of("report", job -> {});

  private InvalidValueException refused(Runnable build) {
    return assertThrows(InvalidValueException.class, build::run);
  }

  @Test
  void aScheduleWithoutAHandlerForItsNameIsRefused() {
    InvalidValueException e =
        refused(
            () ->
                Dispatcher.builder(ds)
                    .jobs(jobs, report)
                    .recurring(Schedule.cron("@daily"), "other", "{}")
                    .build());
    assertEquals("recurring", e.field());
    assertTrue(e.getMessage().contains("job 'other' has no handler"), e.getMessage());
    refused(
        () -> Dispatcher.builder(ds).recurring(Schedule.cron("@daily"), "report", "{}").build());
  }

  @Test
  void twoSchedulesForOneNameAreRefused() {
    InvalidValueException e =
        refused(
            () ->
                Dispatcher.builder(ds)
                    .recurring(Schedule.cron("@daily"), "report", "{}")
                    .recurring(Schedule.every(Duration.ofHours(1)), "report", "{}"));
    assertTrue(e.getMessage().contains("two schedules for job name 'report'"), e.getMessage());
  }

  @Test
  void badArgumentsNameTheirField() {
    assertEquals(
        "schedule", refused(() -> Dispatcher.builder(ds).recurring(null, "report", "{}")).field());
    assertEquals(
        "name",
        refused(() -> Dispatcher.builder(ds).recurring(Schedule.cron("@daily"), "bad name", "{}"))
            .field());
    assertEquals(
        "payload",
        refused(() -> Dispatcher.builder(ds).recurring(Schedule.cron("@daily"), "report", null))
            .field());
  }

  @Test
  void aPayloadOverTheJobQueuesLimitIsRefused() {
    Jobs small = Jobs.builder().payloadLimit(10).build();
    refused(
        () ->
            Dispatcher.builder(ds)
                .jobs(small, report)
                .recurring(Schedule.cron("@daily"), "report", "{\"far\":\"too long\"}")
                .build());
  }

  @Test
  void aJobTableWhoseSchedulesTableNameWouldPassSixtyThreeCharactersIsRefused() {
    InvalidValueException e = refused(() -> Jobs.builder().table("j".repeat(54)).build());
    assertEquals("table", e.field());
    assertTrue(e.getMessage().contains("_schedules fits in 63 (was 54)"), e.getMessage());
    assertEquals("j".repeat(53), Jobs.builder().table("j".repeat(53)).build().table());
  }
}
