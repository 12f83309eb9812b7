/**
 * The output formats: each turns what the walk hands a TraceSink into bytes (ChromeJsonSink:
 * torch's Chrome JSON; PerfettoProtoSink: .pftrace; ParquetSink with its own Parquet writer ParquetColumns, and EventTable for flagtrace tables, which sorts the rows first: the
 * events table)
 * with the byte writers they share. A new output format goes here. Floor 2, on the stages'
 * TraceSink contract and the model; imported by the pipeline, the analysis and the CLI, never by
 * the walk.
 */
package org.flagos.trace.encoders;
