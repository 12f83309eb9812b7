/**
 * The SQL analyses over the events table (resources/org/flagos/trace/sql/*.sql) run on DuckDB;
 * the Spark jar runs the same files. Floor 4, the analysis: imports the floors below; imported by
 * the CLI only.
 */
package org.flagos.trace.sql;
