package org.flagos.trace.testing;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;

/** A sink that keeps a copy of every published record, for decoder tests without a ring. */
public final class CollectingSink implements RecordSink {
    public final List<TraceRecord> records = new ArrayList<>();

    @Override
    public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
        TraceRecord slot = new TraceRecord();
        translator.translateTo(slot, records.size(), source);
        records.add(slot);
    }
}
