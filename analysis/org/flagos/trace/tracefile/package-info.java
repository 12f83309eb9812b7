/**
 * The one reader of torch-compatible trace files (Chrome JSON, gzipped or not): the file opened
 * ({@link org.flagos.trace.tracefile.TraceSource}), its top level, its events and every block
 * flagtrace writes read in one streaming pass ({@link org.flagos.trace.tracefile.TraceReader}) under
 * one set of rules and bounds ({@link org.flagos.trace.tracefile.TraceLimits}), each failure said in
 * one line ({@link org.flagos.trace.tracefile.TraceFormatException}). Summary, report, tables, merge
 * and rank times read traces through it, so they accept and refuse the same files in the same words.
 */
package org.flagos.trace.tracefile;
