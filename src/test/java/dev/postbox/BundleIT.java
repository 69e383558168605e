package dev.postbox;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.Configuration;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The bundle Maven Central is sent: runs in {@code integration-test} (failsafe), after {@code
 * package}, on the jars in the build directory ({@code -Dpostbox.build.dir}, default target/) and
 * the repository's pom.xml. Each message names the rule it checks. See docs/releasing.md.
 */
class BundleIT {
  private static final List<String> DATABASES = List.of("postgresql", "mysql", "h2", "sqlite");

  private static final Element POM = readPom(baseDir().resolve("pom.xml"));
  private static final String FINAL_NAME =
      System.getProperty(
          "postbox.final.name", text(POM, "artifactId") + "-" + text(POM, "version"));

  @Test
  void theJarItsSourcesAndItsJavadocAreBuilt() throws IOException {
    for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
      Path file = artifact(suffix);
      assertTrue(
          Files.isRegularFile(file),
          "Central: a jar is deployed with its -sources.jar and -javadoc.jar; missing " + file);
      assertTrue(
          Files.size(file) > 0,
          "Central: a jar is deployed with its -sources.jar and -javadoc.jar; empty " + file);
      System.out.printf("BundleIT: %s (%,d bytes)%n", file.getFileName(), Files.size(file));
    }
  }

  @Test
  void theJavadocJarHasAnIndex() throws IOException {
    try (JarFile jar = openJar("-javadoc.jar")) {
      JarEntry index = jar.getJarEntry("index.html");
      assertNotNull(index, "Central: the -javadoc.jar holds the generated Javadoc (index.html)");
      assertTrue(
          index.getSize() > 0,
          "Central: the -javadoc.jar holds the generated Javadoc (index.html is empty)");
    }
  }

  @Test
  void theSourcesJarHasTheSources() throws IOException {
    try (JarFile jar = openJar("-sources.jar")) {
      assertNotNull(
          jar.getJarEntry("dev/postbox/Outbox.java"),
          "Central: the -sources.jar holds the sources (dev/postbox/Outbox.java)");
      assertNotNull(
          jar.getJarEntry("module-info.java"),
          "Central: the -sources.jar holds the sources (module-info.java)");
    }
  }

  @Test
  void theJarShipsEverySchemaAndUpgradeScriptAsInTheRepository() throws IOException {
    int files = 0;
    try (JarFile jar = openJar(".jar")) {
      for (String db : DATABASES) {
        Path dir = baseDir().resolve("sql").resolve(db);
        List<String> names = new ArrayList<>(List.of("schema.sql"));
        try (Stream<Path> listing = Files.list(dir)) {
          listing
              .map(p -> p.getFileName().toString())
              .filter(n -> n.startsWith("upgrade-") && n.endsWith(".sql"))
              .sorted()
              .forEach(names::add);
        }
        for (String name : names) {
          String entryName = "META-INF/postbox/sql/" + db + "/" + name;
          JarEntry entry = jar.getJarEntry(entryName);
          assertNotNull(entry, "Postbox packaging: the jar ships sql/" + db + "/" + name);
          try (InputStream in = jar.getInputStream(entry)) {
            assertArrayEquals(
                Files.readAllBytes(dir.resolve(name)),
                in.readAllBytes(),
                "Postbox packaging: " + entryName + " is byte for byte sql/" + db + "/" + name);
          }
          files++;
        }
      }
    }
    System.out.printf("BundleIT: %d schema and upgrade files in the jar match sql/%n", files);
  }

  @Test
  void anotherModuleReadsTheSchemasWhenTheJarIsOnTheModulePath() throws Exception {
    // the built jar as a named module in a layer of its own, as a modular application has it
    Path slf4j =
        Path.of(org.slf4j.Logger.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    ModuleFinder finder = ModuleFinder.of(artifact(".jar"), slf4j);
    Configuration configuration =
        ModuleLayer.boot()
            .configuration()
            .resolve(finder, ModuleFinder.of(), Set.of("dev.postbox"));
    ModuleLayer layer =
        ModuleLayer.boot()
            .defineModulesWithOneLoader(configuration, ClassLoader.getPlatformClassLoader());
    Module postbox = layer.findModule("dev.postbox").orElseThrow();
    assertTrue(
        postbox.isNamed() && postbox.getDescriptor() != null, "dev.postbox is a named module");
    assertFalse(
        postbox.isOpen("dev.postbox", getClass().getModule()),
        "the check is only worth something while the module is not open to this test");
    ClassLoader loader = layer.findLoader("dev.postbox");
    int files = 0;
    for (String db : DATABASES) {
      String name = "META-INF/postbox/sql/" + db + "/schema.sql";
      byte[] expected =
          Files.readAllBytes(baseDir().resolve("sql").resolve(db).resolve("schema.sql"));
      try (InputStream viaModule = postbox.getResourceAsStream(name);
          InputStream viaLoader = loader.getResourceAsStream(name)) {
        assertNotNull(viaModule, "module path: Module.getResourceAsStream finds " + name);
        assertNotNull(viaLoader, "module path: the module's class loader finds " + name);
        assertArrayEquals(
            expected, viaModule.readAllBytes(), name + " is sql/" + db + "/schema.sql");
        assertArrayEquals(
            expected, viaLoader.readAllBytes(), name + " is sql/" + db + "/schema.sql");
      }
      files++;
    }
    System.out.printf("BundleIT: %d schemas read from another module on the module path%n", files);
  }

  @Test
  void theManifestNamesTheImplementation() throws IOException {
    try (JarFile jar = openJar(".jar")) {
      Manifest manifest = jar.getManifest();
      assertNotNull(manifest, "Central: the jar has a manifest");
      Attributes main = manifest.getMainAttributes();
      assertEquals(
          text(POM, "name"),
          main.getValue(Attributes.Name.IMPLEMENTATION_TITLE),
          "Central (jar metadata): the manifest's Implementation-Title is the pom's name");
      assertEquals(
          text(POM, "version"),
          main.getValue(Attributes.Name.IMPLEMENTATION_VERSION),
          "Central (jar metadata): the manifest's Implementation-Version is the pom's version");
      System.out.printf(
          "BundleIT: manifest Implementation-Title=%s Implementation-Version=%s%n",
          main.getValue(Attributes.Name.IMPLEMENTATION_TITLE),
          main.getValue(Attributes.Name.IMPLEMENTATION_VERSION));
    }
  }

  @Test
  void everyJarEntryHasTheFixedOutputTimestamp() throws IOException {
    String property = text(child(POM, "properties"), "project.build.outputTimestamp");
    LocalDateTime expected =
        OffsetDateTime.parse(property).withOffsetSameInstant(ZoneOffset.UTC).toLocalDateTime();
    for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
      try (JarFile jar = openJar(suffix)) {
        for (JarEntry entry : Collections.list(jar.entries())) {
          assertEquals(
              expected,
              entry.getTimeLocal(),
              "Reproducible build: "
                  + entry.getName()
                  + " in "
                  + artifact(suffix).getFileName()
                  + " has project.build.outputTimestamp");
        }
      }
    }
  }

  @Test
  void thePomHasTheMetadataCentralRequires() throws IOException {
    for (String field : List.of("groupId", "artifactId", "version")) {
      assertFalse(text(POM, field).isBlank(), "Central: the pom has coordinates (" + field + ")");
    }
    assertFalse(text(POM, "name").isBlank(), "Central: the pom has a project name");
    assertFalse(text(POM, "description").isBlank(), "Central: the pom has a project description");
    assertFalse(text(POM, "url").isBlank(), "Central: the pom has a project URL");

    Element license = child(child(POM, "licenses"), "license");
    assertFalse(text(license, "name").isBlank(), "Central: the pom has license information (name)");
    assertFalse(text(license, "url").isBlank(), "Central: the pom has license information (url)");
    String licenseFile = Files.readString(baseDir().resolve("LICENSE"));
    assertEquals("Apache-2.0", text(license, "name"), "Central: the pom's license is the LICENSE");
    assertTrue(
        licenseFile.contains("Apache License") && licenseFile.contains("Version 2.0"),
        "Central: the pom's license (Apache-2.0) is the one in LICENSE");

    Element scm = child(POM, "scm");
    for (String field : List.of("url", "connection", "developerConnection")) {
      assertFalse(
          text(scm, field).isBlank(), "Central: the pom has SCM information (" + field + ")");
    }

    Element developer = child(child(POM, "developers"), "developer");
    assertFalse(
        text(developer, "name").isBlank(), "Central: the pom has developer information (name)");
    System.out.printf(
        "BundleIT: pom %s:%s:%s name=%s url=%s license=%s scm=%s developer=%s%n",
        text(POM, "groupId"),
        text(POM, "artifactId"),
        text(POM, "version"),
        text(POM, "name"),
        text(POM, "url"),
        text(license, "name"),
        text(scm, "url"),
        text(developer, "name"));
  }

  private static JarFile openJar(String suffix) throws IOException {
    Path file = artifact(suffix);
    assertTrue(
        Files.isRegularFile(file),
        "Central: a jar is deployed with its -sources.jar and -javadoc.jar; missing " + file);
    return new JarFile(file.toFile());
  }

  private static Path artifact(String suffix) {
    return buildDir().resolve(FINAL_NAME + suffix);
  }

  /**
   * The build directory as failsafe passes it ({@code postbox.bundle.dir}), else test-classes'
   * parent.
   */
  private static Path buildDir() {
    String dir = System.getProperty("postbox.bundle.dir");
    if (dir != null && !dir.isBlank()) {
      return Path.of(dir);
    }
    try {
      return Path.of(BundleIT.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The repository root, where pom.xml and sql/ are. */
  private static Path baseDir() {
    return Path.of(System.getProperty("postbox.basedir", System.getProperty("user.dir")));
  }

  private static Element readPom(Path pom) {
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      factory.setNamespaceAware(true);
      return factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    } catch (Exception e) {
      throw new IllegalStateException("cannot read " + pom, e);
    }
  }

  /** The first child element of that name (not a deeper one: {@code url} is also in scm). */
  private static Element child(Element parent, String name) {
    assertNotNull(parent, "Central: the pom has the element that holds <" + name + ">");
    for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && name.equals(e.getLocalName())) {
        return e;
      }
    }
    return null;
  }

  /** The trimmed text of a child element, "" when there is none. */
  private static String text(Element parent, String name) {
    Element e = child(parent, name);
    return e == null ? "" : e.getTextContent().trim();
  }
}
