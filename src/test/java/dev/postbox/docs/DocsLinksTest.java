package dev.postbox.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README, UPGRADING, CHANGELOG and {@code docs/} leads somewhere: to a
 * file of this repository and, for {@code file.md#anchor}, to a heading of that file (anchors made
 * as GitHub makes them). Links in code blocks and to web addresses are not checked.
 */
class DocsLinksTest {
  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern HEADING = Pattern.compile("#+\\s+(.*)");

  @Test
  void everyRelativeLinkLeadsToAFileAndItsHeading() throws IOException {
    List<Path> pages =
        new ArrayList<>(
            List.of(Path.of("README.md"), Path.of("UPGRADING.md"), Path.of("CHANGELOG.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<String> broken = new ArrayList<>();
    for (Path page : pages) {
      List<String> lines = prose(page);
      for (int i = 0; i < lines.size(); i++) {
        Matcher m = LINK.matcher(lines.get(i));
        while (m.find()) {
          String problem = problem(page, m.group(1));
          if (problem != null) {
            broken.add(page + ":" + (i + 1) + ": " + m.group(1) + ": " + problem);
          }
        }
      }
    }
    assertTrue(broken.isEmpty(), "broken links:\n" + String.join("\n", broken));
  }

  /** Why {@code link} on {@code page} leads nowhere, or null. */
  private static String problem(Path page, String link) throws IOException {
    if (link.matches("[a-z]+:.*")) {
      return null; // a web address
    }
    int hash = link.indexOf('#');
    String file = hash < 0 ? link : link.substring(0, hash);
    Path target = file.isEmpty() ? page : page.resolveSibling(file).normalize();
    if (!Files.exists(target)) {
      return "no such file";
    }
    if (hash < 0 || !target.toString().endsWith(".md")) {
      return null;
    }
    return anchors(target).contains(link.substring(hash + 1)) ? null : "no such heading";
  }

  /** The anchors GitHub gives the headings of {@code page}. */
  private static Set<String> anchors(Path page) throws IOException {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    for (String line : prose(page)) {
      Matcher m = HEADING.matcher(line);
      if (m.matches()) {
        String slug =
            m.group(1)
                .strip()
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                .replace(' ', '-');
        int n = seen.merge(slug, 1, Integer::sum) - 1;
        anchors.add(n == 0 ? slug : slug + "-" + n);
      }
    }
    return anchors;
  }

  /** The lines of {@code page}, with those of fenced code blocks blanked. */
  private static List<String> prose(Path page) throws IOException {
    List<String> lines = new ArrayList<>(Files.readAllLines(page));
    boolean code = false;
    for (int i = 0; i < lines.size(); i++) {
      boolean fence = lines.get(i).startsWith("```");
      if (fence || code) {
        lines.set(i, "");
      }
      code ^= fence;
    }
    return lines;
  }
}
