package dev.postbox.docs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Every Java block of the README and of {@code docs/} compiles against the test class path, as a
 * reader who copies it would need it to: each is wrapped as {@link JavaBlock} describes (with the
 * imports and names its HTML comment gives) and compiled with {@code javac}; or it is marked as an
 * excerpt of a source file of this repository, which must exist. A failure names the Markdown file
 * and line.
 */
class DocsJavaBlocksTest {
  /** Guides whose blocks are not compiled: none. */
  private static final Set<Path> SKIPPED = Set.of();

  @Test
  void everyJavaBlockInTheReadmeAndTheDocsCompiles() throws IOException {
    List<String> problems = new ArrayList<>();
    List<BlockSource> sources = new ArrayList<>();
    int excerpts = 0;
    for (Path doc : docs()) {
      for (JavaBlock block : JavaBlock.in(doc)) {
        if (block.form() == JavaBlock.Form.EXCERPT) {
          excerpts++;
          Path of = Path.of(block.excerptOf());
          if (!of.startsWith("src") || !Files.isRegularFile(of)) {
            problems.add(block.where() + ": excerpt of " + of + ", which is no source file here");
          }
        } else if (block.form() == JavaBlock.Form.UNIT && !block.given().isEmpty()) {
          problems.add(block.where() + ": a whole source file takes imports only from its comment");
        } else {
          sources.add(BlockSource.of(block));
        }
      }
    }
    assertTrue(sources.size() >= 15, "found only " + sources.size() + " blocks to compile");

    problems.addAll(compile(sources));
    assertTrue(
        problems.isEmpty(),
        sources.size()
            + " blocks compiled, "
            + excerpts
            + " excerpts checked; problems:\n"
            + String.join("\n", problems));
  }

  /** The README and every guide but the skipped ones. */
  private static List<Path> docs() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> files = Files.list(Path.of("docs"))) {
      files
          .filter(p -> p.toString().endsWith(".md") && !SKIPPED.contains(p))
          .sorted()
          .forEach(docs::add);
    }
    return docs;
  }

  /** Compiles every source in one run of javac; each error as "file.md:line: message". */
  private static List<String> compile(List<BlockSource> sources) throws IOException {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    Path out = Files.createDirectories(Path.of("target", "doc-blocks"));
    List<String> options =
        List.of(
            "--release",
            "21",
            "-proc:none",
            "-implicit:none",
            "-nowarn",
            "-Xmaxerrs",
            "1000",
            "-d",
            out.toString(),
            "-classpath",
            System.getProperty("java.class.path"));
    try (StandardJavaFileManager files =
        javac.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      javac.getTask(null, files, diagnostics, options, null, sources).call();
    }
    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      String where = d.getSource() instanceof BlockSource s ? s.origin(d.getLineNumber()) : "javac";
      errors.add(where + ": " + d.getMessage(Locale.ROOT));
    }
    return errors;
  }
}
