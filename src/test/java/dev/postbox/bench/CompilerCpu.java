package dev.postbox.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * The CPU time the JIT compiler threads ({@code C1 CompilerThread…}, {@code C2 CompilerThread…})
 * have used so far, from {@code /proc/self/task} on Linux. Part of the client CPU figure: a drain
 * soon after a warm-up still pays for compiling, and the floor's and Postbox's code, run in turn,
 * keep giving the shared code (the driver, the pool) new profiles to compile for.
 */
final class CompilerCpu {
  private static final Path TASKS = Path.of("/proc/self/task");
  private static final double NANOS_PER_TICK = 1e9 / 100; // USER_HZ, 100 on Linux

  private CompilerCpu() {}

  /** Nanoseconds of CPU (user and system) the compiler threads used; -1 where unknown. */
  static long nanos() {
    if (!Files.isDirectory(TASKS)) {
      return -1;
    }
    try (Stream<Path> tasks = Files.list(TASKS)) {
      return tasks.mapToLong(CompilerCpu::ticks).sum() * (long) NANOS_PER_TICK;
    } catch (IOException | UncheckedIOException e) {
      return -1;
    }
  }

  /** A compiler thread's user + system ticks; 0 for other threads and threads that ended. */
  private static long ticks(Path task) {
    String stat;
    try {
      stat = Files.readString(task.resolve("stat"));
    } catch (IOException e) {
      return 0; // the thread ended meanwhile
    }
    // "pid (comm) state ...": comm may hold spaces, so fields are counted after the last ')'
    int close = stat.lastIndexOf(')');
    String comm = stat.substring(stat.indexOf('(') + 1, close);
    if (!comm.startsWith("C1 Compiler") && !comm.startsWith("C2 Compiler")) {
      return 0;
    }
    String[] fields = stat.substring(close + 2).split(" ");
    return Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
  }
}
