package org.flagos.trace.report;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.flagos.trace.model.StringIds;

/**
 * Computes {@link KeyAverages} and {@link DeviceStreams} from a trace's complete events as they
 * stream by, in bounded memory: events become fixed-width records in three external sorts
 * ({@link RecordSorter}): host events by (thread, start, longer first), device events by External
 * id, and every row-making event's result by (start, longer first); only names, rows (pid/tid)
 * and the overhead events are held in memory, each with a bound. The passes, after the last event:
 * <ol>
 * <li>device events once to find the device's idle stretches ({@link DeviceStreams}), then by External
 *     id: each id's device time ({@link DeviceTimeIndex}), the device rows' results and the streams' busy time;</li>
 * <li>when the trace has overhead events, the host events once to find the op each belongs to
 *     ({@link OverheadEvents});</li>
 * <li>the host events nested and measured per thread by the one rule ({@link HostNesting}, {@code KeyAveragesRule});</li>
 * <li>the results in time order, summed per row (name and device type) as torch sums them.</li>
 * </ol>
 */
final class KeyAveragesBuilder implements Closeable {
    /** No External id. */
    static final long NO_LINK = Long.MIN_VALUE;
    /** Host record: row, start, -end, seq, name << 8 | class, link. */
    static final int HOST_WIDTH = 6;
    /** Device record: External id, seq, start, dur, name, row. */
    static final int DEVICE_WIDTH = 6;
    /** Result record: start, -end, seq, row key, self CPU, CPU total, self device, device total. */
    static final int RESULT_WIDTH = 8;
    /** Open (nested) events of one thread at most (each costs about 200 bytes while open). */
    static final int MAX_DEPTH = 1 << 16;
    /** Distinct event names at most, and their characters in all (together about 100 MiB at worst). */
    static final int MAX_NAMES = 1 << 19;
    static final long MAX_NAME_CHARS = 32L << 20;
    /** Distinct rows (pid, tid) at most. */
    static final int MAX_ROWS = 1 << 16;
    /** Longs each sort holds in memory before it writes a run (16 MiB). */
    static final int SORT_BUFFER_LONGS = 2 << 20;

    private final Path spillDir;
    private final SpillCounter spilled = new SpillCounter();
    private final StringIds names = new StringIds(MAX_NAMES, MAX_NAME_CHARS);
    private final StringIds rows = new StringIds(MAX_ROWS, 16L << 20);
    private final RecordSorter host;
    private final RecordSorter device;
    private final OverheadEvents overhead = new OverheadEvents();
    private final long[] record = new long[RESULT_WIDTH];
    private RecordSorter results;
    private long seq;
    private long deviceLo = Long.MAX_VALUE;
    private long deviceHi = Long.MIN_VALUE;
    private String lastPid;
    private String lastTid;
    private int lastRow;
    /** The row before the last: a trace's device work and the runtime calls that launch it take turns. */
    private String otherPid;
    private String otherTid;
    private int otherRow;

    private final int bufferLongs;
    private final int deviceIdsInMemory;

    KeyAveragesBuilder(Path spillDir) {
        this(spillDir, SORT_BUFFER_LONGS, DeviceTimeIndex.IN_MEMORY);
    }

    /** A builder with smaller buffers, so that tests can make small traces spill. */
    KeyAveragesBuilder(Path spillDir, int bufferLongs, int deviceIdsInMemory) {
        this.spillDir = spillDir;
        this.bufferLongs = bufferLongs;
        this.deviceIdsInMemory = deviceIdsInMemory;
        this.host = new RecordSorter(HOST_WIDTH, 4, bufferLongs, spillDir, spilled);
        this.device = new RecordSorter(DEVICE_WIDTH, 2, bufferLongs, spillDir, spilled);
    }

    static long hostRowKey(int nameId) {
        return (long) nameId << 1;
    }

    /** Past {@link #MAX_NAMES} names or {@link #MAX_NAME_CHARS} characters of them: the same words for every input format. */
    static TraceLimitException tooManyNames() {
        return new TraceLimitException("holds more than " + MAX_NAMES + " distinct event names (or " + MAX_NAME_CHARS
                + " characters of them); the summary keeps one row a name");
    }

    static TraceLimitException tooDeep() {
        return new TraceLimitException("nests events more than " + MAX_DEPTH + " deep on one thread; summarise a shorter window of it");
    }

    /** Events added. */
    long events() {
        return seq;
    }

    /** Bytes written to temporary files so far. */
    long spilledBytes() {
        return spilled.bytes();
    }

