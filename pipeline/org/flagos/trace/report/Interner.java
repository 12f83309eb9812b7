package org.flagos.trace.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Distinct strings by id, in the order first seen. Bounded: past {@code maxCount} strings or
 * {@code maxChars} characters in all, {@link #id} answers -1 and the caller refuses the input.
 */
final class Interner {
    private final List<String> values = new ArrayList<>();
    private final Map<String, Integer> ids = new HashMap<>();
    private final int maxCount;
    private final long maxChars;
    private long chars;

    Interner(int maxCount, long maxChars) {
        this.maxCount = maxCount;
        this.maxChars = maxChars;
    }

    /** The id of {@code s}, new ones numbered from 0; -1 when the bound is reached. */
    int id(String s) {
        Integer id = ids.get(s);
        if (id != null) {
            return id;
        }
        if (values.size() == maxCount || chars + s.length() > maxChars) {
            return -1;
        }
        chars += s.length();
        values.add(s);
        ids.put(s, values.size() - 1);
        return values.size() - 1;
    }

    String get(int id) {
        return values.get(id);
    }

    int size() {
        return values.size();
    }
}
