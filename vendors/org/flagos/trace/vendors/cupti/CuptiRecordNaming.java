package org.flagos.trace.vendors.cupti;

import org.flagos.trace.model.KernelNames;
import org.flagos.trace.model.RecordNaming;
import org.flagos.trace.model.TraceRecord;

/**
 * CUPTI's side of naming, for the name stage: kernel name pointers through the capture's names
 * (its name table, or live memory), and kineto's occupancy figures from the device's properties.
 */
final class CuptiRecordNaming implements RecordNaming {
    private final KernelNames kernelNames;
    private final CuptiKernelMetrics metrics;

    CuptiRecordNaming(KernelNames kernelNames, CuptiKernelMetrics metrics) {
        this.kernelNames = kernelNames;
        this.metrics = metrics;
    }

    @Override
    public String kernelName(long handle) {
        return kernelNames.lookup(handle);
    }

    /** NVTX messages and domain names: the same table (live: the C string CUPTI points to, saved into the dump's table). */
    @Override
    public String markerName(long handle) {
        return kernelNames.lookup(handle);
    }

    @Override
    public void kernelFigures(TraceRecord kernel) {
        metrics.fill(kernel);
    }
}
