package dev.postbox.internal;

import dev.postbox.Database;
import dev.postbox.internal.dialect.Dialect;
import dev.postbox.internal.jdbc.Jdbc;
import dev.postbox.internal.jdbc.SqlText;
import dev.postbox.internal.sql.Home;
import dev.postbox.internal.sql.Sql;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes the rows of an outbox's keys table (MySQL, MariaDB, H2) whose key has no pending or
 * parked message, so the table follows the keys in use, not every key ever added. A key's row is
 * only the lock that makes its adds take their ids in commit order; an add holds it until its
 * transaction ends and inserts it again if it is gone. So deleting one is safe whenever no add
 * holds it, and a prune locks the rows it deletes with {@code SKIP LOCKED}: it never waits for an
 * add, and an add waits for it at most one short transaction. Each run walks at most {@link #STEPS}
 * steps of {@link #STEP} keys on from where the last run stopped. Runs on one thread (a {@link
 * Periodic}'s).
 */
public final class KeysPrune implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(KeysPrune.class);
  static final int STEP = 1_000;
  static final int STEPS = 100;

  private final DataSource dataSource;
  private final String keysTable;
  private final String scan;
  private final String lock;
  private final String delete;
  private final String instanceId;
  private final BooleanSupplier stopping;
  private String after = ""; // the walk's place: the last key a step read

  public KeysPrune(
      DataSource dataSource,
      Dialect dialect,
      String table,
      String instanceId,
      BooleanSupplier stopping) {
    this.dataSource = dataSource;
    this.keysTable = KeyLocks.keysTable(table);
    this.scan = fill(Sql.KEYS_PRUNE_SCAN, dialect, table);
    this.lock = fill(Sql.KEYS_PRUNE_LOCK, dialect, table);
    this.delete = fill(Sql.KEYS_PRUNE_DELETE, dialect, table);
    this.instanceId = instanceId;
    this.stopping = stopping;
  }

  /** Whether an outbox ordered by key has a keys table on {@code database}. */
  public static boolean hasKeysTable(Database database) {
    return database == Database.MYSQL || database == Database.H2;
  }

  private String fill(Sql sql, Dialect dialect, String table) {
    return Home.text(sql, dialect).replace("{keysTable}", keysTable).replace("{table}", table);
  }

  @Override
  public void run() {
    try {
      int deleted = 0;
      for (int step = 0; step < STEPS && !stopping.getAsBoolean(); step++) {
        List<String> unused = new ArrayList<>();
        int read = Jdbc.autoCommit(dataSource, c -> scan(c, unused));
        if (!unused.isEmpty()) {
          deleted += Jdbc.inTransaction(dataSource, c -> delete(c, unused));
        }
        if (read < STEP) { // the walk reached the end: the next run starts again from the first key
          after = "";
          break;
        }
      }
      if (deleted > 0) {
        log.debug("{} - pruned {} unused keys from {}", instanceId, deleted, keysTable);
      }
    } catch (SQLException | RuntimeException e) {
      log.warn("{} - pruning {} failed: {}", instanceId, keysTable, e.toString());
    }
  }

  /** Reads the next step's keys into {@code unused} if unused; returns how many it read. */
  private int scan(Connection c, List<String> unused) throws SQLException {
    int read = 0;
    try (PreparedStatement ps = c.prepareStatement(scan)) {
      ps.setString(1, after);
      ps.setInt(2, STEP);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          read++;
          after = rs.getString(1);
          if (rs.getInt(2) == 0) {
            unused.add(after);
          }
        }
      }
    }
    return read;
  }

  /** Locks those of {@code keys} no add holds and deletes them; returns how many. */
  private int delete(Connection c, List<String> keys) throws SQLException {
    List<String> locked = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(lock.replace("{keys}", SqlText.marks(keys.size())))) {
      bind(ps, keys);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          locked.add(rs.getString(1));
        }
      }
    }
    if (locked.isEmpty()) {
      return 0;
    }
    try (PreparedStatement ps =
        c.prepareStatement(delete.replace("{keys}", SqlText.marks(locked.size())))) {
      bind(ps, locked);
      return ps.executeUpdate();
    }
  }

  private static void bind(PreparedStatement ps, List<String> keys) throws SQLException {
    for (int i = 0; i < keys.size(); i++) {
      ps.setString(i + 1, keys.get(i));
    }
  }

  /** The statements, filled in, for the rendered-SQL test. */
  public List<String> statements() {
    return List.of(scan, lock.replace("{keys}", "?, ?, ?"), delete.replace("{keys}", "?, ?, ?"));
  }
}
