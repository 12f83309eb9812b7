package org.flagos.trace.merge;

import java.util.Arrays;

/**
 * The sequences of field names {@link EventScan} has checked in one kind of object (an event, its args), as a tree:
 * a node is a field name after those of its parent's path. Being at a node means the object's names so far were that
 * path's, each checked (printable ASCII, no escape) and none twice; a next name equal to a child's is therefore
 * checked too, and its kind known, by one comparison of its bytes. Events of a trace share a few forms, so after the
 * first of each form nearly every name is found here. Bounded: past {@link #MAX_NODES} nodes, {@link #MAX_CHILDREN}
 * children of a node or {@link #MAX_NAME} bytes of a name nothing is added, and the scan checks the names itself.
 */
final class FieldNames {
    /** The node of an object before its first name. */
    static final int ROOT = 0;
    static final int MAX_NODES = 1024;
    static final int MAX_CHILDREN = 16;
    static final int MAX_NAME = 64;

    private byte[][] names = new byte[64][];
    private int[] kinds = new int[64];
    private int[] hashes = new int[64];
    private int[] firstChild = new int[64];
    private int[] nextSibling = new int[64];
    private int[] children = new int[64];
    private int[] parent = new int[64];
    private static final int SLOT_BITS = 12;
    /** Children by {@link #slot}: the first child added to a slot (0: none); others are found by their siblings' list. */
    private final int[] bySlot = new int[1 << SLOT_BITS];
    private int nodes = 1;

    FieldNames() {
        firstChild[ROOT] = -1;
        nextSibling[ROOT] = -1;
    }

    /**
     * The child of {@code node} whose name is {@code b[from, from + n)} followed by the closing quote at {@code b[from + n]}
     * (all before {@code lim}); -1 when none is.
     */
    int child(int node, byte[] b, int from, int lim) {
        if (from + 1 < lim) { // the child its first two bytes hash to, when one does: most often the one
            int c = bySlot[slot(node, b[from], b[from + 1])];
            if (c > 0 && parent[c] == node) {
                byte[] name = names[c];
                int end = from + name.length;
                if (end < lim && b[end] == '"' && same(name, b, from)) {
                    return c;
                }
            }
        }
        return find(node, b, from, lim);
    }

    /** The slot in {@link #bySlot} of a child of {@code node} whose name's first two bytes (its closing quote for a short one) are these. */
    private static int slot(int node, byte first, byte second) {
        int key = node << 16 | (first & 0xff) << 8 | (second & 0xff);
        return (key * 0x9E3779B1) >>> (32 - SLOT_BITS);
    }

    private int find(int node, byte[] b, int from, int lim) {
        for (int c = firstChild[node]; c >= 0; c = nextSibling[c]) {
            byte[] name = names[c];
            int end = from + name.length;
            if (end < lim && b[end] == '"' && same(name, b, from)) {
                return c;
            }
        }
        return -1;
    }

    private static boolean same(byte[] name, byte[] b, int from) {
        for (int k = 0; k < name.length; k++) {
            if (name[k] != b[from + k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds the name {@code b[from, to)} (checked, and not one of {@code node}'s path) as a child of {@code node}, of
     * {@code kind} and {@code hash}; returns the child, or -1 when it is not kept (a bound reached).
     */
    int add(int node, byte[] b, int from, int to, int hash, int kind) {
        if (nodes == MAX_NODES || children[node] == MAX_CHILDREN || to - from > MAX_NAME) {
            return -1;
        }
        if (nodes == names.length) {
            int n = nodes * 2;
            names = Arrays.copyOf(names, n);
            kinds = Arrays.copyOf(kinds, n);
            hashes = Arrays.copyOf(hashes, n);
            firstChild = Arrays.copyOf(firstChild, n);
            nextSibling = Arrays.copyOf(nextSibling, n);
            children = Arrays.copyOf(children, n);
            parent = Arrays.copyOf(parent, n);
        }
        int c = nodes++;
        names[c] = Arrays.copyOfRange(b, from, to);
        kinds[c] = kind;
        hashes[c] = hash;
        firstChild[c] = -1;
        nextSibling[c] = firstChild[node];
        firstChild[node] = c;
        children[node]++;
        parent[c] = node;
        int n = to - from;
        int slot = slot(node, n > 0 ? b[from] : (byte) '"', n > 1 ? b[from + 1] : (byte) '"');
        if (bySlot[slot] == 0) {
            bySlot[slot] = c;
        }
        return c;
    }

    /** The length of a node's name in bytes. */
    int length(int node) {
        return names[node].length;
    }

    /** The kind of field a node's name is, as {@link EventScan} tells them. */
    int kind(int node) {
        return kinds[node];
    }

    /** The hash of a node's name, as {@link EventScan} hashes names. */
    int hash(int node) {
        return hashes[node];
    }
}
