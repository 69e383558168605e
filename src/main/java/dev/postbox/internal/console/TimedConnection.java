package dev.postbox.internal.console;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A connection whose every statement gets the console's query timeout as it is made, so that the
 * library's statements the console runs (blocked keys, paused names, schedules, a job action) are
 * bounded like its own, whoever wrote them; and that says when it is closed. Thread-safe as the
 * connection it wraps.
 */
final class TimedConnection {
  private TimedConnection() {}

  /**
   * {@code real}, each statement it makes given a query timeout of {@code seconds}; {@code closed}
   * runs once, when it is first closed.
   */
  static Connection of(Connection real, int seconds, Runnable closed) {
    AtomicBoolean open = new AtomicBoolean(true);
    return (Connection)
        Proxy.newProxyInstance(
            TimedConnection.class.getClassLoader(),
            new Class<?>[] {Connection.class},
            (proxy, method, args) -> {
              Object result;
              try {
                result = method.invoke(real, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              } finally {
                if (method.getName().equals("close") && open.getAndSet(false)) {
                  closed.run();
                }
              }
              if (result instanceof Statement s) {
                s.setQueryTimeout(seconds);
              }
              return result;
            });
  }
}
