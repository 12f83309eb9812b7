/**
 * The host API of a live session (Profiler, ProfilerSession, step schedules, op scopes): what a
 * program that embeds flagtrace calls. Floor 3, the pipeline: imports the floors below; imported
 * by the analysis and the CLI only.
 */
package org.flagos.trace.session;
