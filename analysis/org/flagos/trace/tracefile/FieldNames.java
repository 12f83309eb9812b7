package org.flagos.trace.tracefile;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The sequences of field names a scan of a trace's bytes has checked in one kind of object (an event, its args), as a
 * tree (merge's {@code EventScan}, the summary's {@code SummaryScan}):
 * a node is a field name after those of its parent's path. Being at a node means the object's names so far were that
 * path's, each checked (printable ASCII, no escape) and none twice; a next name equal to a child's is therefore
 * checked too, and its kind known, by one comparison of its bytes. Events of a trace share a few forms, so after the
 * first of each form nearly every name is found here. Bounded: past {@link #MAX_NODES} nodes, {@link #MAX_CHILDREN}
 * children of a node or {@link #MAX_NAME} bytes of a name nothing is added, and the scan checks the names itself.
 */
public final class FieldNames {
    /** The node of an object before its first name. */
    public static final int ROOT = 0;
    public static final int MAX_NODES = 1024;
    public static final int MAX_CHILDREN = 16;
    public static final int MAX_NAME = 64;
    /** A byte array read as longs, little-endian: a name is compared eight bytes at a time where the array has them. */
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private byte[][] names = new byte[64][];
    /** Each name and its closing quote as little-endian words, the last one's bytes past the quote zero; its mask. */
    private long[][] words = new long[64][];
    private long[] lastMask = new long[64];
    /** Each name's length, its first word and that word's mask (the name and quote's bytes of it). */
    private int[] lengths = new int[64];
    private long[] firstWord = new long[64];
    private long[] firstMask = new long[64];
    /** The child last found under each node: traces repeat their forms, so most often the next one. */
    private int[] taken = new int[64];
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

    public FieldNames() {
        firstChild[ROOT] = -1;
        nextSibling[ROOT] = -1;
    }

    /**
     * The child of {@code node} whose name is {@code b[from, from + n)} followed by the closing quote at {@code b[from + n]}
     * (all before {@code lim}); -1 when none is.
     */
    public int child(int node, byte[] b, int from, int lim) {
        int last = taken[node];
        if (last > 0 && is(last, b, from, lim)) {
            return last;
        }
        int c = slotted(node, b, from, lim);
        if (c > 0) {
            taken[node] = c;
        }
        return c;
    }

    private int slotted(int node, byte[] b, int from, int lim) {
        if (from + 1 < lim) { // the child its first two bytes hash to, when one does: most often the one
            int c = bySlot[slot(node, b[from], b[from + 1])];
            if (c > 0 && parent[c] == node) {
                if (is(c, b, from, lim)) {
                    return c;
                }
            }
        }
        return find(node, b, from, lim);
    }

    /** Whether {@code b[from, lim)} starts with node {@code c}'s name and its closing quote. */
    private boolean is(int c, byte[] b, int from, int lim) {
        int length = lengths[c];
        if (from + length >= lim) {
            return false;
        }
        long[] w = words[c];
        int n = w.length;
        if (from + 8 * n > b.length) { // at the array's end: byte by byte
            return b[from + length] == '"' && same(names[c], b, from);
        }
        if (((long) LONGS.get(b, from) & firstMask[c]) != firstWord[c]) {
            return false;
        }
        if (n == 1) {
            return true;
        }
        for (int k = 1; k < n - 1; k++) {
            if ((long) LONGS.get(b, from + 8 * k) != w[k]) {
                return false;
            }
        }
        return ((long) LONGS.get(b, from + 8 * (n - 1)) & lastMask[c]) == w[n - 1];
    }

    /** The slot in {@link #bySlot} of a child of {@code node} whose name's first two bytes (its closing quote for a short one) are these. */
    private static int slot(int node, byte first, byte second) {
        int key = node << 16 | (first & 0xff) << 8 | (second & 0xff);
        return (key * 0x9E3779B1) >>> (32 - SLOT_BITS);
    }

    private int find(int node, byte[] b, int from, int lim) {
        for (int c = firstChild[node]; c >= 0; c = nextSibling[c]) {
            if (is(c, b, from, lim)) {
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
    public int add(int node, byte[] b, int from, int to, int hash, int kind) {
        if (nodes == MAX_NODES || children[node] == MAX_CHILDREN || to - from > MAX_NAME) {
            return -1;
        }
        if (nodes == names.length) {
            int n = nodes * 2;
            names = Arrays.copyOf(names, n);
            lengths = Arrays.copyOf(lengths, n);
            firstWord = Arrays.copyOf(firstWord, n);
            firstMask = Arrays.copyOf(firstMask, n);
            taken = Arrays.copyOf(taken, n);
            words = Arrays.copyOf(words, n);
            lastMask = Arrays.copyOf(lastMask, n);
            kinds = Arrays.copyOf(kinds, n);
            hashes = Arrays.copyOf(hashes, n);
            firstChild = Arrays.copyOf(firstChild, n);
            nextSibling = Arrays.copyOf(nextSibling, n);
            children = Arrays.copyOf(children, n);
            parent = Arrays.copyOf(parent, n);
        }
        int c = nodes++;
        names[c] = Arrays.copyOfRange(b, from, to);
        byte[] quoted = Arrays.copyOf(names[c], (to - from + 1 + 7) / 8 * 8); // the name, its quote, zeros
        quoted[to - from] = '"';
        words[c] = new long[quoted.length / 8];
        for (int k = 0; k < words[c].length; k++) {
            words[c][k] = (long) LONGS.get(quoted, 8 * k);
        }
        int tail = (to - from + 1) % 8; // bytes of the name and quote in the last word (0: all eight)
        lastMask[c] = tail == 0 ? -1L : (1L << (8 * tail)) - 1;
        lengths[c] = to - from;
        firstMask[c] = words[c].length == 1 ? lastMask[c] : -1L;
        firstWord[c] = words[c][0];
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
    public int length(int node) {
        return lengths[node];
    }

    /** The kind of field a node's name is, as the scan that added it tells them. */
    public int kind(int node) {
        return kinds[node];
    }

    /** The parent of a node (not the root): the name before it in its path. */
    public int parent(int node) {
        return parent[node];
    }

    /** Whether a node's name is {@code b[from, to)}. */
    public boolean named(int node, byte[] b, int from, int to) {
        return lengths[node] == to - from && same(names[node], b, from);
    }

    /** The hash of a node's name, as the scan that added it hashes names. */
    public int hash(int node) {
        return hashes[node];
    }
}
