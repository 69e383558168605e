package dev.postbox.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Runs {@link PerformanceHarness} at the sizes and writes the report to {@code
 * performance.md} in the build directory:
 *
 * <pre>mvn -B test -Pbench -Dtest=PerformanceBenchmarkTest</pre>
 *
 * <p>Pick databases, workloads and sizes with system properties, e.g. {@code -Dbench.db=postgresql
 * -Dbench.workloads=w1 -Dbench.sizes=50000 -Dbench.reps=5} (all are listed at {@link
 * PerformanceHarness.Config#fromSystemProperties}). Asserts correctness only.
 */
@Tag("bench")
class PerformanceBenchmarkTest {

  @Test
  void benchmark() throws Exception {
    PerformanceHarness.Report report =
        PerformanceHarness.run(
            PerformanceHarness.Config.fromSystemProperties(PerformanceHarness.Config.full()),
            System.out);
    Path classes =
        Path.of(
            PerformanceBenchmarkTest.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
    Path file = classes.getParent().resolve("performance.md");
    Files.writeString(file, report.markdown());
    System.out.println("report written to " + file);
    assertEquals(List.of(), report.problems(), report.markdown());
  }
}
