package dev.postbox.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The WAL one database wrote between two positions, when other databases of the same PostgreSQL
 * server write at the same time: {@code pg_waldump} over the range, counting the records that touch
 * a relation of the database and every record of a transaction that did (its commit included).
 * Records of no database (checkpoints, running-transaction snapshots) are left out. Needs the
 * server's {@code pg_wal} directory readable on this machine ({@code -Dbench.pgWaldump}, {@code
 * -Dbench.pgWalDir}), and the segments still there: read each range before the next {@code
 * CHECKPOINT} recycles them.
 */
final class WalAttribution {
  private static final Pattern RECORD =
      Pattern.compile("len \\(rec/tot\\):\\s*\\d+/\\s*(\\d+), tx:\\s*(\\d+)");
  private static final Pattern REL = Pattern.compile("rel \\d+/(\\d+)/\\d+");

  private final String waldump;
  private final String walDir;

  private WalAttribution(String waldump, String walDir) {
    this.waldump = waldump;
    this.walDir = walDir;
  }

  /** From {@code bench.pgWaldump} and {@code bench.pgWalDir}; null if either is unset. */
  static WalAttribution fromSystemProperties() {
    String waldump = System.getProperty("bench.pgWaldump");
    String walDir = System.getProperty("bench.pgWalDir");
    return waldump == null || walDir == null ? null : new WalAttribution(waldump, walDir);
  }

  /**
   * The bytes (records' total lengths) database {@code oid} wrote from {@code from} to {@code to}.
   */
  long bytes(long oid, long from, long to) throws IOException, InterruptedException {
    if (to <= from) {
      return 0;
    }
    Process p =
        new ProcessBuilder(waldump, "-p", walDir, "-s", lsn(from), "-e", lsn(to))
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    String db = Long.toString(oid);
    Set<String> ours = new HashSet<>();
    long bytes = 0;
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        Matcher m = RECORD.matcher(line);
        if (!m.find()) {
          continue;
        }
        String tx = m.group(2);
        boolean mine = false;
        Matcher rel = REL.matcher(line);
        while (rel.find()) {
          mine |= rel.group(1).equals(db);
        }
        if (mine && !tx.equals("0")) {
          ours.add(tx);
        }
        if (mine || (!tx.equals("0") && ours.contains(tx))) {
          bytes += Long.parseLong(m.group(1));
        }
      }
    }
    p.waitFor();
    return bytes;
  }

  private static String lsn(long position) {
    return String.format(Locale.ROOT, "%X/%X", position >>> 32, position & 0xFFFFFFFFL);
  }
}
