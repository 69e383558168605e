package dev.postbox.bench;

import dev.postbox.Database;
import dev.postbox.Outbox;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * W0, enqueue overhead: the W2 producers with nothing delivering, three ways: (a) the business row
 * only, (b) plus a hand-written INSERT into the outbox table, prepared in each transaction as
 * application code does (and (b*) one statement prepared once and reused for the whole run, a lower
 * bound no pooled application reaches), (c) plus {@code outbox.add} with the event id Postbox
 * generates, (c′) plus {@code outbox.add} with the caller's event id. Reports transactions/s and
 * the ratios of the median times. On PostgreSQL and SQLite, where {@code outbox.add} with the
 * caller's event id is an {@code INSERT … ON CONFLICT DO NOTHING}, also (b′) the hand-written
 * INSERT with that clause, which separates the price of idempotence from the library's own
 * overhead. Every message has one of 100 keys: (c) and (c′) add to an outbox ordered by key (the
 * default, each add locks its key), (c″) to one that is not, which prices the key lock.
 */
final class EnqueueOverhead {
  private static final List<String> VARIANTS =
      List.of(
          "business", "hand", "hand-reused", "idempotent", "add", "add-event-id", "add-unordered");

  private final PerformanceHarness h;
  private final AtomicLong retries = new AtomicLong();

  EnqueueOverhead(PerformanceHarness h) {
    this.h = h;
  }

  String run(List<BenchDb> dbs) {
    Map<String, List<Double>> seconds = new LinkedHashMap<>();
    for (BenchDb db : dbs) {
      for (int rep = 0; rep < h.config.repetitions(); rep++) {
        List<String> order = new ArrayList<>(VARIANTS);
        if (!hasOnConflict(db)) {
          order.remove("idempotent");
        }
        Collections.rotate(order, rep);
        for (String variant : order) {
          double s = measure(db, variant, "rep " + (rep + 1));
          seconds.computeIfAbsent(db.name() + "/" + variant, k -> new ArrayList<>()).add(s);
        }
      }
    }
    MarkdownTable t =
        new MarkdownTable(
            "database",
            "(a) business tx/s",
            "(b) + INSERT tx/s",
            "(b*) + INSERT, one statement reused tx/s",
            "(b′) + INSERT … ON CONFLICT tx/s",
            "(c) + outbox.add tx/s",
            "(c′) + outbox.add, caller's event id tx/s",
            "(c″) + outbox.add, unordered tx/s",
            "b ÷ a",
            "c ÷ a",
            "c ÷ b (≤ 1.02×)",
            "met",
            "c ÷ b*",
            "c′ ÷ b′",
            "c ÷ c″ (≤ 1.10×)");
    int total = h.config.producers() * h.config.transactions();
    for (BenchDb db : dbs) {
      double a = Stats.median(seconds.getOrDefault(db.name() + "/business", List.of()));
      double b = Stats.median(seconds.getOrDefault(db.name() + "/hand", List.of()));
      double reused = Stats.median(seconds.getOrDefault(db.name() + "/hand-reused", List.of()));
      double b2 = Stats.median(seconds.getOrDefault(db.name() + "/idempotent", List.of()));
      double c = Stats.median(seconds.getOrDefault(db.name() + "/add", List.of()));
      double c2 = Stats.median(seconds.getOrDefault(db.name() + "/add-event-id", List.of()));
      double c3 = Stats.median(seconds.getOrDefault(db.name() + "/add-unordered", List.of()));
      t.row(
          db.name(),
          Stats.rate(total / a),
          Stats.rate(total / b),
          Stats.rate(total / reused),
          Stats.rate(total / b2),
          Stats.rate(total / c),
          Stats.rate(total / c2),
          Stats.rate(total / c3),
          Stats.ratio(b / a),
          Stats.ratio(c / a),
          Stats.ratio(c / b),
          Stats.met(c / b, 1.02, false),
          Stats.ratio(c / reused),
          Stats.ratio(c2 / b2),
          Stats.ratio(c / c3));
    }
    return "### W0 enqueue overhead\n\n"
        + String.format(
            "%d producer threads × %,d transactions, nothing delivering; ratios are of the median"
                + " elapsed times (lower is better). (b): the hand-written INSERT prepared, executed"
                + " and closed in each transaction, as `outbox.add` and pooled application code do;"
                + " (b*): one statement prepared once and reused for all transactions of a"
                + " producer. (c): `outbox.add` of a message without an event id (Postbox generates"
                + " a UUIDv7 and, as no stored row can hold it, runs a plain INSERT); (c′): with the"
                + " caller's event id, which may be stored already. (b′): the hand-written INSERT"
                + " with `ON CONFLICT (event_id) DO NOTHING`, the statement (c′) runs on PostgreSQL"
                + " and SQLite (MariaDB and H2: a plain INSERT whose duplicate-key error is caught,"
                + " so (b′) is (b)).%n%n",
            h.config.producers(), h.config.transactions())
        + t;
  }

  private static boolean hasOnConflict(BenchDb db) {
    return db.database() == Database.POSTGRESQL || db.database() == Database.SQLITE;
  }

  /** One run of {@code variant}; returns the elapsed seconds. */
  private double measure(BenchDb db, String variant, String label) {
    String what = "W0 " + db.name() + " " + variant + " " + label;
    int total = h.config.producers() * h.config.transactions();
    try {
      db.reset();
      Outbox outbox = Outbox.builder().orderedByKey(!variant.equals("add-unordered")).build();
      Producers.Enqueuer enqueuer =
          switch (variant) {
            case "business" -> Producers.NOTHING;
            case "hand" -> Producers.handWrittenPerTransaction(db);
            case "hand-reused" -> Producers.handWritten(db);
            case "idempotent" -> Producers.handWrittenIdempotent(db);
            case "add-event-id" -> c -> index -> ProduceDeliver.addWithEventId(outbox, c, index);
            default -> c -> index -> ProduceDeliver.add(outbox, c, index);
          };
      long nanos =
          Producers.run(
              db, h.config.producers(), h.config.transactions(), enqueuer, i -> {}, retries);
      long orders = db.count("SELECT COUNT(*) FROM " + BenchDb.BUSINESS);
      long messages = db.count("SELECT COUNT(*) FROM postbox_outbox");
      long expected = variant.equals("business") ? 0 : total;
      if (orders != total || messages != expected) {
        h.problem(what + ": " + orders + " orders and " + messages + " messages of " + total);
      }
      double s = nanos / 1e9;
      h.log("%s: %s tx/s", what, Stats.rate(total / s));
      return s;
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      return Double.NaN;
    }
  }
}
