package dev.postbox.internal.sql;

import dev.postbox.internal.jdbc.SqlText;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The statement texts of a table's finishes (delete, or done where finished rows are kept) and of
 * the claims that carry one. A finish's ids are padded to the next power of two (the last id
 * repeated; up to {@value #PADDED_MAX}), so that a lane has a few such texts, not one per count:
 * the driver parses each once, and pgjdbc has PostgreSQL prepare it once, where a text per count
 * was built, parsed and planned on nearly every claim. An IN list of a known length keeps its index
 * plan as a generic plan; an array parameter ({@code = ANY (?)}) got a Seq Scan on an empty table.
 * Thread-safe: the lane's claim loops and writer share it.
 */
final class FinishTexts {
  static final int PADDED_MAX = 1024;
  private static final int SIZES = Integer.numberOfTrailingZeros(PADDED_MAX) + 1;

  /** Which statement: the finish alone, the claim carrying it, the claim of runs carrying it. */
  enum Form {
    FINISH,
    CLAIM,
    CLAIM_RUNS
  }

  private final String delete;
  private final String done;
  private final String claim; // with {finish}
  private final String claimRuns; // with {finish}; null if the table is not ordered by key
  // built on first use: [form][delete or done][log2 of the padded count]
  private final AtomicReferenceArray<String> texts =
      new AtomicReferenceArray<>(Form.values().length * 2 * SIZES);

  FinishTexts(String delete, String done, String claim, String claimRuns) {
    this.delete = delete;
    this.done = done;
    this.claim = claim;
    this.claimRuns = claimRuns;
  }

  /** How many ids a finish of {@code n} rows binds: see {@link #padded}. */
  static int paddedCount(int n) {
    return n <= 1 || n > PADDED_MAX ? n : Integer.highestOneBit(n - 1) << 1;
  }

  /** {@code ids} with the last one repeated up to {@link #paddedCount}: what a finish binds. */
  static List<Long> padded(List<Long> ids) {
    int n = paddedCount(ids.size());
    if (n == ids.size()) {
      return ids;
    }
    List<Long> padded = new ArrayList<>(n);
    padded.addAll(ids);
    Long last = ids.getLast();
    while (padded.size() < n) {
      padded.add(last);
    }
    return padded;
  }

  /** {@code form} for a finish of {@code n} rows, kept ({@code keepDone}) or deleted. */
  String text(Form form, int n, boolean keepDone) {
    int count = paddedCount(n);
    if (Integer.bitCount(count) != 1 || count > PADDED_MAX) {
      return build(form, count, keepDone); // not padded (none, or more than the most): not kept
    }
    int slot =
        ((form.ordinal() * 2) + (keepDone ? 1 : 0)) * SIZES + Integer.numberOfTrailingZeros(count);
    String text = texts.get(slot);
    if (text == null) {
      text = build(form, count, keepDone);
      texts.set(slot, text);
    }
    return text;
  }

  private String build(Form form, int count, boolean keepDone) {
    String finish = (keepDone ? done : delete).replace("{ids}", SqlText.marks(count));
    return switch (form) {
      case FINISH -> finish;
      case CLAIM -> claim.replace("{finish}", finish);
      case CLAIM_RUNS -> claimRuns.replace("{finish}", finish);
    };
  }
}
