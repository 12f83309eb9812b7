package org.flagos.trace.model;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The call stack that opened a host op, innermost frame first, each frame as Java prints it
 * ({@code com.example.Model.forward(Model.java:42)}). The trace carries it as kineto's
 * {@code "Call stack"} arg of the {@code cpu_op}: the frames joined by {@code ;} in one string, the
 * form torch's TensorBoard plugin reads. Immutable; bounded to {@link #MAX_FRAMES} frames of at most
 * {@link #MAX_FRAME_CHARS} characters (a longer stack or frame is refused with an
 * {@link IllegalArgumentException}; {@link #ofTruncated} cuts instead).
 */
public final class OpStack {
    /** The {@code cpu_op} arg that holds the stack. */
    public static final String KEY = "Call stack";
    public static final int MAX_FRAMES = 128;
    public static final int MAX_FRAME_CHARS = 1024;

    private final String[] frames;
    private final byte[] json;
    private final String framesJson;
    private final byte[] joinedUtf8;

    private OpStack(String[] frames) {
        this.frames = frames;
        StringBuilder list = new StringBuilder("[");
        for (int i = 0; i < frames.length; i++) {
            list.append(i > 0 ? ",\"" : "\"").append(new String(JsonText.quotedUtf8(frames[i]), StandardCharsets.UTF_8)).append('"');
        }
        this.framesJson = list.append(']').toString();
        String joined = String.join(";", frames);
        this.joinedUtf8 = joined.getBytes(StandardCharsets.UTF_8);
        this.json = ("\"" + new String(JsonText.quotedUtf8(joined), StandardCharsets.UTF_8) + "\"")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** A stack of these frames, innermost first; refused when past the bounds or holding a null or empty frame. */
    public static OpStack of(List<String> frames) {
        if (frames.size() > MAX_FRAMES) {
            throw new IllegalArgumentException("an op's stack has at most " + MAX_FRAMES + " frames, not " + frames.size());
        }
        String[] copy = new String[frames.size()];
        for (int i = 0; i < copy.length; i++) {
            String f = frames.get(i);
            if (f == null || f.isEmpty()) {
                throw new IllegalArgumentException("stack frame " + i + " is empty");
            }
            if (f.length() > MAX_FRAME_CHARS) {
                throw new IllegalArgumentException("stack frame " + i + " is " + f.length() + " characters long; at most "
                        + MAX_FRAME_CHARS);
            }
            copy[i] = f;
        }
        return new OpStack(copy);
    }

    /** A stack of these frames, cut to the bounds (frames past {@link #MAX_FRAMES}, characters past {@link #MAX_FRAME_CHARS}). */
    public static OpStack ofTruncated(String[] frames, int count) {
        int n = Math.min(count, MAX_FRAMES);
        String[] copy = new String[n];
        for (int i = 0; i < n; i++) {
            String f = frames[i];
            copy[i] = f.length() > MAX_FRAME_CHARS ? f.substring(0, MAX_FRAME_CHARS) : f;
        }
        return new OpStack(copy);
    }

    public int depth() {
        return frames.length;
    }

    public String frame(int i) {
        return frames[i];
    }

    public List<String> frames() {
        return List.of(frames);
    }

    /** The {@code "Call stack"} value as JSON text (a string). The array is the stack's own: read it, never change it. */
    public byte[] json() {
        return json;
    }

    /** The frames as a JSON array of strings, as an ops file and the journal hold them. */
    public String framesJson() {
        return framesJson;
    }

    /** {@link #joined()} as UTF-8, made once. The array is the stack's own: read it, never change it. */
    public byte[] joinedUtf8() {
        return joinedUtf8;
    }

    /** The frames joined by {@code ;}, innermost first. */
    public String joined() {
        return String.join(";", frames);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OpStack && Arrays.equals(frames, ((OpStack) o).frames);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(frames);
    }

    @Override
    public String toString() {
        return joined();
    }
}
