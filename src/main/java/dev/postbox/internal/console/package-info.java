/**
 * The operations console behind {@code dev.postbox.Console}: its statements, pages, JSON, metrics
 * and actions, served by the JDK's HTTP server.
 */
package dev.postbox.internal.console;
