package dev.postbox;

/**
 * The job queue's flow control table, {@code <jobs>_flow}: one row per paused job name. A claim
 * never takes a paused name's jobs. Immutable and thread-safe.
 */
final class JobFlow {
  /** The columns of the flow table a dispatcher's start checks. */
  static final String COLUMNS = "kind, name, paused_at, updated_at";

  private JobFlow() {}

  /** The flow table of the job table {@code jobs}. */
  static String table(String jobs) {
    return jobs + "_flow";
  }
}
