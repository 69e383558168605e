package dev.postbox.internal.sql;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job table's claim: first an {@link Admission} of the jobs waiting for one, in its own
 * transaction, then the database's claim, which takes the admitted jobs with the others. While no
 * job waits, an admission runs before a claim at most once per poll interval (or when the lane is
 * woken), and after a claim that took nothing; an admission that finds no job waiting is one
 * indexed read, so jobs without a group or limit pay one read per poll interval and empty claim. An
 * outage's probe claims admit nothing. One per claim loop; the pacing is the lane's, shared.
 */
public final class AdmittingClaim implements ClaimStrategy {
  private static final Logger log = LoggerFactory.getLogger(AdmittingClaim.class);

  private final ClaimStrategy claim;
  private final Admission admission;
  private final Pace pace;

  public AdmittingClaim(ClaimStrategy claim, Admission admission, Pace pace) {
    this.claim = claim;
    this.admission = admission;
    this.pace = pace;
  }

  @Override
  public <T> ClaimReport claim(Connection c, ClaimRequest<T> request) throws SQLException {
    if (request.probe() != null) {
      return claim.claim(c, request);
    }
    int waiting = 0;
    boolean admittedFirst = pace.due();
    if (admittedFirst) {
      try {
        waiting = admission.admit(c);
      } catch (SQLException e) {
        throw new NothingWritten(e); // rolled back, and the claim's finish not begun
      }
      pace.looked(waiting);
    }
    int before = request.into().size();
    ClaimReport report = claim.claim(c, request);
    // the rows start in this order: the oldest due first, as the claim chose them (MariaDB and H2
    // return them in id order), so that a trickling group's job admitted ahead of a backlog's
    // does not wait behind the rest of the batch; a job table keeps no order between rows
    request
        .into()
        .subList(before, request.into().size())
        .sort(Comparator.comparing(Claimed::due, Comparator.nullsLast(Comparator.naturalOrder())));
    if (!admittedFirst && request.into().isEmpty()) {
      // an empty claim: jobs may have been enqueued to wait since the last look
      try {
        waiting = admission.admit(c);
        pace.looked(waiting);
      } catch (SQLException e) { // the claim committed: the next claim admits again
        log.warn("{} - admission after a claim failed: {}", admission.table(), e.toString());
        waiting = 1;
      }
    }
    // jobs waiting for admission leave the lane not idle: a claim that took none proves nothing
    return waiting == 0 ? report : new ClaimReport(false, report.failedAfterCommit());
  }

  /**
   * When a lane's admissions run: before every claim while jobs wait for one, else once per {@code
   * idleNanos} or after a wake-up. Thread-safe.
   */
  public static final class Pace {
    private final long idleNanos;
    private final AtomicLong next = new AtomicLong(System.nanoTime());

    public Pace(long idleNanos) {
      this.idleNanos = idleNanos;
    }

    boolean due() {
      return System.nanoTime() - next.get() >= 0;
    }

    void looked(int waiting) {
      long now = System.nanoTime();
      next.set(waiting > 0 ? now : now + idleNanos);
    }

    /** Admits before the next claim: jobs may have been enqueued. */
    public void wake() {
      next.set(System.nanoTime());
    }
  }
}
