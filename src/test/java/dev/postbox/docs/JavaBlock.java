package dev.postbox.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code ```java} block of a Markdown file, with the HTML comment right above its fence that
 * says how to compile it:
 *
 * <ul>
 *   <li>none: the block is statements, compiled as the body of a method;
 *   <li>{@code <!-- java} … {@code -->}: the lines inside are Java the block assumes: {@code
 *       import} lines are added to its imports, other lines (fields, methods) to the class around
 *       it; {@code <!-- java members} … says the block itself is fields and methods, not
 *       statements;
 *   <li>{@code <!-- excerpt of PATH -->}: the block is part of the tested file PATH and is not
 *       compiled on its own.
 * </ul>
 *
 * A block that starts with {@code import}, {@code package} or a type declaration is a whole source
 * file.
 */
record JavaBlock(
    Path file,
    int line,
    Form form,
    List<String> imports,
    List<String> given,
    int givenLine,
    List<String> code,
    String excerptOf) {

  /** How a block is placed in a source file. */
  enum Form {
    STATEMENTS,
    MEMBERS,
    UNIT,
    EXCERPT
  }

  private static final Pattern EXCERPT = Pattern.compile("<!-- excerpt of (\\S+) -->");
  private static final Pattern UNIT =
      Pattern.compile(
          "(import|package)\\s.*|(@\\w+\\s+)*((public|abstract|final|sealed)\\s+)*"
              + "(class|interface|record|enum)\\s+\\w+.*");

  /** Every Java block of {@code markdown}, in order. */
  static List<JavaBlock> in(Path markdown) throws IOException {
    List<String> lines = Files.readAllLines(markdown);
    List<JavaBlock> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().equals("```java")) {
        continue;
      }
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).strip().equals("```")) {
        end++;
      }
      blocks.add(parse(markdown, lines, i, lines.subList(i + 1, end)));
      i = end;
    }
    return blocks;
  }

  private static JavaBlock parse(Path file, List<String> lines, int fence, List<String> code) {
    int line = fence + 2; // 1-based line of the block's first code line
    String above = fence > 0 ? lines.get(fence - 1).strip() : "";
    Matcher excerpt = EXCERPT.matcher(above);
    if (excerpt.matches()) {
      return new JavaBlock(
          file, line, Form.EXCERPT, List.of(), List.of(), 0, code, excerpt.group(1));
    }
    List<String> imports = new ArrayList<>();
    List<String> given = new ArrayList<>();
    int givenLine = 0;
    Form form = isUnit(code) ? Form.UNIT : Form.STATEMENTS;
    if (above.equals("-->")) {
      int open = fence - 1;
      while (open > 0 && !lines.get(open).startsWith("<!--")) {
        open--;
      }
      String opening = lines.get(open).strip();
      if (opening.equals("<!-- java") || opening.equals("<!-- java members")) {
        form = opening.endsWith("members") ? Form.MEMBERS : form;
        givenLine = open + 2;
        for (String l : lines.subList(open + 1, fence - 1)) {
          (l.startsWith("import ") ? imports : given).add(l);
        }
      }
    }
    return new JavaBlock(file, line, form, imports, given, givenLine, code, null);
  }

  private static boolean isUnit(List<String> code) {
    for (String l : code) {
      if (!l.isBlank() && !l.startsWith("//")) {
        return UNIT.matcher(l).matches();
      }
    }
    return false;
  }

  /** Where the block is, as an editor would link it. */
  String where() {
    return file + ":" + line;
  }
}
