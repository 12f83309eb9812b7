package org.flagos.trace.model;

/**
 * Interned names of one capture (kernel, API and op names) so that ring slots carry an int and
 * strings stay off the hot path. Written by producers, read by stages on other threads: a slot
 * that carries an id is published after the id was interned, and the ring's sequence publication
 * makes the entry visible to every stage that reads the slot. Producers take turns on this table's
 * lock; readers take none ({@link StringIds} republishes its strings on every new one).
 */
public final class NameTable {
    private final StringIds ids = new StringIds();

    /** Returns the id of {@code name}, interning it on first sight. */
    public synchronized int intern(String name) {
        return ids.id(name);
    }

    /** The name for an id returned by {@link #intern}. */
    public String name(int id) {
        return ids.get(id);
    }

    /** How many names have ids. */
    public synchronized int size() {
        return ids.size();
    }
}
