#!/usr/bin/env python3
"""Rank traces for timing `flagtrace merge` (issue 32 item 3): one replayed flagtrace trace made into N ranks of
about EVENTS events each, as separate hosts would write them.

    benchmarks/merge-ranks.py TRACE.json OUT_DIR [RANKS=8] [REPEATS=6]

Each rank's file is TRACE's events repeated REPEATS times (the same bytes: merge copies events, it does not
interpret their order), with torch's distributedInfo, a flagtrace_process block naming host hR and a boot of its
own, and a start clock anchor putting its trace clock R x 1.000000007 s off the real-time clock (bound 500 ns):
eight hosts, so merge aligns them by the real-time clock, as a job of 8 hosts would be. Streams TRACE; writes
OUT_DIR/rR.json.
"""
import os
import sys


def main():
    trace, out = sys.argv[1], sys.argv[2]
    ranks = int(sys.argv[3]) if len(sys.argv) > 3 else 8
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 6
    data = open(trace, "rb").read()
    start = data.index(b'"traceEvents":[') + len(b'"traceEvents":[')
    end = data.rindex(b'],"flagtrace":{')
    head, events, tail = data[:start], data[start:end], data[end:]
    if not head.startswith(b"{") or not events:
        sys.exit("not a flagtrace replay with events and a flagtrace block: " + trace)
    os.makedirs(out, exist_ok=True)
    real = 1_795_982_694_000_000_000
    for r in range(ranks):
        who = ('{"distributedInfo":{"rank":%d,"world_size":%d},"flagtrace_process":{"rank":%d,"world_size":%d,'
               '"local_rank":0,"local_world_size":1,"host":"h%d","pid":%d,"boot_id":"boot-%d"},' % (r, ranks, r, ranks, r, 4000 + r, r))
        anchor = ('"flagtrace":{"clock_anchors":[{"at":"start","realtime_ns":%d,"monotonic_ns":%d,"trace_ns":%d,"bound_ns":500}],'
                  % (real, 1000 + r, real + r * 1_000_000_007))
        with open(os.path.join(out, "r%d.json" % r), "wb") as f:
            f.write(who.encode() + head[1:])
            for k in range(repeats):
                if k:
                    f.write(b",")
                f.write(events)
            f.write(tail.replace(b'],"flagtrace":{', b"]," + anchor.encode(), 1))


if __name__ == "__main__":
    main()
