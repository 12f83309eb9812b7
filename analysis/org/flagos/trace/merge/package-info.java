/**
 * Merges the traces of many processes or ranks into one trace: clocks, rank alignment, timestamps
 * and the merge block. Floor 4, the analysis: imports the floors below; imported by the CLI only.
 */
package org.flagos.trace.merge;
