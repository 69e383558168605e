package dev.postbox.testing;

import dev.postbox.Envelope;
import java.sql.Connection;

/**
 * A broker consumer's side effect: applies one event on {@code tx}, the transaction that claimed
 * it; throw to retry.
 */
@FunctionalInterface
public interface InboxHandler {
  void handle(Connection tx, Envelope envelope) throws Exception;
}
