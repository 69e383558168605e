package dev.postbox.internal.lane;

/** Thrown by a deliverer for a row that can never succeed here: park it without retrying. */
public final class ParkNow extends Exception {
  private static final long serialVersionUID = 1L;

  public ParkNow(String reason) {
    super(reason, null, false, false);
  }
}
