package dev.postbox.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;

/**
 * System.err captured, where slf4j-simple writes the logs of every thread, from {@link #start}
 * until {@link #close}. Tests run one at a time in the JVM, so one capture sees one test's logs.
 */
public final class CapturedStderr implements AutoCloseable {
  private final PrintStream original = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  private CapturedStderr() {
    System.setErr(new PrintStream(buffer, true, UTF_8));
  }

  public static CapturedStderr start() {
    return new CapturedStderr();
  }

  /** What was written so far. */
  public String text() {
    return buffer.toString(UTF_8); // synchronized on the buffer, as its writes are
  }

  /** How many lines written so far contain {@code part}. */
  public long lines(String part) {
    return text().lines().filter(l -> l.contains(part)).count();
  }

  @Override
  public void close() {
    System.setErr(original);
  }
}
