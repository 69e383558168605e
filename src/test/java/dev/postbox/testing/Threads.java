package dev.postbox.testing;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The names of the live threads of this JVM, virtual ones included (from a JSON thread dump). */
public final class Threads {
  private static final Pattern NAME = Pattern.compile("\"name\": \"((?:[^\"\\\\]|\\\\.)*)\"");

  private Threads() {}

  /** Names of live threads, platform and virtual, that start with {@code prefix}. */
  public static List<String> named(String prefix) {
    try {
      Path dump = Files.createTempFile("postbox-threads-", ".json");
      Files.delete(dump); // dumpThreads refuses to overwrite
      try {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
            .dumpThreads(dump.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
        List<String> names = new ArrayList<>();
        Matcher m = NAME.matcher(Files.readString(dump));
        while (m.find()) {
          if (m.group(1).startsWith(prefix)) {
            names.add(m.group(1));
          }
        }
        return names;
      } finally {
        Files.deleteIfExists(dump);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
