package org.flagos.trace.model;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Distinct strings numbered from 0 in the order first seen, optionally bounded: past
 * {@code maxCount} strings or {@code maxChars} characters in all, {@link #id} answers -1 and the
 * caller refuses the input. One writer at a time; the array of strings is republished (volatile)
 * on every new string, so that a reader that got an id through a happens-before edge (a ring slot,
 * a lock) sees its string without a lock. {@link NameTable} is the thread-safe face for captures.
 */
public final class StringIds {
    private final Map<String, Integer> ids = new HashMap<>();
    private final int maxCount;
    private final long maxChars;
    private volatile String[] values = new String[256];
    private int size;
    private long chars;

    /** Unbounded. */
    public StringIds() {
        this(Integer.MAX_VALUE, Long.MAX_VALUE);
    }

    /** Bounded to {@code maxCount} strings and {@code maxChars} characters in all. */
    public StringIds(int maxCount, long maxChars) {
        this.maxCount = maxCount;
        this.maxChars = maxChars;
    }

    /** The id of {@code s}, new ones numbered from 0; -1 when the bound is reached. */
    public int id(String s) {
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        if (size == maxCount || chars + s.length() > maxChars) {
            return -1;
        }
        String[] current = values;
        if (size == current.length) {
            current = Arrays.copyOf(current, size * 2);
        }
        current[size] = s;
        values = current;
        chars += s.length();
        ids.put(s, size);
        return size++;
    }

    /** The string for an id returned by {@link #id}. */
    public String get(int id) {
        return values[id];
    }

    /** How many strings have ids. */
    public int size() {
        return size;
    }
}
