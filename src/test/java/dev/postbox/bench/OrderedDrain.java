package dev.postbox.bench;

import dev.postbox.Outbox;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * W1 ordered: the backlog drain of {@code n} pre-inserted messages spread round robin over 1,000,
 * 10 and 1 keys ({@code -Dbench.orderedKeys}), by Postbox ordered by key (the default) and, side by
 * side in the same run, by Postbox unordered. Reports both rates, their ratio and the client CPU
 * per message.
 */
final class OrderedDrain {
  private static final List<String> MODES = List.of("unordered", "ordered");

  private final PerformanceHarness h;
  private final List<Integer> keyCounts;

  OrderedDrain(PerformanceHarness h) {
    this.h = h;
    List<Integer> keys = new ArrayList<>();
    for (String k : System.getProperty("bench.orderedKeys", "1000,10,1").split(",")) {
      keys.add(Integer.parseInt(k.strip()));
    }
    this.keyCounts = List.copyOf(keys);
  }

  String run(List<BenchDb> dbs) {
    Map<String, List<Double>> r = new LinkedHashMap<>();
    for (BenchDb db : dbs) {
      for (int n : h.config.drainSizes()) {
        for (int keys : keyCounts) {
          for (int rep = 0; rep < h.config.repetitions(); rep++) {
            for (String mode : PerformanceHarness.interleaved(MODES, rep)) {
              double[] v = measure(db, n, keys, mode, "rep " + (rep + 1));
              String k = db.name() + "/" + n + "/" + keys + "/" + mode;
              r.computeIfAbsent(k, x -> new ArrayList<>()).add(v[0]);
              r.computeIfAbsent(k + "/cpu", x -> new ArrayList<>()).add(v[1]);
              r.computeIfAbsent(k + "/db", x -> new ArrayList<>()).add(v[2]);
            }
          }
        }
      }
    }
    MarkdownTable t =
        new MarkdownTable(
            "database",
            "messages",
            "keys",
            "unordered msg/s",
            "ordered msg/s",
            "ordered ÷ unordered",
            "target",
            "CPU µs/msg unordered",
            "CPU µs/msg ordered",
            "database CPU µs/msg unordered",
            "database CPU µs/msg ordered");
    for (BenchDb db : dbs) {
      for (int n : h.config.drainSizes()) {
        for (int keys : keyCounts) {
          String k = db.name() + "/" + n + "/" + keys + "/";
          double u = Stats.median(r.getOrDefault(k + "unordered", List.of()));
          double o = Stats.median(r.getOrDefault(k + "ordered", List.of()));
          double target = keys >= 1000 ? 0.7 : keys >= 10 ? 0.4 : 0.25;
          t.row(
              db.name(),
              String.format("%,d", n),
              String.format("%,d", keys),
              Stats.rate(u),
              Stats.rate(o),
              Stats.ratio(o / u),
              Stats.met(o / u, target, true),
              Stats.decimal(Stats.median(r.getOrDefault(k + "unordered/cpu", List.of())), 1),
              Stats.decimal(Stats.median(r.getOrDefault(k + "ordered/cpu", List.of())), 1),
              Stats.decimal(Stats.median(r.getOrDefault(k + "unordered/db", List.of())), 1),
              Stats.decimal(Stats.median(r.getOrDefault(k + "ordered/db", List.of())), 1));
        }
      }
    }
    return "### W1 ordered: backlog drain in key order\n\n"
        + "Messages spread round robin over the keys; Postbox at its defaults (ordered by key), and"
        + " with `orderedByKey(false)`, interleaved in the same run; medians. Database CPU: the"
        + " local server's processes (`/proc`), every client's.\n\n"
        + t;
  }

  /**
   * One drain; returns msg/s, this process's CPU microseconds per message and the database server's
   * (NaN where it is not a local process).
   */
  private double[] measure(BenchDb db, int n, int keys, String mode, String label) {
    String what = "W1 ordered " + db.name() + " " + n + " " + keys + " keys " + mode + " " + label;
    try {
      db.reset();
      db.seedOutbox(n, keys);
      Deliveries d = new Deliveries(n);
      Progress p = new Progress(n);
      String server = ServerCpu.processName(db);
      double serverBefore = ServerCpu.micros(server);
      var cpu = PerformanceHarness.cpuSnapshot();
      Outbox outbox = Outbox.builder().orderedByKey(mode.equals("ordered")).build();
      long nanos = h.drain(db.dataSource(), outbox, d, p, n);
      double cpuPerRow = PerformanceHarness.cpuSince(cpu) / 1e3 / n;
      double serverAfter = ServerCpu.micros(server);
      double serverPerRow =
          serverBefore < 0 || serverAfter < 0 ? Double.NaN : (serverAfter - serverBefore) / n;
      h.checkDrained(what, db, d);
      double rate = n / (nanos / 1e9);
      h.log(
          "%s: %s msg/s (%d ms), client CPU %s µs/msg, database CPU %s µs/msg",
          what,
          Stats.rate(rate),
          nanos / 1_000_000,
          Stats.decimal(cpuPerRow, 1),
          Stats.decimal(serverPerRow, 1));
      return new double[] {rate, cpuPerRow, serverPerRow};
    } catch (Exception e) {
      h.problem(what + ": failed: " + e);
      return new double[] {Double.NaN, Double.NaN, Double.NaN};
    }
  }
}
