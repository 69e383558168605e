package dev.postbox.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** What a test opened, closed after it in the reverse order. Thread-safe. */
public final class Closer implements AutoCloseable {
  private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

  /** Closes {@code closeable} when this closes; returns it. */
  public <T extends AutoCloseable> T register(T closeable) {
    opened.add(closeable);
    return closeable;
  }

  @Override
  public void close() throws Exception {
    for (AutoCloseable c : opened.reversed()) {
      c.close();
    }
    opened.clear();
  }
}
