package dev.postbox.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No circle between the internal packages ({@code dev.postbox.internal} and the packages under it):
 * each one's dependencies, read from the {@code import} lines and the fully qualified names in the
 * code of {@code src/main/java}, form no cycle. The API package {@code dev.postbox} is left out on
 * purpose: the internal packages use its value types ({@code Envelope}, {@code Listener}, {@code
 * Database}, its exceptions) and it uses them as the engine behind its facades, so the two depend
 * on each other by design; the API package is what the module exports, the rest is its inside.
 */
class PackageCycleTest {
  private static final String ROOT = "dev.postbox.internal";
  private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
  // a type named by its package: dev.postbox.internal.sql.Claimed, or a wildcard import
  private static final Pattern TYPE =
      Pattern.compile("\\b(dev\\.postbox(?:\\.[a-z]\\w*)*)\\.(?:[A-Z]\\w*|\\*)");
  private static final Pattern COMMENTS = Pattern.compile("(?s)/\\*.*?\\*/|//[^\\n]*");
  private static final Pattern STRINGS =
      Pattern.compile("(?s)\"\"\".*?\"\"\"|\"(?:\\\\.|[^\"\\\\])*\"");

  @Test
  void internalPackagesFormNoCycle() {
    Map<String, Set<String>> graph = internalGraph(Path.of("src/main/java"));
    assertTrue(
        graph.getOrDefault(ROOT + ".lane", Set.of()).contains(ROOT + ".sql"),
        "the graph was not read: " + graph);
    List<String> cycle = cycle(graph);
    assertEquals(List.of(), cycle, "packages depend on each other in a circle: " + cycle);
  }

  @Test
  void findsACycle() {
    Map<String, Set<String>> graph = new TreeMap<>();
    graph.put("a", Set.of("b"));
    graph.put("b", Set.of("c"));
    graph.put("c", Set.of("a"));
    assertEquals(List.of("a", "b", "c", "a"), cycle(graph));
  }

  /** Package to the internal packages its files name, itself left out. */
  static Map<String, Set<String>> internalGraph(Path sources) {
    Map<String, Set<String>> graph = new TreeMap<>();
    try (Stream<Path> files = Files.walk(sources)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
        String text = Files.readString(file);
        Matcher p = PACKAGE.matcher(text);
        if (!p.find() || !isInternal(p.group(1))) {
          continue;
        }
        String from = p.group(1);
        Set<String> to = graph.computeIfAbsent(from, k -> new TreeSet<>());
        String code = STRINGS.matcher(COMMENTS.matcher(text).replaceAll(" ")).replaceAll("\"\"");
        Matcher t = TYPE.matcher(code);
        while (t.find()) {
          String target = t.group(1);
          if (isInternal(target) && !target.equals(from)) {
            to.add(target);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return graph;
  }

  private static boolean isInternal(String pkg) {
    return pkg.equals(ROOT) || pkg.startsWith(ROOT + ".");
  }

  /** A cycle of {@code graph}, its first package repeated at its end; empty if there is none. */
  static List<String> cycle(Map<String, Set<String>> graph) {
    Set<String> done = new TreeSet<>();
    for (String start : graph.keySet()) {
      List<String> found = cycleFrom(start, graph, new ArrayList<>(), done);
      if (!found.isEmpty()) {
        return found;
      }
    }
    return List.of();
  }

  private static List<String> cycleFrom(
      String node, Map<String, Set<String>> graph, List<String> path, Set<String> done) {
    int seen = path.indexOf(node);
    if (seen >= 0) {
      List<String> cycle = new ArrayList<>(path.subList(seen, path.size()));
      cycle.add(node);
      return cycle;
    }
    if (done.contains(node)) {
      return List.of();
    }
    path.add(node);
    for (String next : graph.getOrDefault(node, Set.of())) {
      List<String> found = cycleFrom(next, graph, path, done);
      if (!found.isEmpty()) {
        return found;
      }
    }
    path.remove(path.size() - 1);
    done.add(node);
    return List.of();
  }
}
