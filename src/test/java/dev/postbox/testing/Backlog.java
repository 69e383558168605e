package dev.postbox.testing;

import dev.postbox.Message;
import dev.postbox.Outbox;
import java.sql.Connection;
import java.sql.Statement;
import java.util.function.IntFunction;

/** The benchmarks' backlog: events committed ahead of a dispatcher that then drains them. */
public final class Backlog {
  private Backlog() {}

  /**
   * Commits {@code messages} events, {@code message.apply(i)} for i from 0, a thousand per
   * transaction, then gathers the planner's statistics on {@code postbox_outbox} ({@code database}
   * is {@code postgresql} or {@code mariadb}).
   */
  public static void commit(
      TestDatabase db, String database, Outbox outbox, int messages, IntFunction<Message> message)
      throws Exception {
    for (int from = 0; from < messages; from += 1_000) {
      int start = from;
      Sql.commit(
          db.dataSource(),
          c -> {
            for (int i = start; i < Math.min(start + 1_000, messages); i++) {
              outbox.add(c, message.apply(i));
            }
          });
    }
    // statistics for the planner, as autovacuum gives a table that has been in use (the
    // project's other benchmarks do the same): a fresh table planned as empty drains slowly
    try (Connection c = db.dataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          database.equals("postgresql")
              ? "VACUUM ANALYZE postbox_outbox"
              : "ANALYZE TABLE postbox_outbox");
    }
  }
}
