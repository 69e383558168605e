package dev.postbox.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Scenario 11, logging half: a JVM logging Postbox at TRACE runs messages and jobs through
 * delivery, retries, parking and rejected input, every payload and header value carrying a canary;
 * nothing it prints (logs on stderr, exception messages and toString() on stdout) may contain the
 * canary, while event ids and topics must appear.
 */
class LogCanaryTest {

  @Test
  void payloadsAndHeaderValuesNeverReachTheLogsOnPostgres() throws Exception {
    run("postgresql");
  }

  @Test
  void payloadsAndHeaderValuesNeverReachTheLogsOnMariaDb() throws Exception {
    run("mariadb");
  }

  @Test
  void payloadsAndHeaderValuesNeverReachTheLogsOnSqlite() throws Exception {
    run("sqlite");
  }

  private void run(String label) throws Exception {
    try (RelDb db = RelDb.open(label)) {
      db.reset();
      // Postbox's loggers at TRACE; the drivers' and the pool's at INFO (MariaDB Connector/J at
      // TRACE logs every packet: 660,000 lines and three minutes, none of them Postbox's)
      List<String> command = Child.javaCommand(LogCanaryProcess.class, "info");
      command.add(1, "-Dorg.slf4j.simpleLogger.log.dev.postbox=trace");
      command.addAll(db.childArgs());
      Child.Ended run = Child.runToEnd(command, "log-canary-" + label, Duration.ofSeconds(120));
      String stdout = run.out();
      String stderr = run.err();
      assertEquals(0, run.exitCode(), stderr);
      assertTrue(stdout.contains("CANARY-RUN-DONE"), stdout);
      long canaryLines =
          (stdout + "\n" + stderr).lines().filter(l -> l.contains(LogCanaryProcess.CANARY)).count();
      long logLines = stderr.lines().count();
      long rejected = stdout.lines().filter(l -> l.startsWith("REJECTED")).count();
      boolean nulAccepted = stdout.contains("ACCEPTED evt-nul");
      Reporting.Line line =
          new Reporting.Line("log-canary", label)
              .put("log_lines", logLines)
              .put("canary_lines", canaryLines)
              .put("rejected_inputs", rejected)
              .put("nul_payload", nulAccepted ? "accepted" : "rejected_by_database");
      line.print("short");
      assertEquals(
          0,
          canaryLines,
          "payload or header value printed:\n"
              + (stdout + "\n" + stderr)
                  .lines()
                  .filter(l -> l.contains(LogCanaryProcess.CANARY))
                  .limit(10)
                  .toList());
      assertFalse(stdout.contains("NOT REJECTED"), stdout);
      assertTrue(stderr.contains("evt-visible-"), "event ids are logged: " + line);
      assertTrue(stderr.contains("evt-poison"), "the parked event id is logged: " + line);
      assertTrue(stderr.contains(LogCanaryProcess.TOPIC), "topics are logged: " + line);
      assertTrue(
          stderr.contains("job refused on attempt 1 " + LogCanaryProcess.FORGED_LINE),
          "the message of a retried failure is logged, on one line: " + line);
      assertTrue(
          stderr.lines().noneMatch(l -> l.startsWith(LogCanaryProcess.FORGED_LINE)),
          "a line break in an error message starts no log line");
      assertTrue(stdout.contains("FINAL outbox_pending=0"), stdout);
    }
  }
}
