package dev.postbox.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Statement texts rendered from the code, each as the content of a {@code .sql} file under a root
 * folder: a one-line comment naming its parameters, then the statement exactly as Postbox sends it
 * (see {@code RenderedSqlTest}); compared with the files there, or written to them. Not
 * thread-safe.
 */
public final class RenderedSql {
  // a placeholder of a statement template left unfilled
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{[A-Za-z]+}");

  private final SortedMap<String, String> files = new TreeMap<>();

  /**
   * Adds {@code sql} as the file {@code path}{@code .sql} (folders separated by {@code /}).
   *
   * @param params its bound parameters in order, "none" if it has none
   * @throws IllegalStateException if the path was added before or a placeholder is left in it
   */
  public void add(String path, String params, String sql) {
    addGroup(path, params, List.of(sql));
  }

  /** Adds statements sent one after another as one file, each ended by {@code ;}. */
  public void addGroup(String path, String params, List<String> statements) {
    StringBuilder text = new StringBuilder("-- params: ").append(params).append('\n');
    for (String sql : statements) {
      Objects.requireNonNull(sql, () -> path + ": no statement");
      Matcher left = PLACEHOLDER.matcher(sql);
      if (left.find()) {
        throw new IllegalStateException(path + ": placeholder " + left.group() + " left in " + sql);
      }
      text.append(sql).append(statements.size() > 1 ? ";\n" : "\n");
    }
    if (files.putIfAbsent(path + ".sql", text.toString()) != null) {
      throw new IllegalStateException(path + ".sql rendered twice");
    }
  }

  /**
   * Adds files under {@code folder}: {@code in("h2/jobs").add("fail", …)} is {@code
   * h2/jobs/fail.sql}.
   */
  public Folder in(String folder) {
    return new Folder(this, folder);
  }

  /** The files of one folder. */
  public record Folder(RenderedSql out, String path) {
    /** {@link RenderedSql#add} of {@code name} in this folder. */
    public void add(String name, String params, String sql) {
      out.add(path + "/" + name, params, sql);
    }

    /** {@link RenderedSql#addGroup} of {@code name} in this folder. */
    public void addGroup(String name, String params, List<String> statements) {
      out.addGroup(path + "/" + name, params, statements);
    }
  }

  /** The files by path ({@code postgresql/jobs/fail.sql}), sorted. */
  public Map<String, String> files() {
    return Collections.unmodifiableSortedMap(files);
  }

  /**
   * How the files under {@code root} differ from the rendered ones: one line per file whose text
   * differs (with the first differing line), that is missing, or that no statement renders.
   */
  public List<String> differences(Path root) throws IOException {
    List<String> problems = new ArrayList<>();
    Set<String> stored = stored(root);
    for (Map.Entry<String, String> e : files.entrySet()) {
      String path = e.getKey();
      if (!stored.contains(path)) {
        problems.add(path + ": no such file for a rendered statement");
        continue;
      }
      String file = Files.readString(root.resolve(path), StandardCharsets.UTF_8);
      if (!file.equals(e.getValue())) {
        problems.add(path + ": " + firstDifference(file, e.getValue()));
      }
    }
    for (String path : stored) {
      if (!files.containsKey(path)) {
        problems.add(path + ": no statement renders this file");
      }
    }
    return problems;
  }

  /** Where {@code file} and {@code rendered} first differ, with both lines. */
  static String firstDifference(String file, String rendered) {
    String[] a = file.split("\n", -1);
    String[] b = rendered.split("\n", -1);
    int line = 0;
    while (line < a.length && line < b.length && a[line].equals(b[line])) {
      line++;
    }
    return "differs at line "
        + (line + 1)
        + "\n    file:     "
        + (line < a.length ? a[line] : "(end of file)")
        + "\n    rendered: "
        + (line < b.length ? b[line] : "(end of text)");
  }

  /** Writes every rendered file under {@code root}; deletes the .sql files no statement renders. */
  public void write(Path root) throws IOException {
    for (String path : stored(root)) {
      if (!files.containsKey(path)) {
        Files.delete(root.resolve(path));
      }
    }
    for (Map.Entry<String, String> e : files.entrySet()) {
      Path file = root.resolve(e.getKey());
      Files.createDirectories(file.getParent());
      Files.writeString(file, e.getValue(), StandardCharsets.UTF_8);
    }
    try (Stream<Path> dirs = Files.walk(root)) { // folders left empty, deepest first
      for (Path dir : dirs.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList()) {
        try (Stream<Path> entries = Files.list(dir)) {
          if (entries.findAny().isEmpty()) {
            Files.delete(dir);
          }
        }
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The .sql files under {@code root}, by path relative to it with {@code /}. */
  private static Set<String> stored(Path root) throws IOException {
    Set<String> paths = new TreeSet<>();
    if (!Files.isDirectory(root)) {
      return paths;
    }
    try (Stream<Path> all = Files.walk(root)) {
      all.filter(p -> p.toString().endsWith(".sql"))
          .forEach(p -> paths.add(root.relativize(p).toString().replace('\\', '/')));
    }
    return paths;
  }
}
