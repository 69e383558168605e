package dev.postbox.recipes.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The Hibernate recipe's business entity: an order with an assigned id. */
@Entity
@Table(name = "recipe_jpa_orders")
public class RecipeOrder {
  @Id private Long id;
  private int amount;

  protected RecipeOrder() {} // for Hibernate

  public RecipeOrder(long id, int amount) {
    this.id = id;
    this.amount = amount;
  }

  public long id() {
    return id;
  }

  public int amount() {
    return amount;
  }
}
