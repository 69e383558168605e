/**
 * One narrow {@link dev.postbox.internal.dialect.Dialect} and one small class per database: the
 * only place SQL differs.
 */
package dev.postbox.internal.dialect;
