package org.flagos.trace.testing;

import com.lmax.disruptor.EventTranslatorOneArg;
import java.util.ArrayList;
import java.util.List;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.model.TraceRecord;
import org.flagos.trace.stages.NameStage;

/**
 * A sink that keeps a copy of every published record, for decoder tests without a ring; {@link
 * #named} also passes each through the name stage, as the ring's first stage would.
 */
public final class CollectingSink implements RecordSink {
    public final List<TraceRecord> records = new ArrayList<>();
    private final NameStage names;

    /** Records as the decoder's translators leave them: handles, no names. */
    public CollectingSink() {
        this.names = null;
    }

    private CollectingSink(NameStage names) {
        this.names = names;
    }

    /** Records named into {@code table} as the name stage names them, unnamed kernels counted into {@code stats}. */
    public static CollectingSink named(ApiNames apiNames, NameTable table, DecodeStats stats) {
        return new CollectingSink(new NameStage(apiNames, table, stats));
    }

    @Override
    public <A> void publish(EventTranslatorOneArg<TraceRecord, A> translator, A source) {
        TraceRecord slot = new TraceRecord();
        translator.translateTo(slot, records.size(), source);
        if (names != null) {
            names.onEvent(slot, records.size(), true);
        }
        records.add(slot);
    }
}
