package dev.postbox.docs;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.SimpleJavaFileObject;

/**
 * A {@link JavaBlock} as a Java source file, and the Markdown line of each of its lines, so that a
 * compiler error can name the line of the doc it comes from. The blocks of one Markdown file share
 * a package, as the classes a reader copies from one page would: a block may use a class another
 * block of its page declares.
 */
final class BlockSource extends SimpleJavaFileObject {
  /** What every block may use without saying so: Postbox, JDBC, time, collections, assertions. */
  private static final List<String> IMPORTS =
      List.of(
          "import dev.postbox.*;",
          "import java.sql.*;",
          "import javax.sql.*;",
          "import java.time.*;",
          "import java.util.*;",
          "import java.util.concurrent.*;",
          "import java.util.function.*;",
          "import java.nio.charset.StandardCharsets;",
          "import static org.junit.jupiter.api.Assertions.*;");

  private static final Pattern PUBLIC_TYPE =
      Pattern.compile(
          "public\\s+((abstract|final|sealed)\\s+)*(class|interface|record|enum)\\s+(\\w+)");

  final JavaBlock block;
  private final String text;
  private final List<String> origins;

  private BlockSource(JavaBlock block, String name, String text, List<String> origins) {
    super(URI.create("string:///" + name.replace('.', '/') + ".java"), Kind.SOURCE);
    this.block = block;
    this.text = text;
    this.origins = origins;
  }

  /** {@code block} as a source file in its page's package, {@code docblocks.<page>}. */
  static BlockSource of(JavaBlock block) {
    String page = block.file().getFileName().toString().replaceFirst("\\.md$", "");
    String pkg = "docblocks." + page.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "_");
    List<String> lines = new ArrayList<>();
    List<String> origins = new ArrayList<>();
    add(lines, origins, List.of("package " + pkg + ";"), null, 0);
    add(lines, origins, IMPORTS, null, 0);
    add(lines, origins, block.imports(), block.file().toString(), block.givenLine());
    String name = "Block" + block.line();
    if (block.form() == JavaBlock.Form.UNIT) {
      Matcher m = PUBLIC_TYPE.matcher(String.join("\n", block.code()));
      name = m.find() ? m.group(4) : name;
      add(lines, origins, block.code(), block.file().toString(), block.line());
    } else {
      add(lines, origins, List.of("abstract class " + name + " {"), null, 0);
      // the givens are numbered after the imports among the comment's lines
      add(
          lines,
          origins,
          block.given(),
          block.file().toString(),
          block.givenLine() + block.imports().size());
      boolean statements = block.form() == JavaBlock.Form.STATEMENTS;
      if (statements) {
        add(lines, origins, List.of("void run() throws Exception {"), null, 0);
      }
      add(lines, origins, block.code(), block.file().toString(), block.line());
      add(lines, origins, statements ? List.of("}", "}") : List.of("}"), null, 0);
    }
    return new BlockSource(block, pkg + "." + name, String.join("\n", lines) + "\n", origins);
  }

  private static void add(
      List<String> lines, List<String> origins, List<String> added, String file, int first) {
    for (int i = 0; i < added.size(); i++) {
      lines.add(added.get(i));
      origins.add(file == null ? null : file + ":" + (first + i));
    }
  }

  /** The Markdown file and line that line {@code line} (1-based) of this source comes from. */
  String origin(long line) {
    String origin = line >= 1 && line <= origins.size() ? origins.get((int) line - 1) : null;
    return origin != null ? origin : block.where() + " (the code around the block)";
  }

  @Override
  public CharSequence getCharContent(boolean ignoreEncodingErrors) {
    return text;
  }
}
