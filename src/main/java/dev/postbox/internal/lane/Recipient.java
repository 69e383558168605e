package dev.postbox.internal.lane;

/**
 * Where a lane's rows go: one row at a time to {@code deliverer}, or a claim's rows together to
 * {@code batchDeliverer} if there is one; each delivery within {@code limit}.
 *
 * @param deliverer delivers one row
 * @param batchDeliverer delivers a claim's rows together; null for one row per delivery
 * @param limit how long a delivery may run
 */
public record Recipient<T>(
    Deliverer<T> deliverer, BatchDeliverer<T> batchDeliverer, TimeLimit<T> limit) {}
