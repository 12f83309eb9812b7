package org.flagos.trace.model;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Interned names of one capture (kernel, API and op names) so that ring slots carry an int and
 * strings stay off the hot path. Written by producers, read by stages on other threads: a slot
 * that carries an id is published after the id was interned, and the ring's sequence publication
 * makes the entry visible to every stage that reads the slot.
 */
public final class NameTable {
    private final Map<String, Integer> ids = new HashMap<>();
    private volatile String[] names = new String[256];
    private int size;

    /** Returns the id of {@code name}, interning it on first sight. */
    public synchronized int intern(String name) {
        Integer id = ids.get(name);
        if (id != null) {
            return id;
        }
        String[] current = names;
        if (size == current.length) {
            current = Arrays.copyOf(current, size * 2);
        }
        current[size] = name;
        names = current;
        ids.put(name, size);
        return size++;
    }

    /** The name for an id returned by {@link #intern}. */
    public String name(int id) {
        return names[id];
    }

    public synchronized int size() {
        return size;
    }
}
