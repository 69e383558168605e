package dev.postbox.recipes.jpa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.postbox.recipes.OrderRecipeContractTest;
import dev.postbox.testing.Sql;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.PersistenceConfiguration;
import jakarta.persistence.RollbackException;
import org.hibernate.cfg.JdbcSettings;
import org.hibernate.exception.ConstraintViolationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link HibernateOutboxRecipe} proves the ORM recipes' atomicity contract, and that a flush that
 * fails at commit also rolls back the event written before it.
 */
public abstract class HibernateOutboxContractTest extends OrderRecipeContractTest {
  private HibernateOutboxRecipe recipe;
  private EntityManagerFactory entityManagers;

  @BeforeAll
  void entityManagerFactory() {
    // JPA 3.2's programmatic bootstrap, no persistence.xml; Hibernate detects the dialect
    entityManagers =
        new PersistenceConfiguration("postbox-recipes")
            .managedClass(RecipeOrder.class)
            .property(JdbcSettings.JAKARTA_NON_JTA_DATASOURCE, ds)
            .createEntityManagerFactory();
  }

  @AfterAll
  void closeEntityManagerFactory() {
    entityManagers.close();
  }

  @Override
  protected String ordersTable() {
    return "recipe_jpa_orders";
  }

  @Override
  protected void newRecipe() {
    recipe = new HibernateOutboxRecipe(entityManagers, outbox);
  }

  @Override
  protected String place(long orderId, int amount, Runnable beforeCommit) {
    return recipe.place(orderId, amount, beforeCommit);
  }

  @Test
  void failingFlushAtCommitRollsBackTheEventWrittenBeforeIt() {
    startDispatcher();
    Sql.update(ds, "INSERT INTO recipe_jpa_orders (id, amount) VALUES (7, 1)");

    // persist() queues the INSERT; doWork() writes the outbox row; the commit's flush then
    // hits the duplicate key, so the transaction rolls back with the outbox row in it
    RollbackException thrown = assertThrows(RollbackException.class, () -> recipe.place(7, 30));

    // failed in the commit, after doWork had returned: the order's INSERT ran last
    assertEquals(ConstraintViolationException.class, thrown.getCause().getClass());
    assertEquals(0, outboxRows());
    assertEquals(1, orders());
    assertEquals(1, amountOf(7));
    assertBarrierDeliveredAlone(8, "order-7:placed");
  }
}
