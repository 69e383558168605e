package dev.postbox.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;

/** Proxies over JDBC interfaces, for the test DataSources that inject faults or count calls. */
public final class JdbcProxy {
  private JdbcProxy() {}

  /** A proxy of {@code type} whose every call goes to {@code handler}. */
  public static <T> T of(Class<T> type, InvocationHandler handler) {
    return type.cast(
        Proxy.newProxyInstance(JdbcProxy.class.getClassLoader(), new Class<?>[] {type}, handler));
  }

  /** {@code target}, with each connection it hands out passed through {@code wrap}. */
  public static DataSource wrappingConnections(DataSource target, UnaryOperator<Connection> wrap) {
    return of(
        DataSource.class,
        (proxy, method, args) -> {
          Object result = invoke(target, method, args);
          return result instanceof Connection c ? wrap.apply(c) : result;
        });
  }

  /** What a proxy does after a call: returns what the caller gets instead of {@code result}. */
  public interface After {
    Object apply(String method, Object[] args, Object result) throws Throwable;
  }

  /**
   * {@code real} behind a proxy that reports as no wrapper, so that nothing reaches the real
   * connection around it, and passes each call's result through {@code after}.
   */
  public static Connection connection(Connection real, After after) {
    return of(
        Connection.class,
        (proxy, method, args) ->
            method.getName().equals("isWrapperFor")
                ? false
                : after.apply(method.getName(), args, invoke(real, method, args)));
  }

  /** Calls {@code method} on {@code target}; throws what it threw, unwrapped. */
  public static Object invoke(Object target, Method method, Object[] args) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
