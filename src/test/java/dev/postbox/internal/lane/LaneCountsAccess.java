package dev.postbox.internal.lane;

/** Counts what a lane would count, for tests outside the lane package. */
public final class LaneCountsAccess {
  private LaneCountsAccess() {}

  public static void delivered(LaneCounts counts, int rows) {
    counts.addDelivered(rows);
  }

  public static void failed(LaneCounts counts) {
    counts.addFailed();
  }
}
