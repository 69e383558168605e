package dev.postbox.recipes.jpa;

import dev.postbox.Message;
import dev.postbox.Outbox;
import jakarta.persistence.EntityManagerFactory;
import org.hibernate.Session;

/**
 * The JPA/Hibernate recipe: an order entity persisted and its {@code order.placed} event added to
 * the outbox in the same Hibernate transaction, so both commit or neither does.
 *
 * <p>Thread-safe ({@link EntityManagerFactory} and {@link Outbox} are; an entity manager lives only
 * inside its transaction). Hibernate holds the entity's INSERT until the flush at commit, while
 * {@link Session#doWork} writes the outbox row at once, on the same connection in the same
 * transaction: the order of the two statements differs from the code's, the outcome does not.
 */
public final class HibernateOutboxRecipe {
  private final EntityManagerFactory entityManagers;
  private final Outbox outbox;

  /**
   * A recipe persisting through {@code entityManagers}.
   *
   * @param entityManagers Hibernate's resource-local factory (a {@code SessionFactory} is one)
   * @param outbox the outbox the events are added to
   */
  public HibernateOutboxRecipe(EntityManagerFactory entityManagers, Outbox outbox) {
    this.entityManagers = entityManagers;
    this.outbox = outbox;
  }

  /**
   * Persists the order and adds its event in one transaction, committed when this returns.
   *
   * @param orderId the order's id, also the event's key
   * @param amount the order's amount
   * @return the event's id
   * @throws jakarta.persistence.RollbackException if the commit fails, e.g. its flush hits a
   *     constraint; nothing is stored
   */
  public String place(long orderId, int amount) {
    return place(orderId, amount, () -> {});
  }

  /** As {@link #place(long, int)}, running {@code beforeCommit} last in the transaction. */
  String place(long orderId, int amount, Runnable beforeCommit) {
    Message event =
        Message.of("order.placed", "{\"orderId\":" + orderId + ",\"amount\":" + amount + "}")
            .eventId("order-" + orderId + ":placed")
            .key(Long.toString(orderId));
    // commits when the block returns; rolls back and rethrows when it or the commit throws
    entityManagers.runInTransaction(
        em -> {
          Session session = em.unwrap(Session.class);
          session.persist(new RecipeOrder(orderId, amount)); // INSERT deferred to the flush
          // runs now, on the session's JDBC connection (auto-commit off): the outbox row is
          // written before the order's, and commits or rolls back with it (JPA 3.2's
          // em.runWithConnection(...) does the same without naming Hibernate)
          session.doWork(c -> outbox.add(c, event));
          beforeCommit.run(); // the tests' seam: throwing here rolls back both writes
        });
    return event.eventId();
  }
}
