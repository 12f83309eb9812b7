/**
 * Analysis of a finished trace file, flagtrace's or torch's: the summary (key_averages), the HTML
 * report, rank times, the events tables read back. Floor 4, the analysis: imports the floors
 * below; imported by the CLI only.
 */
package org.flagos.trace.report;
