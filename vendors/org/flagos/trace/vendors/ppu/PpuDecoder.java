package org.flagos.trace.vendors.ppu;

import java.nio.ByteBuffer;
import org.flagos.trace.model.ApiNames;
import org.flagos.trace.model.DecodeStats;
import org.flagos.trace.model.DeviceClockMapping;
import org.flagos.trace.model.RecordSink;
import org.flagos.trace.vendors.cupti.CuptiBufferDecoder;
import org.flagos.trace.vendors.family.ClockedDecoder;

/**
 * PPU's buffers, which are CUPTI's (PPU's libcupti is CUPTI-compatible): CUPTI's decoder, walking
 * each buffer by its valid size (PPU writes a correlation record and a driver record per runtime
 * call, so a buffer holds many small records and no record count can bound the walk), with every
 * time mapped from PPU's device clock to epoch ns and implausible records dropped and counted.
 */
final class PpuDecoder implements ClockedDecoder {
    private final CuptiBufferDecoder records;

    PpuDecoder(CuptiBufferDecoder records) {
        this.records = records;
    }

    @Override
    public void clock(DeviceClockMapping mapping, long plausibleFromNs, long plausibleToNs) {
        records.clock(mapping, plausibleFromNs, plausibleToNs);
    }

    @Override
    public void decode(ByteBuffer buffer, RecordSink sink, DecodeStats stats) {
        records.decode(buffer, sink, stats);
    }

    @Override
    public ApiNames apiNames() {
        return records.apiNames();
    }
}
