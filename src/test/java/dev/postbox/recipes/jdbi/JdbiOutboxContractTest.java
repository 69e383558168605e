package dev.postbox.recipes.jdbi;

import dev.postbox.recipes.OrderRecipeContractTest;
import org.jdbi.v3.core.Jdbi;

/** {@link JdbiOutboxRecipe} proves the ORM recipes' atomicity contract. */
public abstract class JdbiOutboxContractTest extends OrderRecipeContractTest {
  private JdbiOutboxRecipe recipe;

  @Override
  protected String ordersTable() {
    return "recipe_jdbi_orders";
  }

  @Override
  protected void newRecipe() {
    recipe = new JdbiOutboxRecipe(Jdbi.create(ds), outbox);
  }

  @Override
  protected String place(long orderId, int amount, Runnable beforeCommit) {
    return recipe.place(orderId, amount, beforeCommit);
  }
}
