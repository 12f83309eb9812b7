package org.flagos.trace.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.GZIPInputStream;

/** The real H200 captures bundled as test resources (copied from the shared fixtures). */
public final class Captures {
    /** The shared H200 captures, each with CUPTI's own decoding (truth): name without extension. */
    public static final List<String> ALL = List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-tiny30k");
    /** Recorded by flagtrace itself in a JVM on the H200 ({@code flagtrace record --workload parity}). */
    public static final List<String> LIVE = List.of("h200-java-parity");
    /**
     * Every bundled capture; h200-java-parity-wide-tid is the parity workload recorded earlier the same
     * day, whose main thread's vendor id does not fit 32 bits and whose window opened in the second
     * before its first record.
     */
    public static final List<String> EVERY = List.of("h200-app", "h200-app-tiny2k", "h200-mt4", "h200-tiny30k", "h200-java-parity",
            "h200-java-parity-wide-tid", "h200-java-kinds/h200-java-kinds", "h200-java-steps/h200-java-steps");

    /** The capture's file name without its folder: what a test names the files it writes for it. */
    public static String stem(String name) {
        return name.substring(name.lastIndexOf('/') + 1);
    }

    public static Path dir() {
        try {
            return Path.of(Captures.class.getResource("/captures/h200-app.fltrbuf").toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Path capture(String name) {
        Path plain = dir().resolve(name + ".fltrbuf");
        return plain.toFile().exists() ? plain : dir().resolve(name + ".fltrbuf.gz");
    }

    public static Path ops(String name) {
        Path plain = dir().resolve(name + ".ops.jsonl");
        return plain.toFile().exists() ? plain : dir().resolve(name + ".ops.jsonl.gz");
    }

    public static Path truth(String name) {
        Path plain = dir().resolve(name + ".truth.jsonl");
        return plain.toFile().exists() ? plain : dir().resolve(name + ".truth.jsonl.gz");
    }

    public static Path names(String name) {
        return dir().resolve(name + ".names.tsv");
    }

    public static InputStream open(Path path) {
        try {
            InputStream in = java.nio.file.Files.newInputStream(path);
            return path.toString().endsWith(".gz") ? new GZIPInputStream(in) : in;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private Captures() {
    }
}
