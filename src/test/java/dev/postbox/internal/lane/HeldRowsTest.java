package dev.postbox.internal.lane;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.postbox.internal.sql.Claimed;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The held rows against a map by id that removes a claim only by identity, over random runs. */
class HeldRowsTest {

  @Test
  void holdsWhatAMapByIdHoldsThroughClaimsReclaimsAndOutcomesInAnyOrder() {
    Random random = new Random(48);
    int seq = 0; // every claim differs from every other in a field, so that equal means identical
    for (int run = 0; run < 200; run++) {
      HeldRows<String> held = new HeldRows<>();
      Map<Long, Claimed<String>> expected = new HashMap<>();
      List<Claimed<String>> claimed = new ArrayList<>(); // every claim, written or not
      int idRange = 1 + random.nextInt(run < 100 ? 40 : 5_000); // few ids: collisions, reclaims
      for (int step = 0; step < 300; step++) {
        if (random.nextInt(3) > 0) {
          List<Claimed<String>> batch = new ArrayList<>();
          for (int i = random.nextInt(60); i > 0; i--) {
            long id = random.nextInt(idRange) * (random.nextBoolean() ? 1L : 1L << 33);
            Claimed<String> row = new Claimed<>(id, 1, seq++, 0, "e" + id, "t", "x");
            batch.add(row);
            claimed.add(row);
            expected.put(id, row);
          }
          held.addAll(batch);
        } else if (!claimed.isEmpty()) {
          List<Outcome> written = new ArrayList<>();
          for (int i = random.nextInt(60); i > 0; i--) {
            Claimed<String> row = claimed.get(random.nextInt(claimed.size()));
            written.add(new Outcome(row, Outcome.Kind.SUCCEEDED, null, null, 0));
            expected.remove(row.id(), row);
          }
          held.removeAll(written);
        }
        assertEquals(expected.size(), held.size(), "run " + run + " step " + step);
        if (step % 20 == 0 || step == 299) {
          assertEquals(new TreeSet<>(expected.keySet()), new TreeSet<>(held.ids()));
        }
      }
    }
  }
}
