package dev.postbox.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Start and finish instants of job runs on one clock ({@link System#nanoTime}), for checking a
 * concurrency limit interval by interval: between any two consecutive instants, how many runs were
 * under way. Thread-safe.
 */
public final class RunLedger {
  /** One run: what ran, and when it started and ended. */
  public record Run(String name, String group, String payload, long start, long end) {}

  private final ConcurrentLinkedQueue<Run> runs = new ConcurrentLinkedQueue<>();

  /** Records a run of {@code body}, named {@code name} in {@code group}. */
  public void run(String name, String group, String payload, Runnable body) {
    long start = System.nanoTime();
    try {
      body.run();
    } finally {
      runs.add(new Run(name, group, payload, start, System.nanoTime()));
    }
  }

  public List<Run> runs() {
    return List.copyOf(runs);
  }

  /**
   * The most runs under way at once among those with the same {@code key}, per key: the sweep over
   * every start and end in time order (an end before a start at the same instant).
   */
  public Map<String, Integer> mostAtOnce(Function<Run, String> key) {
    return mostAtOnce(runs, key, Run::start, Run::end);
  }

  /**
   * The most {@code items} under way at once among those with the same {@code key}, per key, each
   * under way from its {@code start} to its {@code end} on one clock: as {@link
   * #mostAtOnce(Function)}, for runs recorded elsewhere.
   */
  public static <T> Map<String, Integer> mostAtOnce(
      Collection<T> items,
      Function<T, String> key,
      ToLongFunction<T> start,
      ToLongFunction<T> end) {
    record Event(String key, long at, int delta) {}
    List<Event> events = new ArrayList<>();
    for (T item : items) {
      events.add(new Event(key.apply(item), start.applyAsLong(item), +1));
      events.add(new Event(key.apply(item), end.applyAsLong(item), -1));
    }
    events.sort(Comparator.comparingLong(Event::at).thenComparingInt(Event::delta));
    Map<String, Integer> now = new HashMap<>();
    Map<String, Integer> most = new HashMap<>();
    for (Event e : events) {
      int n = now.merge(e.key(), e.delta(), Integer::sum);
      most.merge(e.key(), n, Math::max);
    }
    return most;
  }
}
