package org.flagos.trace.vendors.cupti;

import java.nio.ByteBuffer;
import java.util.List;
import org.flagos.trace.ingest.CaptureBytes;
import org.flagos.trace.ingest.FltrbufFrames;
import org.flagos.trace.ingest.KernelNameFile;
import org.flagos.trace.model.ActivityBufferDecoder;
import org.flagos.trace.model.ActivityDecoderContract;
import org.flagos.trace.model.NameTable;
import org.flagos.trace.testing.Captures;

/** The decoder contract on the real h200-app buffer (every record kind the decoder handles). */
class CuptiDecoderContractTest extends ActivityDecoderContract {
    @Override
    protected ActivityBufferDecoder decoder() {
        return new CuptiBufferDecoder(KernelNameFile.read(Captures.names("h200-app")), new NameTable(), List.of());
    }

    @Override
    protected byte[] realBuffer() {
        FltrbufFrames frames = new FltrbufFrames(CaptureBytes.load(Captures.capture("h200-app")), "h200-app");
        frames.next();
        ByteBuffer payload = frames.payload();
        byte[] bytes = new byte[payload.remaining()];
        payload.get(bytes);
        return bytes;
    }

    @Override
    protected int unknownKind() {
        return 0x4242;
    }
}
