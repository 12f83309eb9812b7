/**
 * The JVM agent: a session armed inside a running Java program with no change to it, from
 * {@code -javaagent:flagtrace.jar=OPTIONS} at launch or {@code flagtrace attach PID} later, with the
 * session's own outputs. A front door beside the CLI, on the top floor.
 */
package org.flagos.trace.agent;
