package dev.postbox.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A {@link DispatcherProcess} this test started: its pid, its output files under the build
 * directory, and the ways to end it (SIGTERM, {@code kill -9}), pause it (SIGSTOP/SIGCONT) and
 * measure it (status lines, CPU time from {@code /proc}).
 */
final class Child implements AutoCloseable {
  private static final String LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";

  final String instance;
  final Process process;
  final Path out;
  final Path err;
  final long startedAtMillis;

  private Child(String instance, Process process, Path out, Path err, long startedAtMillis) {
    this.instance = instance;
    this.process = process;
    this.out = out;
    this.err = err;
    this.startedAtMillis = startedAtMillis;
  }

  /**
   * Starts a dispatcher process for {@code db} with {@code options} ({@code --key=value} without
   * the dashes); {@code fakeTime}, if not null, is a libfaketime offset such as {@code +10m} that
   * shifts the child's wall clock (not its monotonic clock).
   */
  static Child start(RelDb db, String instance, Map<String, String> options, String fakeTime) {
    List<String> command = javaCommand(DispatcherProcess.class, "info");
    command.addAll(db.childArgs());
    command.add("--instance=" + instance);
    options.forEach((k, v) -> command.add("--" + k + "=" + v));
    Path dir = Reporting.buildDir().resolve("reliability").resolve("children");
    try {
      Files.createDirectories(dir);
      Path out = dir.resolve(instance + ".out");
      Path err = dir.resolve(instance + ".err");
      ProcessBuilder pb = new ProcessBuilder(command);
      pb.redirectOutput(out.toFile()).redirectError(err.toFile());
      pb.redirectInput(ProcessBuilder.Redirect.PIPE);
      if (fakeTime != null) {
        if (!Files.exists(Path.of(LIBFAKETIME))) {
          throw new IllegalStateException(
              LIBFAKETIME + " is missing: install Debian's faketime (apt-get install -y faketime)");
        }
        Map<String, String> env = pb.environment();
        env.put("LD_PRELOAD", LIBFAKETIME);
        env.put("FAKETIME", fakeTime);
        env.put("FAKETIME_DONT_FAKE_MONOTONIC", "1");
      }
      long now = System.currentTimeMillis();
      return new Child(instance, pb.start(), out, err, now);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What a child run to its end printed, and how it exited. */
  record Ended(int exitCode, String out, String err) {}

  /**
   * The command that runs {@code main} in a JVM like this one (same java, the test class path),
   * with a small heap and SLF4J's simple logger at {@code logLevel} with times; add its arguments.
   */
  static List<String> javaCommand(Class<?> main, String logLevel) {
    String classPath = System.getProperty("surefire.test.class.path");
    if (classPath == null || classPath.isBlank()) {
      classPath = System.getProperty("java.class.path");
    }
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElseThrow());
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-Xmx256m");
    command.add("-Xss512k");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=" + logLevel);
    command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    command.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    command.add("-cp");
    command.add(classPath);
    command.add(main.getName());
    return command;
  }

  /**
   * Runs {@code command} until it ends, its stdout and stderr in {@code children/<name>.out} and
   * {@code .err}; kills it and throws if it has not ended within {@code timeout}.
   */
  static Ended runToEnd(List<String> command, String name, Duration timeout)
      throws IOException, InterruptedException {
    Path dir = Reporting.buildDir().resolve("reliability").resolve("children");
    Files.createDirectories(dir);
    Path out = dir.resolve(name + ".out");
    Path err = dir.resolve(name + ".err");
    Process p =
        new ProcessBuilder(command)
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IllegalStateException(
            name + " did not end within " + timeout + ": " + tail(err, 3000));
      }
    } finally {
      p.destroyForcibly();
    }
    return new Ended(
        p.exitValue(),
        Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process.isAlive();
  }

  /** Waits until the child printed READY (it has started its dispatchers). */
  Child awaitReady(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!output().contains("READY")) {
      if (!process.isAlive()) {
        throw new IllegalStateException(instance + " died at start: " + tail(err, 3000));
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(instance + " not ready after " + timeout);
      }
      sleep(20);
    }
    return this;
  }

  /** The child's wall clock at start minus this JVM's when it was started, in ms. */
  long clockOffsetMillis() {
    for (String line : output().split("\n")) {
      if (line.startsWith("CLOCK wall=")) {
        return Long.parseLong(line.substring("CLOCK wall=".length()).strip()) - startedAtMillis;
      }
    }
    throw new IllegalStateException(instance + " printed no CLOCK line");
  }

  /** The last complete STATUS line's figures, or an empty map. */
  Map<String, Long> status() {
    String last = null;
    String text = tail(out, 4000);
    // System.out flushes in pieces of 128 bytes: the last line may still be half-written
    text = text.substring(0, text.lastIndexOf('\n') + 1);
    for (String line : text.split("\n")) {
      if (line.startsWith("STATUS ")) {
        last = line;
      }
    }
    Map<String, Long> figures = new HashMap<>();
    if (last != null) {
      for (String part : last.substring(7).split(" ")) {
        int eq = part.indexOf('=');
        if (eq > 0) {
          try {
            figures.put(part.substring(0, eq), Long.parseLong(part.substring(eq + 1).strip()));
          } catch (NumberFormatException ignored) {
            // a line cut by a kill
          }
        }
      }
    }
    return figures;
  }

  long statusFigure(String name) {
    return status().getOrDefault(name, 0L);
  }

  String output() {
    try {
      return Files.readString(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  String errors() {
    try {
      return Files.readString(err, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** User plus system CPU time of the child so far, in ms (from /proc/pid/stat). */
  long cpuMillis() {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid() + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      // fields after "(comm) ": state is index 0, utime is field 14 (index 11), stime index 12
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
      return ticks * 1000 / 100; // CLK_TCK is 100 on Linux
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** kill -9, and waits until the process is gone. */
  void kill9() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(instance + " survived kill -9");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  void signal(String signal) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid())).start();
      kill.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** SIGTERM (the dispatchers close gracefully), then kill -9 if it does not end in time. */
  void stop(Duration patience) {
    if (!process.isAlive()) {
      return;
    }
    signal("CONT"); // a paused child cannot run its shutdown hook
    process.destroy();
    try {
      if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
        kill9();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      kill9();
    }
  }

  @Override
  public void close() {
    stop(Duration.ofSeconds(20));
  }

  static String tail(Path file, int chars) {
    try {
      // lenient: a read may end inside a multi-byte character the child is still writing
      String s = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
      return s.length() <= chars ? s : s.substring(s.length() - chars);
    } catch (IOException e) {
      return "";
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
