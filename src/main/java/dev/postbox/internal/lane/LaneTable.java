package dev.postbox.internal.lane;

import dev.postbox.internal.sql.QueueSql;
import javax.sql.DataSource;

/**
 * Where a lane's writes go: its data source, its table's statements, SQLite's write gate between
 * claims and outcome writes, and the report of what each commit recorded.
 */
record LaneTable(DataSource dataSource, QueueSql sql, WriteGate gate, LaneReport report) {}
