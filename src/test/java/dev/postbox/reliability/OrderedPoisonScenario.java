package dev.postbox.reliability;

import static dev.postbox.reliability.Harness.options;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.postbox.BlockedKey;
import dev.postbox.OrderedParking;
import dev.postbox.Outbox;
import dev.postbox.reliability.Producer.Plan;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * 1 % poison mixed into keys shared with healthy messages, under a parking policy, while dispatcher
 * processes deliver in key order. With {@link OrderedParking#BLOCK_KEY} each parked message holds
 * back the later messages of its key, which are never attempted, until it is discarded; then they
 * go, in order. With {@link OrderedParking#SKIP} the key goes on past it. Either way no other key
 * waits, nothing healthy is lost, and the ordering checker counts no inversion.
 */
final class OrderedPoisonScenario {
  /**
   * Keys for the messages: poison is every 100th message starting at the 50th, and 101 keys put
   * each of those in a key of its own (50 + 100 j ≡ 50 − j mod 101), up to 10,100 messages.
   */
  private static final int KEYS = 101;

  private final Scenarios scenarios;
  private final RelDb db;
  private final Profile p;

  OrderedPoisonScenario(Scenarios scenarios, RelDb db, Profile profile) {
    this.scenarios = scenarios;
    this.db = db;
    this.p = profile;
  }

  Reporting.Line run(OrderedParking policy) {
    boolean block = policy == OrderedParking.BLOCK_KEY;
    String tag = block ? "ob" : "os";
    Outbox outbox = Outbox.builder().onParked(policy).build();
    try (Harness h = scenarios.harness("ordered-poison-" + policy.name().toLowerCase())) {
      List<Child> cs =
          scenarios.startAll(
              h,
              scenarios.processes(2),
              options(
                  "on-parked",
                  policy.name(),
                  "max-attempts",
                  "3",
                  "backoff",
                  "fixed:100",
                  "batch",
                  "20"));
      int n = p.pick(2000, 10_000);
      Producer producer =
          new Producer(
                  db,
                  Plan.of(tag, n).rate(400).threads(4).keys(KEYS).poison(0.01).poisonInSharedKeys())
              .start();
      producer.join();
      long poison = producer.poisoned.get();
      // healthy traffic on other keys goes on, so failing poison is told apart from an outage
      Producer trickle =
          new Producer(db, Plan.of(tag + "-t", 1_000_000).rate(20).threads(1).keys(1)).start();
      try {
        awaitSettled(h, poison, cs);
      } finally {
        trickle.stop(); // never into the next scenario, even when this one fails
      }
      awaitSettled(h, poison, cs);
      long waiting = h.pending();
      long triedWhileWaiting =
          db.count(
              "SELECT COUNT(*) FROM rel_deliveries d JOIN postbox_outbox o"
                  + " ON o.event_id = d.event_id WHERE o.state = 0");
      long parkedBefore = h.parked();
      long blockedKeys;
      Set<String> heads = new HashSet<>();
      try (Connection c = db.ds().getConnection()) {
        blockedKeys = outbox.stats(c).blockedKeys();
        for (BlockedKey k : outbox.blockedKeys(c, 1000)) {
          heads.add(k.head().ref());
        }
        if (block) {
          for (String id : heads) {
            outbox.discard(c, id);
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
      Duration drain = h.awaitQuiet(Duration.ofMinutes(p.pick(2, 5)), cs);
      h.stopAll();
      Set<String> poisonIds = new HashSet<>();
      for (Object[] r : db.rows("SELECT event_id FROM rel_ledger WHERE poison = 1")) {
        poisonIds.add((String) r[0]);
      }
      Reporting.Line line =
          scenarios
              .ordered(h.figures(), producer, trickle)
              .put("policy", policy.name())
              .put("poison", poison)
              .put("parked_before_discard", parkedBefore)
              .put("waiting_behind_parked", waiting)
              .put("tried_while_waiting", triedWhileWaiting)
              .put("blocked_keys", blockedKeys)
              .put("drain_ms", drain.toMillis());
      line.print(p.label());
      Scenarios.assertCore(line);
      Scenarios.assertExclusive(line);
      Scenarios.assertProducersClean(line, producer, trickle);
      Scenarios.assertInOrder(line);
      assertTrue(poison > 0, line.toString());
      assertEquals(poison, parkedBefore, "every poison message parked: " + line);
      assertEquals(
          0, triedWhileWaiting, "a message waiting behind a parked one was tried: " + line);
      if (block) {
        assertTrue(waiting > 0, "nothing waited behind the parked messages: " + line);
        assertEquals(poison, blockedKeys, "one blocked key per poison message: " + line);
        assertEquals(poisonIds, heads, "the blocked keys' heads are the poison: " + line);
        assertEquals(0, line.number("parked"), "discarded, so none left parked: " + line);
      } else {
        assertEquals(0, waiting, "SKIP: nothing waits behind a parked message: " + line);
        assertEquals(0, blockedKeys, "SKIP blocks no key: " + line);
        assertEquals(poison, line.number("parked"), "parked vs poison: " + line);
      }
      return line;
    }
  }

  /**
   * Waits until every poison message is parked and every pending row waits behind a parked row of
   * its key (none with {@code SKIP}), failing if a dispatcher process dies or it takes too long.
   */
  private void awaitSettled(Harness h, long poison, List<Child> mustLive) {
    long deadline = System.nanoTime() + Duration.ofMinutes(p.pick(2, 5)).toNanos();
    while (true) {
      long pending = h.pending();
      long behindParked =
          db.count(
              "SELECT COUNT(*) FROM postbox_outbox o WHERE o.state = 0 AND EXISTS (SELECT 1 FROM"
                  + " postbox_outbox x WHERE x.msg_key = o.msg_key AND x.state = 2 AND x.id < o.id)");
      if (h.parked() == poison && pending == behindParked) {
        return;
      }
      for (Child c : mustLive) {
        if (!c.alive()) {
          throw new AssertionError(c.instance + " died: " + Child.tail(c.err, 4000));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            h.scenario
                + ": not settled; parked "
                + h.parked()
                + " of "
                + poison
                + ", pending "
                + pending
                + ", behind parked "
                + behindParked);
      }
      Child.sleep(100);
    }
  }
}
