package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialects;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class LoopThreadsTest {
  private static final InheritableThreadLocal<String> CALLER = new InheritableThreadLocal<>();

  @Test
  void platformThreadsExceptOnSqlite() {
    for (Database db : Database.values()) {
      Thread t = LoopThreads.builder(Dialects.of(db)).unstarted(() -> {});
      assertEquals(db == Database.SQLITE, t.isVirtual(), db.name());
      assertTrue(t.isDaemon(), db.name() + ": a forgotten dispatcher must not keep the JVM alive");
    }
  }

  @Test
  void loopThreadsInheritNothingFromTheStartingThread() throws InterruptedException {
    CALLER.set("request-42");
    try {
      for (Database db : Database.values()) {
        AtomicReference<String> seen = new AtomicReference<>("not run");
        Thread t = LoopThreads.builder(Dialects.of(db)).start(() -> seen.set(CALLER.get()));
        t.join();
        assertEquals(null, seen.get(), db.name());
      }
    } finally {
      CALLER.remove();
    }
  }
}
