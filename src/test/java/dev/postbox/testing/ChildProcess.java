package dev.postbox.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link ChildJvm} that is running, and the lines it printed. */
public final class ChildProcess implements AutoCloseable {
  private final String name;
  private final Process process;
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> seen = new CopyOnWriteArrayList<>();

  ChildProcess(String name, Process process) {
    this.name = name;
    this.process = process;
    Thread.ofVirtual()
        .start(
            () -> {
              try (BufferedReader r = process.inputReader(StandardCharsets.UTF_8)) {
                r.lines().forEach(lines::add);
              } catch (IOException | UncheckedIOException ignored) {
                // the process was killed
              }
            });
  }

  public long pid() {
    return process.pid();
  }

  /** The first line starting with {@code prefix}; fails after 60 s or if the JVM exits. */
  public String awaitLine(String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      String line = lines.poll(100, TimeUnit.MILLISECONDS);
      if (line != null) {
        seen.add(line);
        if (line.startsWith(prefix)) {
          return line;
        }
      } else if (!process.isAlive()) {
        break;
      }
    }
    throw new AssertionError(name + " never printed " + prefix + "; output: " + seen);
  }

  /** kill -9: no shutdown hook, no close; what it held (leases, unacked messages) is left as is. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("killed " + name + " did not exit");
    }
  }

  @Override
  public void close() {
    process.destroyForcibly();
  }
}