    /** Adds one complete event of class {@code c} (not {@link EventClass#OTHER}). */
    void add(EventClass c, String eventName, String pid, String tid, long startNs, long durNs, long externalId) throws IOException {
        int nameId = names.id(eventName);
        if (nameId < 0) {
            throw tooManyNames();
        }
        int row = lastRow;
        if (!pid.equals(lastPid) || !tid.equals(lastTid)) { // traces run in stretches of one row, or of two taking turns
            if (pid.equals(otherPid) && tid.equals(otherTid)) {
                row = otherRow;
            } else {
                row = rows.id(pid + '\u0000' + tid);
                if (row < 0) {
                    throw new TraceLimitException("holds events on more than " + MAX_ROWS + " threads and streams");
                }
            }
            otherPid = lastPid;
            otherTid = lastTid;
            otherRow = lastRow;
            lastPid = pid;
            lastTid = tid;
            lastRow = row;
        }
        long s = seq++;
        long end = startNs + durNs;
        switch (c) {
            case DEVICE:
                deviceLo = Math.min(deviceLo, startNs);
                deviceHi = Math.max(deviceHi, end);
                record[0] = externalId;
                record[1] = s;
                record[2] = startNs;
                record[3] = durNs;
                record[4] = nameId;
                record[5] = row;
                device.add(record);
                break;
            case OVERHEAD:
                if (!overhead.add(startNs, end, s, nameId, row)) {
                    throw new TraceLimitException("holds more than " + OverheadEvents.MAX + " profiler overhead events");
                }
                break;
            default:
                record[0] = row;
                record[1] = startNs;
                record[2] = -end;
                record[3] = s;
                record[4] = (long) nameId << 8 | c.ordinal();
                record[5] = c == EventClass.HOST_OP ? externalId : NO_LINK;
                host.add(record);
        }
    }

    /** The table and the streams; {@code origin} is where the profile starts (ns). */
    KeyAverages build(long origin, boolean cuda, DeviceStreams[] streamsOut) throws IOException {
        results = new RecordSorter(RESULT_WIDTH, 3, bufferLongs, spillDir, spilled);
        try (DeviceTimeIndex index = new DeviceTimeIndex(spillDir, spilled, deviceIdsInMemory)) {
            streamsOut[0] = devicePass(origin, index);
            int[] overheadOrder = new int[0];
            if (overhead.size > 0) {
                overhead.attach(host.sorted());
                overheadOrder = overhead.order(true);
            }
            new HostNesting(origin, index, results).run(host.sorted(), overhead, overheadOrder);
        }
        host.close();
        return new KeyAverages(sum(), cuda);
    }

    private DeviceStreams devicePass(long origin, DeviceTimeIndex index) throws IOException {
        DeviceStreams.Builder streams = new DeviceStreams.Builder(deviceLo, deviceHi);
        long[] r = new long[DEVICE_WIDTH];
        for (RecordSorter.Cursor scan = device.sorted(); scan.next(r); ) { // where the device was idle, before the strips are summed
            streams.scan(r[2], r[3]);
        }
        streams.cutIdle();
        RecordSorter.Cursor cursor = device.sorted();
        long currentId = NO_LINK;
        double sum = 0;
        while (cursor.next(r)) {
            long start = r[2];
            long end = r[2] + r[3];
            double elapsed = (end - origin) / 1000.0 - (start - origin) / 1000.0;
            if (r[0] != NO_LINK) {
                if (r[0] != currentId) {
                    if (currentId != NO_LINK) {
                        index.append(currentId, sum);
                    }
                    currentId = r[0];
                    sum = 0;
                }
                sum += elapsed;
            }
            streams.add((int) r[5], start, r[3]);
            double bits = elapsed;
            record[0] = start;
            record[1] = -end;
            record[2] = r[1];
            record[3] = hostRowKey((int) r[4]) | 1;
            record[4] = Double.doubleToRawLongBits(0.0);
            record[5] = Double.doubleToRawLongBits(0.0);
            record[6] = Double.doubleToRawLongBits(bits);
            record[7] = Double.doubleToRawLongBits(bits);
            results.add(record);
        }
        if (currentId != NO_LINK) {
            index.append(currentId, sum);
        }
        index.finish();
        device.close();
        return streams.build(rows);
    }

    /** The rows in order of each one's first event, sums taken in time order. */
    private List<KeyAveragesRow> sum() throws IOException {
        int[] rowOfKey = new int[Math.max(1, names.size() * 2)];
        Arrays.fill(rowOfKey, -1);
        List<double[]> acc = new ArrayList<>();
        List<long[]> counts = new ArrayList<>();
        RecordSorter.Cursor cursor = results.sorted();
        long[] r = new long[RESULT_WIDTH];
        while (cursor.next(r)) {
            int key = (int) r[3];
            if (rowOfKey[key] < 0) {
                rowOfKey[key] = acc.size();
                acc.add(new double[4]);
                counts.add(new long[] {0, key});
            }
            double[] a = acc.get(rowOfKey[key]);
            counts.get(rowOfKey[key])[0]++;
            a[0] += Double.longBitsToDouble(r[4]);
            a[1] += Double.longBitsToDouble(r[5]);
            a[2] += Double.longBitsToDouble(r[6]);
            a[3] += Double.longBitsToDouble(r[7]);
        }
        results.close();
        List<KeyAveragesRow> out = new ArrayList<>(acc.size());
        for (int i = 0; i < acc.size(); i++) {
            double[] a = acc.get(i);
            long[] c = counts.get(i);
            out.add(new KeyAveragesRow(names.get((int) (c[1] >>> 1)), (c[1] & 1) == 1, c[0], a[0], a[1], a[2], a[3]));
        }
        return out;
    }

    @Override
    public void close() throws IOException {
        host.close();
        device.close();
        if (results != null) {
            results.close();
        }
    }
}
