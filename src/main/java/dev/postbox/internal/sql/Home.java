package dev.postbox.internal.sql;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Each database's home: its folder of the statement catalogue ({@code statements/<folder>/} next to
 * this class), how it claims, and what its claims return. A statement is its database's file {@code
 * <name>.sql}, or the {@code common/} one for statements written once for every database, whose
 * clock is a placeholder. A file's leading {@code --} lines say what it does and name its
 * parameters; the rest is the template: {@code {_name}} includes the fragment {@code
 * name.fragment.sql}, and the other placeholders are filled per table ({@link QueueSql}).
 * Immutable; templates are read once and cached, thread-safe.
 */
public enum Home {
  POSTGRESQL("postgresql", Claiming.ONE_STATEMENT, HeadCheck.NO_PRIOR, true, true),
  MYSQL("mysql", Claiming.LOCK_BY_ID_PIPELINED, HeadCheck.FIRST_PENDING, true, false),
  // with state IN (0, 2) H2 read every index entry of the key to tell whether a row is its head;
  // with one state per probe it reads the range before the row
  H2("h2", Claiming.LOCK_BY_ID, HeadCheck.NO_PRIOR_PER_STATE, true, false),
  // UPDATE … RETURNING returns the values as updated, so a hand-back is due at once (one claim at
  // a time: only rows of the last claim can move)
  SQLITE("sqlite", Claiming.WRITE_LOCKED_TRANSACTION, HeadCheck.NO_PRIOR, false, false);

  /** How a database claims: which {@link ClaimStrategy} runs its claim statements. */
  enum Claiming {
    /** One {@code UPDATE … RETURNING}, the finish of delivered rows in the same statement. */
    ONE_STATEMENT,
    /** {@code BEGIN IMMEDIATE}, the finish, one {@code UPDATE … RETURNING}, {@code COMMIT}. */
    WRITE_LOCKED_TRANSACTION,
    /** An unlocked read of due ids, a locking read of those by primary key, an UPDATE by id. */
    LOCK_BY_ID,
    /** {@link #LOCK_BY_ID} sent as pipelined batches of text, values written in. */
    LOCK_BY_ID_PIPELINED
  }

  /** How a claim checks that a keyed row is the head of its key ({@link KeyOrder#headFilter}). */
  enum HeadCheck {
    /** No row of the key before it in a blocking state: one probe of the key index. */
    NO_PRIOR,
    /** The same, one probe per blocking state. */
    NO_PRIOR_PER_STATE,
    /**
     * It is the key's first pending row (one probe that stops at the first entry), and where parked
     * rows block, no parked row of the key is before it.
     */
    FIRST_PENDING
  }

  private static final Pattern INCLUDE = Pattern.compile("\\{_([a-z-]+)}");

  private final String folder;
  final Claiming claiming;

  /** How the check that a keyed row is the head of its key probes the key index. */
  final HeadCheck headCheck;

  /**
   * Whether every claim returns each row's {@code available_at} as it was before the claim, in a
   * column {@code due_before_claim}, for {@link Sql#RELEASE_TO}.
   */
  final boolean claimReturnsDue;

  /**
   * Whether every claim statement returns, per row, {@code charged}: 1 if the claim counted an
   * attempt, 0 for a row of a run behind its head.
   */
  final boolean claimReturnsCharge;

  private final Map<String, String> templates = new ConcurrentHashMap<>();

  Home(
      String folder,
      Claiming claiming,
      HeadCheck headCheck,
      boolean claimReturnsDue,
      boolean claimReturnsCharge) {
    this.folder = folder;
    this.claiming = claiming;
    this.headCheck = headCheck;
    this.claimReturnsDue = claimReturnsDue;
    this.claimReturnsCharge = claimReturnsCharge;
  }

  /** The home of {@code database}. */
  public static Home of(Database database) {
    return switch (database) {
      case POSTGRESQL -> POSTGRESQL;
      case MYSQL -> MYSQL;
      case H2 -> H2;
      case SQLITE -> SQLITE;
    };
  }

  /**
   * The statements that open a claim's transaction on a connection in auto-commit mode ({@link
   * Sql#BEGIN_CLAIM}, one a line); none where a claim commits as it runs.
   */
  List<String> beginClaim() {
    String begin = template(Sql.BEGIN_CLAIM);
    return begin == null ? List.of() : List.of(begin.split(";\n"));
  }

  /** The template of {@code sql} on this database, fragments included; null if it has none. */
  public String template(Sql sql) {
    return template(sql.file());
  }

  /**
   * The statement (or fragment) {@code sql} on {@code dialect}'s database with its clock filled in,
   * for the code outside the engine that fills in the rest; null if the database has none.
   */
  public static String text(Sql sql, Dialect dialect) {
    String template = of(dialect.database()).template(sql);
    return template == null ? null : clock(template, dialect);
  }

  /**
   * The statement {@code sql} written once for every database, with no clock in it (in {@code
   * common/}).
   */
  public static String common(Sql sql) {
    String template = read("common/" + sql.file() + ".sql");
    if (template == null || template.isEmpty()) {
      throw new IllegalArgumentException(
          sql + " is not a statement written once for every database");
    }
    return template;
  }

  /** {@code template} with {@code {now}} and {@code {nowPlusMillis}} of {@code dialect}. */
  public static String clock(String template, Dialect dialect) {
    return template
        .replace("{nowPlusMillis}", dialect.nowPlusMillis())
        .replace("{now}", dialect.now());
  }

  /** The template in the file {@code name.sql}: this database's, else the common one, or null. */
  String template(String name) {
    String cached = templates.get(name);
    if (cached != null) {
      return cached.isEmpty() ? null : cached;
    }
    String text = read(folder + "/" + name + ".sql");
    if (text == null) {
      text = read("common/" + name + ".sql");
    }
    // a file of comments only says that this database has no such statement
    text = text == null || text.isEmpty() ? "" : includes(text);
    templates.put(name, text);
    return text.isEmpty() ? null : text;
  }

  private String includes(String text) {
    Matcher m = INCLUDE.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String fragment = template(m.group(1) + ".fragment");
      if (fragment == null) {
        throw new IllegalStateException(folder + ": no fragment " + m.group(1));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(fragment));
    }
    m.appendTail(out);
    return out.toString();
  }

  /**
   * The template of a catalogue file: its text without the leading comment lines (empty if that is
   * all it holds); null if there is no such file.
   */
  private static String read(String path) {
    try (InputStream in = Home.class.getResourceAsStream("statements/" + path)) {
      if (in == null) {
        return null;
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      int start = 0;
      while (text.startsWith("--", start)) {
        int end = text.indexOf('\n', start);
        start = end < 0 ? text.length() : end + 1;
      }
      return text.substring(start).stripTrailing();
    } catch (IOException e) {
      throw new UncheckedIOException("reading the statement " + path, e);
    }
  }
}
