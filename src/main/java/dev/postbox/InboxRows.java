package dev.postbox;

import java.sql.Types;

/** The inbox table's columns: one row per (consumer, event) handled, and when. */
final class InboxRows {
  /** The inserted columns; the bound ones first, as in {@link #TUPLE}. */
  static final String INSERTED = "consumer, event_id, created_at";

  /** Every column, for the dispatcher's check that the table is as shipped. */
  static final String ALL = INSERTED;

  /** Types of one row's bound values: consumer, event id. */
  static final int[] TYPES = {Types.VARCHAR, Types.VARCHAR};

  /** What a duplicate collides on. */
  static final String KEY = "consumer, event_id";

  private InboxRows() {}

  /** One row's values, its clock a placeholder, stamped by the database clock. */
  static final String TUPLE = "(?, ?, {now})";
}
