package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A JDK 21 user is as safe as a JDK 25 user: on JDK 21 a virtual thread that blocks inside a {@code
 * synchronized} block or method, waits to enter one, or calls {@code Object.wait} pins its carrier
 * thread (fixed only in JDK 24, JEP 491), and the tests here run on JDK 25, where none of that
 * shows. So the library's own code uses no monitors at all: java.util.concurrent locks only.
 */
class NoCarrierPinningTest {
  private static final Path MAIN = Path.of("src", "main", "java");
  // comments, then text blocks, strings and chars: what is left is code
  private static final Pattern NOT_CODE =
      Pattern.compile(
          "//[^\\n]*|/\\*.*?\\*/|\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\\\n])*\"|'(?:\\\\.|[^'\\\\])+'",
          Pattern.DOTALL);
  private static final Pattern MONITOR =
      Pattern.compile("\\bsynchronized\\b|\\.wait\\s*\\(|\\.notify(?:All)?\\s*\\(");

  @Test
  void theLibraryUsesNoMonitors() throws IOException {
    List<String> found = new ArrayList<>();
    int files = 0;
    try (Stream<Path> sources = Files.walk(MAIN)) {
      for (Path file : sources.filter(p -> p.toString().endsWith(".java")).toList()) {
        files++;
        String code = NOT_CODE.matcher(Files.readString(file)).replaceAll(" ");
        Matcher m = MONITOR.matcher(code);
        while (m.find()) {
          found.add(file + ": " + m.group());
        }
      }
    }
    assertTrue(files > 50, "the scan found the sources: " + files);
    assertEquals(List.of(), found, "use ReentrantLock/Condition instead");
  }

  @Test
  void theScanSeesAMonitorInCodeButNotInCommentsOrStrings() {
    String code =
        """
        // synchronized in a comment
        /* lock.wait() in a block comment */
        String s = "synchronized"; char c = '"';
        void m() { synchronized (this) { this.wait(); } }
        """;
    String stripped = NOT_CODE.matcher(code).replaceAll(" ");
    List<String> hits = MONITOR.matcher(stripped).results().map(r -> r.group()).toList();
    assertEquals(List.of("synchronized", ".wait("), hits);
  }
}
