package dev.postbox.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link BackgroundQueueBenchmark}: a tiny smoke run by default, the published run with {@code
 * mvn -B -q test -Pbench -Dtest=BackgroundQueueBenchmarkTest -Dbench.full=true}.
 */
@Tag("bench")
class BackgroundQueueBenchmarkTest {

  @Test
  void benchmark() throws Exception {
    String report =
        BackgroundQueueBenchmark.run(BackgroundQueueBenchmark.Config.fromSystemProperties());
    System.out.println(report);
    Path file = Path.of("target", "background-queue-benchmark.md");
    Files.createDirectories(file.getParent());
    Files.writeString(file, report);
    assertTrue(report.contains("today tasks/s"), report);
    assertTrue(report.contains("tasks completed"), report);
  }
}
