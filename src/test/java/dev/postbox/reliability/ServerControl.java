package dev.postbox.reliability;

import dev.postbox.Database;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Crashes and restarts the local database server the way an operator (or the kernel's OOM killer)
 * would: PostgreSQL with {@code pg_ctlcluster … restart -m immediate} (no checkpoint, crash
 * recovery at start), MariaDB with {@code kill -9} of mariadbd's pid and a fresh start. Needs the
 * local servers of {@code .ci/run} and root, as CI has; fails loudly otherwise.
 */
final class ServerControl {
  private ServerControl() {}

  /**
   * Crashes and restarts the server; returns once it accepts connections again. MariaDB stays down
   * for {@code down} between the kill and the start; PostgreSQL restarts at once (its crash
   * recovery is the outage).
   */
  static void crashAndRestart(RelDb db, Duration down) {
    requireLocal(db);
    try {
      if (db.database == Database.POSTGRESQL) {
        run(
            Duration.ofSeconds(120),
            "pg_ctlcluster",
            "--skip-systemctl-redirect",
            postgresVersion(),
            "main",
            "restart",
            "-m",
            "immediate");
      } else {
        String pid = run(Duration.ofSeconds(10), "pidof", "mariadbd").strip();
        if (pid.isEmpty() || pid.contains(" ")) {
          throw new IllegalStateException("expected one mariadbd process, found '" + pid + "'");
        }
        run(Duration.ofSeconds(10), "kill", "-9", pid);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.exists(Path.of("/proc/" + pid)) && System.nanoTime() < deadline) {
          Child.sleep(20);
        }
        Child.sleep(down.toMillis());
        startMariaDb();
      }
    } finally {
      ensureUp(db);
    }
  }

  /** Starts the server if it is down and waits until it accepts connections (60 s at most). */
  static void ensureUp(RelDb db) {
    if (db.database == Database.POSTGRESQL) {
      if (!ok("pg_isready", "-h", "127.0.0.1", "-p", "5432")) {
        try {
          run(
              Duration.ofSeconds(120),
              "pg_ctlcluster",
              "--skip-systemctl-redirect",
              postgresVersion(),
              "main",
              "start");
        } catch (RuntimeException e) {
          // already starting: wait below
        }
      }
      await(() -> ok("pg_isready", "-h", "127.0.0.1", "-p", "5432"), "PostgreSQL");
    } else if (db.database == Database.MYSQL) {
      if (!ok("mariadb-admin", "-h", "127.0.0.1", "-u", "root", "ping")) {
        startMariaDb();
      }
      await(() -> ok("mariadb-admin", "-h", "127.0.0.1", "-u", "root", "ping"), "MariaDB");
    }
  }

  private static void startMariaDb() {
    run(
        Duration.ofSeconds(60),
        "start-stop-daemon",
        "--start",
        "--oknodo",
        "--background",
        "--exec",
        "/usr/sbin/mariadbd");
  }

  private static void requireLocal(RelDb db) {
    if (!db.url().contains("//127.0.0.1:") && !db.url().contains("//localhost:")) {
      throw new IllegalStateException(
          "the database restart scenario needs the local server of .ci/run, not " + db.url());
    }
    if (!"root".equals(System.getProperty("user.name"))) {
      throw new IllegalStateException(
          "the database restart scenario restarts the local server and needs root, as CI has");
    }
  }

  private static String postgresVersion() {
    try (var versions = Files.list(Path.of("/etc/postgresql"))) {
      List<String> names = versions.map(p -> p.getFileName().toString()).sorted().toList();
      if (names.isEmpty()) {
        throw new IllegalStateException("no cluster under /etc/postgresql");
      }
      return names.get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private interface Check {
    boolean ok();
  }

  private static void await(Check check, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!check.ok()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(what + " did not come back within 60 s");
      }
      Child.sleep(100);
    }
  }

  private static boolean ok(String... command) {
    try {
      run(Duration.ofSeconds(10), command);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /**
   * Runs a command, returns its output; throws if it fails. Output goes through a file, not a pipe:
   * a daemon the command starts may keep its stdout open.
   */
  static String run(Duration timeout, String... command) {
    try {
      Path log = Files.createTempFile("rel-cmd-", ".log");
      try {
        Process p =
            new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly();
          throw new IllegalStateException(String.join(" ", command) + " timed out");
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
          throw new IllegalStateException(
              String.join(" ", command) + " failed (" + p.exitValue() + "): " + output);
        }
        return output;
      } finally {
        Files.deleteIfExists(log);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
