package dev.postbox.recipes.jooq;

import dev.postbox.recipes.OrderRecipeContractTest;
import org.jooq.SQLDialect;
import org.jooq.impl.DSL;

/** {@link JooqOutboxRecipe} proves the ORM recipes' atomicity contract. */
public abstract class JooqOutboxContractTest extends OrderRecipeContractTest {
  private JooqOutboxRecipe recipe;

  /** jOOQ's dialect for this database. */
  protected abstract SQLDialect dialect();

  @Override
  protected String ordersTable() {
    return "recipe_jooq_orders";
  }

  @Override
  protected void newRecipe() {
    recipe = new JooqOutboxRecipe(DSL.using(ds, dialect()), outbox);
  }

  @Override
  protected String place(long orderId, int amount, Runnable beforeCommit) {
    return recipe.place(orderId, amount, beforeCommit);
  }
}
