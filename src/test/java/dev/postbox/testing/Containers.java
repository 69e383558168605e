package dev.postbox.testing;

import dev.postbox.Database;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Fallback servers for machines without local PostgreSQL/MariaDB but with a Docker engine; one per
 * database per JVM, removed by Testcontainers when the JVM exits.
 */
final class Containers {
  record Server(String url, String user, String password) {}

  private static final Map<Database, Server> STARTED = new ConcurrentHashMap<>();

  private Containers() {}

  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  static Server start(Database database) {
    return STARTED.computeIfAbsent(database, Containers::create);
  }

  @SuppressWarnings("resource") // lives as long as the JVM
  private static Server create(Database database) {
    if (database == Database.POSTGRESQL) {
      GenericContainer<?> pg =
          new GenericContainer<>(DockerImageName.parse("postgres:15-alpine"))
              .withEnv("POSTGRES_HOST_AUTH_METHOD", "trust")
              .withEnv("POSTGRES_DB", "test")
              .withExposedPorts(5432)
              .waitingFor(
                  Wait.forLogMessage(".*database system is ready to accept connections.*", 2));
      pg.start();
      return new Server(
          "jdbc:postgresql://" + pg.getHost() + ":" + pg.getMappedPort(5432) + "/test",
          "postgres",
          "");
    }
    GenericContainer<?> maria =
        new GenericContainer<>(DockerImageName.parse("mariadb:10.11"))
            .withEnv("MARIADB_ALLOW_EMPTY_ROOT_PASSWORD", "1")
            .withEnv("MARIADB_DATABASE", "test")
            .withExposedPorts(3306)
            .waitingFor(Wait.forLogMessage(".*ready for connections.*", 2));
    maria.start();
    return new Server(
        "jdbc:mariadb://" + maria.getHost() + ":" + maria.getMappedPort(3306) + "/test",
        "root",
        "");
  }
}
