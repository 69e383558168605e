/**
 * Tiny JDBC helpers: run a statement, map rows, run a short transaction, wrap SQLException once.
 * Knows no domain.
 */
package dev.postbox.internal.jdbc;
