package dev.postbox.internal.console;

import dev.postbox.Inbox;
import dev.postbox.internal.lane.LaneCounts;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * What a console shows and may do, as {@code dev.postbox.Console.Builder} collected it. Immutable.
 *
 * @param dataSource where the tables are
 * @param tables the outbox and job tables shown, in order
 * @param inbox the inbox shown, or null
 * @param counts what the dispatcher in this JVM finished, by table; empty without one
 * @param token the action token, or null for a read-only console
 * @param showPayloads whether the lists show payloads
 * @param maxActionRows the most rows one bulk action changes
 */
public record ConsoleConfig(
    DataSource dataSource,
    List<ConsoleTable> tables,
    Inbox inbox,
    Supplier<Map<String, LaneCounts>> counts,
    String token,
    boolean showPayloads,
    int maxActionRows) {

  /** The table named {@code name}, or null. */
  ConsoleTable table(String name) {
    return tables.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
  }

  boolean readOnly() {
    return token == null;
  }
}
