package dev.postbox.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time the local database server's processes have used so far ({@code /proc/<pid>/stat},
 * clock ticks of 10 ms): a figure of the database's work per message that other load on the machine
 * leaves alone, as long as no other client uses the same server meanwhile. -1 where there is no
 * /proc or no such process.
 */
final class ServerCpu {
  private static final double MICROS_PER_TICK = 10_000;

  private ServerCpu() {}

  /** The server process name of {@code db}: {@code mariadbd} or {@code postgres}; null if none. */
  static String processName(BenchDb db) {
    return switch (db.name()) {
      case "MariaDB" -> "mariadbd";
      case "PostgreSQL" -> "postgres";
      default -> null;
    };
  }

  /** CPU µs used so far by every process named {@code name}; -1 if none or no /proc. */
  static double micros(String name) {
    if (name == null || !Files.isDirectory(Path.of("/proc"))) {
      return -1;
    }
    long ticks = 0;
    boolean found = false;
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        try {
          String stat = Files.readString(proc.resolve("stat"));
          int open = stat.indexOf('(');
          int close = stat.lastIndexOf(')');
          if (!stat.substring(open + 1, close).equals(name)) {
            continue;
          }
          // after "pid (comm) ": state is field 3, utime 14, stime 15, and the CPU of its ended
          // children 16 and 17 (PostgreSQL's backends that exit count in the postmaster's)
          String[] f = stat.substring(close + 2).split(" ");
          for (int i = 11; i <= 14; i++) {
            ticks += Long.parseLong(f[i]);
          }
          found = true;
        } catch (IOException | RuntimeException gone) {
          // the process ended meanwhile
        }
      }
    } catch (IOException e) {
      return -1;
    }
    return found ? ticks * MICROS_PER_TICK : -1;
  }
}
