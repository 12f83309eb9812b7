package org.flagos.trace.model;

import com.lmax.disruptor.EventTranslatorOneArg;

/**
 * Where producers put records: the ring in production, a plain collector in decoder tests.
 * Producers pass a {@code static final} translator and the flyweight it reads from, so that
 * publishing captures nothing and allocates nothing.
 */
public interface RecordSink {
    <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source);
}
