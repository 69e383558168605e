/**
 * Recurring jobs' engine: storing the schedules a dispatcher declares, the thread that enqueues
 * each due tick's run under the schedule row's lock, listing and removing stored schedules, and
 * their statements. Not API.
 */
package dev.postbox.internal.recurring;
