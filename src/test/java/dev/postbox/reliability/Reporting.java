package dev.postbox.reliability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/** Where the suite writes (the Maven build directory) and how it prints a scenario's figures. */
final class Reporting {
  private Reporting() {}

  /** The build directory ({@code -Dpostbox.build.dir}, default target/): test-classes' parent. */
  static Path buildDir() {
    try {
      Path classes =
          Path.of(
              DispatcherProcess.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return classes.getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Figures of one scenario, printed as one {@code key=value} line in insertion order. */
  static final class Line {
    private final Map<String, Object> figures = new LinkedHashMap<>();

    Line(String scenario, String db) {
      figures.put("scenario", scenario);
      figures.put("db", db);
    }

    Line put(String key, Object value) {
      figures.put(key, value);
      return this;
    }

    Object get(String key) {
      return figures.get(key);
    }

    long number(String key) {
      return ((Number) figures.get(key)).longValue();
    }

    /** Prints the line to stdout and appends it to {@code <build>/reliability/summary.txt}. */
    String print(String profile) {
      StringBuilder s = new StringBuilder();
      figures.forEach((k, v) -> s.append(s.isEmpty() ? "" : " ").append(k).append('=').append(v));
      s.append(" profile=").append(profile);
      String line = s.toString();
      System.out.println(line);
      try {
        Path file = buildDir().resolve("reliability").resolve("summary.txt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return line;
    }

    @Override
    public String toString() {
      return figures.toString();
    }
  }
}
