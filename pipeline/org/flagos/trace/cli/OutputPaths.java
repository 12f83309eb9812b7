package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.flagos.trace.capture.AtomicOutput;

/**
 * Refuses, before anything is read, a command line whose output would overwrite one of its inputs,
 * whose two outputs are one file ({@link #check}), or whose output cannot be written where it says
 * ({@link #checkWritable}: no such directory, a file in the way, a directory in its place): a
 * profiler must never destroy a capture it was given, nor fail only after the work is done.
 */
final class OutputPaths {
    /** The names a trace file may end with; the name picks the format. */
    static final List<String> TRACE_EXTENSIONS = List.of(".json", ".json.gz", ".pftrace", ".pftrace.gz", ".parquet");

    /**
     * @param inputs  what the command reads, by what it is in words (files that do not exist are ignored)
     * @param outputs what it writes, by option
     */
    static void check(Map<String, Path> inputs, Map<String, Path> outputs) {
        List<Map.Entry<String, Path>> outs = List.copyOf(outputs.entrySet());
        for (int i = 0; i < outs.size(); i++) {
            for (Map.Entry<String, Path> in : inputs.entrySet()) {
                if (same(outs.get(i).getValue(), in.getValue())) {
                    throw new UsageException(outs.get(i).getKey() + " " + outs.get(i).getValue() + " is the "
                            + in.getKey() + " being read: refusing to overwrite an input; choose another output path");
                }
            }
            for (int j = i + 1; j < outs.size(); j++) {
                Path a = outs.get(i).getValue();
                if (same(a, outs.get(j).getValue()) && !AtomicOutput.nodeType(a).equals("character device")) {
                    throw new UsageException(outs.get(i).getKey() + " and " + outs.get(j).getKey() + " name the same file "
                            + a + ": give each output its own path");
                }
            }
        }
    }

    /**
     * Refuses an output inside (or at) {@code dir}, a journal directory: a file written there would
     * replace one of the journal's own files, or sit among them.
     */
    static void checkOutside(String what, Path dir, Map<String, Path> outputs) {
        for (Map.Entry<String, Path> out : outputs.entrySet()) {
            if (inside(out.getValue(), dir)) {
                throw new UsageException(out.getKey() + " " + out.getValue() + " is inside the " + what + " (" + dir
                        + "): writing there would damage the journal; choose an output path outside " + dir);
            }
        }
    }

    /**
     * Refuses output files that cannot be written where they are named: a directory that does not
     * exist (none is created), a file where a directory should be, a directory or another node in the
     * file's place (a character device or FIFO is written straight to). Exit 1, before anything is read.
     */
    static void checkWritable(Map<String, Path> files) {
        for (Map.Entry<String, Path> out : files.entrySet()) {
            if (out.getValue() == null) {
                continue;
            }
            String problem = AtomicOutput.whyNotWritable(out.getValue());
            if (problem != null) {
                throw new CliFailures.CommandFailedException("cannot write " + out.getKey() + " " + out.getValue() + ": " + problem);
            }
        }
    }

    private static boolean inside(Path file, Path dir) {
        Path f = file.toAbsolutePath().normalize();
        Path d = dir.toAbsolutePath().normalize();
        if (f.startsWith(d)) {
            return true;
        }
        try { // links and other spellings: compare where the file's directory really is
            Path parent = f.getParent();
            return parent != null && Files.isDirectory(parent) && Files.isDirectory(d)
                    && (parent.toRealPath().startsWith(d.toRealPath()) || Files.isSameFile(f.getParent(), d));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Refuses a trace name whose ending picks no format ({@code -o x.txt} would be JSON under a name
     * that says otherwise); a character device or a FIFO ({@code /dev/null}) takes any name and gets JSON.
     */
    static void checkTraceName(String option, Path trace) {
        String name = trace.getFileName() == null ? "" : trace.getFileName().toString();
        for (String extension : TRACE_EXTENSIONS) {
            if (name.endsWith(extension) && name.length() > extension.length()) {
                return;
            }
        }
        if (AtomicOutput.writesStraight(trace)) {
            return;
        }
        int last = TRACE_EXTENSIONS.size() - 1;
        throw new UsageException(option + " " + trace + ": a trace file's name ends in " + String.join(", ", TRACE_EXTENSIONS.subList(0, last))
                + " or " + TRACE_EXTENSIONS.get(last)
                + " (the name picks the format: torch JSON or Perfetto protobuf, .gz compressed, or the events table as Parquet)");
    }

    private static boolean same(Path a, Path b) {
        if (a == null || b == null) {
            return false;
        }
        if (a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize())) {
            return true;
        }
        try {
            return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b); // links, other spellings
        } catch (IOException e) {
            return false;
        }
    }

    private OutputPaths() {
    }
}
