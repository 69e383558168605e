package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.sql.Connection;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** A built object keeps the options it was built with, whatever happens to its builder later. */
class BuiltSettingsTest {
  private static final DataSource NO_DATABASE =
      new DataSource() {
        @Override
        public Connection getConnection() {
          throw new UnsupportedOperationException("no database in this test");
        }

        @Override
        public Connection getConnection(String user, String password) {
          return getConnection();
        }

        @Override
        public java.io.PrintWriter getLogWriter() {
          return null;
        }

        @Override
        public void setLogWriter(java.io.PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
          return 0;
        }

        @Override
        public Logger getParentLogger() {
          return Logger.getGlobal();
        }

        @Override
        public <T> T unwrap(Class<T> iface) {
          throw new UnsupportedOperationException();
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) {
          return false;
        }
      };

  @Test
  void aDispatcherKeepsItsInstanceIdWhenItsBuilderChangesAfterBuild() {
    // regression: build() handed the live builder to the dispatcher
    Dispatcher.Builder builder =
        Dispatcher.builder(NO_DATABASE)
            .outbox(Outbox.builder().build(), envelope -> {})
            .instanceId("first");
    Dispatcher built = builder.build();
    builder.instanceId("second");
    assertEquals("first", built.instanceId());
  }

  @Test
  void twoDispatchersBuiltFromOneBuilderHaveTheirOwnDefaultInstanceIds() {
    // regression: the default instance id was made once per builder, so both leased as one
    Dispatcher.Builder builder =
        Dispatcher.builder(NO_DATABASE).outbox(Outbox.builder().build(), envelope -> {});
    assertNotEquals(builder.build().instanceId(), builder.build().instanceId());
  }
}
