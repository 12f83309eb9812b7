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
 * stream by, in bounded memory: events become fixed-width records in two external sorts
 * ({@link RecordSorter}): host events by (thread, start, longer first) and device events by External
 * id; only names, rows (pid/tid), each row's sums and the overhead events are held in memory, each
 * with a bound. The passes, after the last event:
 * <ol>
 * <li>device events once to find the device's idle stretches ({@link DeviceStreams}), then by External
 *     id: each id's device time ({@link DeviceTimeIndex}), the device rows' results and the streams' busy time;</li>
 * <li>when the trace has overhead events, the host events once to find the op each belongs to
 *     ({@link OverheadEvents});</li>
 * <li>the host events nested and measured per thread by the one rule ({@link HostNesting}, {@code KeyAveragesRule});</li>
 * </ol>
 * Each pass's results (one a row-making event) are summed per row (name and device type) as they come
 * ({@link RowSums}). torch sums a row's results in time order (start, longer first, then trace order): a
 * row's sums depend only on the order of its own results, so a row whose results all come in that order
 * is summed as they come. A row one of whose results comes before one of its earlier ones (a nested op
 * of its own name closes first; a name on two threads; device work whose External ids are not in time
 * order) is marked, and once the passes are done the passes that make such rows are run again, keeping
 * only the marked rows' results, in a third external sort by (start, longer first, trace order), and
 * those rows are summed again in that order. The rows are listed in order of each one's first result.
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
    private long seq;
    private long deviceLo = Long.MAX_VALUE;
    private long deviceHi = Long.MIN_VALUE;
    /** The names of the last two events (the same strings) and their ids. */
    private String lastName;
    private int lastNameId;
    private String otherName;
    private int otherNameId;
    private String lastPid;
    private String lastTid;
    private int lastRow;
    /** The row before the last: a trace's device work and the runtime calls that launch it take turns. */
    private String otherPid;
    private String otherTid;
    private int otherRow;

    private final int bufferLongs;
    private final int deviceIdsInMemory;
    /** Tests: every row summed again through the sort of its results, as if each were marked. */
    boolean resumEveryRow;
    /** Rows the last {@link #build} summed again (whose results came out of time order). */
    int markedRows;

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
        int nameId;
        if (eventName == lastName && eventName != null) { // the same string as the event before's, or the one's before it (runtime calls and kernels take turns)
            nameId = lastNameId;
        } else if (eventName == otherName && eventName != null) {
            nameId = otherNameId;
            otherName = lastName;
            otherNameId = lastNameId;
            lastName = eventName;
            lastNameId = nameId;
        } else {
            nameId = names.id(eventName);
            if (nameId < 0) {
                throw tooManyNames();
            }
            otherName = lastName;
            otherNameId = lastNameId;
            lastName = eventName;
            lastNameId = nameId;
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
        RowSums sums = new RowSums(Math.max(1, names.size() * 2));
        try (DeviceTimeIndex index = new DeviceTimeIndex(spillDir, spilled, deviceIdsInMemory)) {
            streamsOut[0] = devicePass(origin, index, sums);
            int[] overheadOrder = new int[0];
            if (overhead.size > 0) {
                overhead.attach(host.sorted());
                overheadOrder = overhead.order(true);
            }
            new HostNesting(origin, index, sums).run(host.sorted(), overhead, overheadOrder);
            if (resumEveryRow) {
                sums.markAll();
            }
            markedRows = sums.marked;
            if (sums.marked > 0) {
                resum(origin, index, sums, overheadOrder);
            }
        }
        host.close();
        device.close();
        return new KeyAverages(sums.rows(names), cuda);
    }

    private DeviceStreams devicePass(long origin, DeviceTimeIndex index, RowSums sums) throws IOException {
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
            double elapsed = deviceResult(r, origin);
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
            streams.add((int) r[5], r[2], r[3]);
            sums.add(record);
        }
        if (currentId != NO_LINK) {
            index.append(currentId, sum);
        }
        index.finish();
        return streams.build(rows);
    }

    /** The result of device record {@code r} into {@link #record}; gives its time (microseconds, torch's arithmetic). */
    private double deviceResult(long[] r, long origin) {
        long start = r[2];
        long end = r[2] + r[3];
        double elapsed = (end - origin) / 1000.0 - (start - origin) / 1000.0;
        record[0] = start;
        record[1] = -end;
        record[2] = r[1];
        record[3] = hostRowKey((int) r[4]) | 1;
        record[4] = Double.doubleToRawLongBits(0.0);
        record[5] = Double.doubleToRawLongBits(0.0);
        record[6] = Double.doubleToRawLongBits(elapsed);
        record[7] = Double.doubleToRawLongBits(elapsed);
        return elapsed;
    }

    /**
     * The marked rows summed again in time order: the passes that make them run again (the device records, the host
     * nesting), their results kept in an external sort by (start, longer first, trace order), then summed.
     */
    private void resum(long origin, DeviceTimeIndex index, RowSums sums, int[] overheadOrder) throws IOException {
        try (RecordSorter results = new RecordSorter(RESULT_WIDTH, 3, bufferLongs, spillDir, spilled)) {
            RecordSink marked = r -> {
                if (sums.isMarked((int) r[3])) {
                    results.add(r);
                }
            };
            if (sums.markedDevice > 0) {
                long[] r = new long[DEVICE_WIDTH];
                for (RecordSorter.Cursor cursor = device.sorted(); cursor.next(r); ) {
                    deviceResult(r, origin);
                    marked.add(record);
                }
            }
            if (sums.marked > sums.markedDevice) {
                new HostNesting(origin, index, marked).run(host.sorted(), overhead, overheadOrder);
            }
            sums.resum(results.sorted());
        }
    }

    /**
     * Each row's count and sums (self CPU, CPU total, self device, device total), by row key (name and device type),
     * summed as the results come while each row's come in time order; a row whose result comes before its last is
     * marked, its sums to be taken again ({@link #resum}). Also each row's first result (the least key), which orders
     * the rows.
     */
    static final class RowSums implements RecordSink {
        private final long[] count;
        private final double[] sums;
        /** Per row, the key (start, -end, seq) of its last result summed, and of its first (least) result. */
        private final long[] last;
        private final long[] first;
        private final boolean[] isMarked;
        int marked;
        int markedDevice;

        RowSums(int keys) {
            count = new long[keys];
            sums = new double[keys * 4];
            last = new long[keys * 3];
            first = new long[keys * 3];
            isMarked = new boolean[keys];
        }

        /** One result {@code [start, -end, seq, rowKey, selfCpu, cpuTotal, selfDevice, deviceTotal]}. */
        @Override
        public void add(long[] r) {
            int k = (int) r[3];
            if (count[k]++ == 0) {
                System.arraycopy(r, 0, first, k * 3, 3);
            } else if (isMarked[k] || !after(r, last, k)) {
                if (!isMarked[k]) {
                    isMarked[k] = true;
                    marked++;
                    markedDevice += k & 1;
                }
                if (after(first, k, r)) {
                    System.arraycopy(r, 0, first, k * 3, 3);
                }
                return;
            }
            System.arraycopy(r, 0, last, k * 3, 3);
            plus(k, r);
        }

        private void plus(int k, long[] r) {
            int at = k * 4;
            sums[at] += Double.longBitsToDouble(r[4]);
            sums[at + 1] += Double.longBitsToDouble(r[5]);
            sums[at + 2] += Double.longBitsToDouble(r[6]);
            sums[at + 3] += Double.longBitsToDouble(r[7]);
        }

        /** Whether result {@code r}'s key is above row {@code k}'s key in {@code keys}. */
        private static boolean after(long[] r, long[] keys, int k) {
            int at = k * 3;
            for (int i = 0; i < 3; i++) {
                int c = Long.compare(r[i], keys[at + i]);
                if (c != 0) {
                    return c > 0;
                }
            }
            return false;
        }

        /** Whether row {@code k}'s key in {@code keys} is above result {@code r}'s. */
        private static boolean after(long[] keys, int k, long[] r) {
            int at = k * 3;
            for (int i = 0; i < 3; i++) {
                int c = Long.compare(keys[at + i], r[i]);
                if (c != 0) {
                    return c > 0;
                }
            }
            return false;
        }

        /** Marks every row that has a result (tests: every row through the sorted path). */
        void markAll() {
            for (int k = 0; k < count.length; k++) {
                if (count[k] > 0 && !isMarked[k]) {
                    isMarked[k] = true;
                    marked++;
                    markedDevice += k & 1;
                }
            }
        }

        boolean isMarked(int key) {
            return isMarked[key];
        }

        /** The marked rows' sums taken again from {@code results}: their results (no others), in time order. */
        void resum(RecordSorter.Cursor results) throws IOException {
            for (int k = 0; k < isMarked.length; k++) {
                if (isMarked[k]) {
                    Arrays.fill(sums, k * 4, k * 4 + 4, 0.0);
                }
            }
            long[] r = new long[RESULT_WIDTH];
            while (results.next(r)) {
                plus((int) r[3], r);
            }
        }

        /** The rows, in order of each one's first result. */
        List<KeyAveragesRow> rows(StringIds names) {
            List<Integer> keys = new ArrayList<>();
            for (int k = 0; k < count.length; k++) {
                if (count[k] > 0) {
                    keys.add(k);
                }
            }
            keys.sort((a, b) -> {
                for (int i = 0; i < 3; i++) {
                    int c = Long.compare(first[a * 3 + i], first[b * 3 + i]);
                    if (c != 0) {
                        return c;
                    }
                }
                return 0;
            });
            List<KeyAveragesRow> out = new ArrayList<>(keys.size());
            for (int k : keys) {
                int at = k * 4;
                out.add(new KeyAveragesRow(names.get(k >>> 1), (k & 1) == 1, count[k], sums[at], sums[at + 1], sums[at + 2], sums[at + 3]));
            }
            return out;
        }
    }

    @Override
    public void close() throws IOException {
        host.close();
        device.close();
    }
}
