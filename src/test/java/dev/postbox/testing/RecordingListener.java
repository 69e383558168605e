package dev.postbox.testing;

import dev.postbox.Delivery;
import dev.postbox.Listener;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A listener that counts its calls: per event id (or job id) and kind, lost leases, retries. */
public class RecordingListener implements Listener {
  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  public final AtomicInteger leaseLost = new AtomicInteger();
  public final List<SQLException> retried = new CopyOnWriteArrayList<>();

  @Override
  public void delivered(Delivery delivery, Duration elapsed) {
    count("delivered", delivery);
  }

  @Override
  public void failed(Delivery delivery, Throwable error, Duration retryIn) {
    count("failed", delivery);
  }

  @Override
  public void parked(Delivery delivery, String reason) {
    count("parked", delivery);
  }

  @Override
  public void leaseLost(String table, int count) {
    leaseLost.addAndGet(count);
  }

  @Override
  public void retried(String table, String operation, SQLException error) {
    retried.add(error);
  }

  /** How often {@code kind} ("delivered", "failed" or "parked") was reported of {@code ref}. */
  public int count(String kind, String ref) {
    AtomicInteger n = calls.get(kind + " " + ref);
    return n == null ? 0 : n.get();
  }

  /** How often {@code kind} was reported in all. */
  public int total(String kind) {
    return calls.entrySet().stream()
        .filter(e -> e.getKey().startsWith(kind + " "))
        .mapToInt(e -> e.getValue().get())
        .sum();
  }

  private void count(String kind, Delivery delivery) {
    calls.computeIfAbsent(kind + " " + delivery.ref(), k -> new AtomicInteger()).incrementAndGet();
  }
}
