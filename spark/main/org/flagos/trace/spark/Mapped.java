package org.flagos.trace.spark;

import java.util.Iterator;
import java.util.function.Function;

/**
 * An iterator that gives {@code each} of another's elements as it is asked for one: how a partition's rows reach a Java
 * pass ({@code OpNesting}, {@code CriticalPathSweep}) and its results go back as rows, one at a time, never gathered.
 */
final class Mapped<A, B> implements Iterator<B> {
    private final Iterator<A> from;
    private final Function<? super A, ? extends B> each;

    private Mapped(Iterator<A> from, Function<? super A, ? extends B> each) {
        this.from = from;
        this.each = each;
    }

    /** {@code from}'s elements, each through {@code each}. */
    static <A, B> Iterator<B> of(Iterator<A> from, Function<? super A, ? extends B> each) {
        return new Mapped<>(from, each);
    }

    @Override
    public boolean hasNext() {
        return from.hasNext();
    }

    @Override
    public B next() {
        return each.apply(from.next());
    }
}
