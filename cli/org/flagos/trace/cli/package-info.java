/**
 * The command line (picocli): commands, options, help, exit codes and the launcher's hints. Only
 * the CLI uses picocli, the progress bar and the no-op SLF4J backend. Floor 5, the top: imports
 * any floor; nothing imports it.
 */
package org.flagos.trace.cli;
