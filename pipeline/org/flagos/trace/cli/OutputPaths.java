package org.flagos.trace.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Refuses, before anything is read, a command line whose output would overwrite one of its inputs
 * or whose two outputs are one file: a profiler must never destroy a capture it was given.
 */
final class OutputPaths {
    /**
     * @param inputs  what the command reads, by the option that names it (files that do not exist are ignored)
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
                if (same(outs.get(i).getValue(), outs.get(j).getValue())) {
                    throw new UsageException(outs.get(i).getKey() + " and " + outs.get(j).getKey() + " name the same file "
                            + outs.get(i).getValue() + ": give each output its own path");
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
