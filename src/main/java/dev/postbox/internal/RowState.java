package dev.postbox.internal;

/** Values of the {@code state} column. */
public final class RowState {
  public static final int PENDING = 0;
  public static final int DONE = 1;
  public static final int PARKED = 2;

  private RowState() {}
}
