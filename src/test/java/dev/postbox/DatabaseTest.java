package dev.postbox;

import dev.postbox.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * Base of the contract suites: one database per class, the shipped schema run before each test,
 * every dispatcher a test starts closed after it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class DatabaseTest {
  protected TestDatabase db;
  protected DataSource ds;
  private final List<Dispatcher> dispatchers = new CopyOnWriteArrayList<>();
  private final AtomicInteger instances = new AtomicInteger();

  /** The database this subclass proves the contract on. */
  protected abstract TestDatabase open();

  @BeforeAll
  void openDatabase() {
    db = open();
    ds = db.dataSource();
  }

  @AfterAll
  void closeDatabase() {
    db.close();
  }

  @BeforeEach
  void freshSchema() {
    db.resetSchema();
  }

  @AfterEach
  void closeDispatchers() {
    dispatchers.forEach(Dispatcher::close);
    dispatchers.clear();
  }

  /**
   * A fast-polling dispatcher that runs {@code jobs} with {@code handlers}; start it with {@link
   * #started} so it is closed after.
   */
  protected Dispatcher.Builder jobDispatcher(Jobs jobs, JobHandler... handlers) {
    return Dispatcher.builder(ds)
        .jobs(jobs, handlers)
        .instanceId(nextInstanceId())
        .pollInterval(Duration.ofMillis(20))
        .backoff(Backoff.fixed(Duration.ofMillis(10)))
        .shutdownTimeout(Duration.ofSeconds(10));
  }

  protected String nextInstanceId() {
    return "test-" + instances.incrementAndGet();
  }

  /** Builds and registers for closing, without starting. */
  protected Dispatcher built(Dispatcher.Builder builder) {
    Dispatcher d = builder.build();
    dispatchers.add(d);
    return d;
  }

  /** Builds, registers for closing, and starts. */
  protected Dispatcher started(Dispatcher.Builder builder) {
    Dispatcher d = builder.build();
    dispatchers.add(d);
    d.start();
    return d;
  }
}
