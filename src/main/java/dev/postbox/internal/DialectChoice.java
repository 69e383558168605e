package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.dialect.Dialects;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;

/** The dialect for a caller's connection: the one its metadata names. Immutable and thread-safe. */
public final class DialectChoice {
  private final Map<Database, Dialect> dialects = new EnumMap<>(Database.class);

  public DialectChoice() {
    for (Database db : Database.values()) {
      dialects.put(db, Dialects.of(db));
    }
  }

  public Dialect dialect(Database database) {
    return dialects.get(database);
  }

  /** The dialect {@code c}'s metadata names. */
  public Dialect of(Connection c) throws SQLException {
    return dialects.get(Dialects.detect(c));
  }
}
