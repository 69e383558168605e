/**
 * Tiny JDBC helpers: work on a borrowed connection in auto-commit or a short transaction, retries
 * of transient errors, a statement cache, statement text, error texts for a column or a message
 * that never leak content; the one place SQLException is wrapped. Knows no domain.
 */
package dev.postbox.internal.jdbc;
