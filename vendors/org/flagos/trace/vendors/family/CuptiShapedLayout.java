package org.flagos.trace.vendors.family;

/**
 * The activity-kind numbers of a CUPTI-shaped vendor and which record version each kind carries:
 * what a {@link CuptiShapedDecoder} needs to walk that vendor's buffers. The record versions this
 * package reads are CUPTI's own older ones ({@code Kernel6}, {@code Memcpy4}, {@code Memset3},
 * {@code API}, {@code ExternalCorrelation}), laid out as the public CUPTI headers define them; a
 * vendor whose headers are not public (MUPTI, TOPSPTI) is assumed to follow them.
 *
 * @param vendor short vendor name, for problems reported
 * @param kernelKinds kinds whose record is a {@code Kernel6} (KERNEL, CONCURRENT_KERNEL)
 * @param memcpyKind the kind of {@code Memcpy4} records
 * @param memsetKind the kind of {@code Memset3} records
 * @param runtimeKind the kind of runtime {@code API} records
 * @param driverKind the kind of driver {@code API} records, or -1
 * @param externalCorrelationKind the kind of {@code ExternalCorrelation} records
 * @param customExternalKind the external-correlation kind op ids are pushed as (CUSTOM0)
 */
public record CuptiShapedLayout(String vendor, int[] kernelKinds, int memcpyKind, int memsetKind, int runtimeKind,
                                int driverKind, int externalCorrelationKind, int customExternalKind) {
    /** The byte size of a record of {@code kind}, or -1 when the kind is not one of this layout's. */
    public int recordSize(int kind) {
        for (int k : kernelKinds) {
            if (k == kind) {
                return Kernel6Record.SIZE;
            }
        }
        if (kind == memcpyKind) {
            return Memcpy4Record.SIZE;
        }
        if (kind == memsetKind) {
            return Memset3Record.SIZE;
        }
        if (kind == runtimeKind || (driverKind >= 0 && kind == driverKind)) {
            return ApiRecord.SIZE;
        }
        if (kind == externalCorrelationKind) {
            return ExternalCorrelationRecord.SIZE;
        }
        return -1;
    }

    boolean isKernel(int kind) {
        for (int k : kernelKinds) {
            if (k == kind) {
                return true;
            }
        }
        return false;
    }
}
