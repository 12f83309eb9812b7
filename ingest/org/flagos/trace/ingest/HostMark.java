package org.flagos.trace.ingest;

/**
 * One mark from a marks file: an instant a program put on one of its threads ({@code nvtxMarkA}, {@code mstxMarkA}),
 * with no duration and no External id: not an op.
 *
 * @param name   its message
 * @param domain the name of its domain ({@code nvtxDomainMarkEx}), or null for the default one
 * @param pid    the process that made it
 * @param thread the thread that made it
 * @param tsNs   when, on the capture's clock
 */
public record HostMark(String name, String domain, long pid, long thread, long tsNs) {
}
