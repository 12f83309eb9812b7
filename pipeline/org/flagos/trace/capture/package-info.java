/**
 * Capture assembly: wires the ring (decoders, stages, walk, encoder) for a replay of a capture or
 * journal and for a live session, picks the output format, and writes outputs atomically. Floor
 * 3, the pipeline: imports the floors below; imported by the analysis and the CLI only.
 */
package org.flagos.trace.capture;
