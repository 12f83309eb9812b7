package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.flagos.trace.capture.AtomicOutput;
import org.flagos.trace.capture.TraceFormat;
import org.flagos.trace.ingest.CaptureSidecars;
import org.flagos.trace.journal.JournalReader;

/**
 * Refuses, before anything is read, a command line whose output would overwrite one of its inputs,
 * whose two outputs are one file ({@link #check}), or whose output cannot be written where it says
 * ({@link #checkWritable}: no such directory, a file in the way, a directory in its place): a
 * profiler must never destroy a capture it was given, nor fail only after the work is done.
 */
final class OutputPaths {
    /**
     * The one rule every command's outputs follow, checked before anything is read (exit 2): no output
     * is one of the inputs or another output ({@link #check}); none is where a replay of a capture
     * among the inputs reads a sidecar, present or not ({@code NAME.process.json}, {@code .clock.json},
     * ...: a file written there would be read as that capture's ranks, clock or devices); none is inside
     * an input directory (a journal: a file there would replace or sit among its own files).
     *
     * @param inputs  what the command reads, by what it is in words (null values and missing files ignored)
     * @param outputs what it writes, by option (null values ignored)
     */
    static void refuse(Map<String, Path> inputs, Map<String, Path> outputs) {
        Map<String, Path> in = new LinkedHashMap<>(inputs);
        Map<String, Path> out = new LinkedHashMap<>(outputs);
        in.values().removeIf(Objects::isNull);
        out.values().removeIf(Objects::isNull);
        check(in, out);
        for (Map.Entry<String, Path> input : in.entrySet()) {
            Path p = input.getValue();
            String name = p.getFileName() == null ? "" : p.getFileName().toString();
            if (name.endsWith(".fltrbuf") || name.endsWith(".fltrbuf.gz")) {
                refuseSidecars(p, out);
            }
            if (Files.isDirectory(p)) {
                checkOutside(JournalReader.isJournal(p) ? "journal directory being read"
                        : "directory being read (" + input.getKey() + ")", p, out);
            }
        }
    }

    /**
     * Refuses an output on any place a replay of {@code capture} reads a sidecar from, present or
     * not: a trace written there would be read as ops, names, devices or clock by the next replay.
     */
    static void refuseSidecars(Path capture, Map<String, Path> outputs) {
        for (Map.Entry<String, Path> out : outputs.entrySet()) {
            Path written = out.getValue().toAbsolutePath().normalize();
            for (CaptureSidecars sidecar : CaptureSidecars.values()) {
                for (Path place : sidecar.places(capture)) {
                    if (written.equals(place.toAbsolutePath().normalize()) || same(out.getValue(), place)) {
                        throw new UsageException(out.getKey() + " " + out.getValue() + " is where a replay of " + capture
                                + " reads its " + sidecar.what() + ": refusing to write there; choose another output path");
                    }
                }
            }
        }
    }

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
     * Refuses an output inside (or at) {@code dir}, a journal or another directory being read or
     * written: a file written there would replace one of its own files, or sit among them.
     */
    static void checkOutside(String what, Path dir, Map<String, Path> outputs) {
        for (Map.Entry<String, Path> out : outputs.entrySet()) {
            if (inside(out.getValue(), dir)) {
                throw new UsageException(out.getKey() + " " + out.getValue() + " is inside the " + what + " (" + dir
                        + "): a file written there would replace or sit among its own files; choose an output path outside " + dir);
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
    static TraceFormat checkTraceName(String option, Path trace) {
        return checkTraceName(option, trace, List.of(TraceFormat.values()), null);
    }

    /**
     * Refuses a name that {@link TraceFormat#forPath} gives none of {@code allowed} (exit 2, as replay
     * refuses {@code -o x.txt}); returns the format the name picks (JSON for a device or FIFO).
     *
     * @param what what the output is, in words ("a merged trace is Chrome JSON"); null for any trace
     */
    static TraceFormat checkTraceName(String option, Path trace, List<TraceFormat> allowed, String what) {
        var format = TraceFormat.forPath(trace);
        if (format.isPresent() && allowed.contains(format.get())) {
            return format.get();
        }
        if (AtomicOutput.writesStraight(trace)) {
            return allowed.get(0);
        }
        throw new UsageException(option + " " + trace + ": " + (what == null ? "a trace file's name ends in "
                + TraceFormat.suffixWords(allowed) + " (the name picks the format: torch JSON or Perfetto protobuf, .gz compressed,"
                + " or the events table as Parquet)" : what + "; name it " + TraceFormat.suffixWords(allowed)));
    }

    /** The endings of an HTML page's name. */
    static final List<String> PAGE_SUFFIXES = List.of(".html", ".htm");

    /** Refuses a page name that does not end in {@link #PAGE_SUFFIXES} (a device or FIFO takes any name). */
    static void checkPageName(String option, Path page) {
        String name = page.getFileName() == null ? "" : page.getFileName().toString();
        for (String suffix : PAGE_SUFFIXES) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                return;
            }
        }
        if (!AtomicOutput.writesStraight(page)) {
            throw new UsageException(option + " " + page + ": the report is an HTML page; name it .html");
        }
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
