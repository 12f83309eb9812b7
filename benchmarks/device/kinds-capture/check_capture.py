"""First look at a kinds_capture output: does it hold what issue 16 asked for?

Usage: python3 check_capture.py DIR NAME. Prints one line per check (ok / MISSING) and the counts;
exit status 0 always (the tar keeps the answer; a missing kind is a finding, not a failure).
"""
import collections
import json
import os
import struct
import sys

d, name = sys.argv[1], sys.argv[2]
p = lambda suffix: os.path.join(d, name + suffix)


def frames(path):
    data = open(path, "rb").read()
    assert data[:8] == b"FLTRBUF1", "bad magic"
    at, sizes = 8, []
    while at + 16 <= len(data):
        vendor, reserved, length = struct.unpack_from("<IIQ", data, at)
        sizes.append((vendor, length))
        at += 16 + length
    return sizes, at == len(data)


sizes, whole = frames(p(".fltrbuf"))
print("fltrbuf: %d frames, %d bytes of records, ends on a frame boundary: %s" % (len(sizes), sum(s for _, s in sizes), whole))
truth = [json.loads(line) for line in open(p(".truth.jsonl"))]
kinds = collections.Counter(t["kind"] for t in truth)
print("truth:", dict(kinds))
ops = [json.loads(line) for line in open(p(".ops.jsonl"))]
op_names = collections.Counter(o["name"] for o in ops if "name" in o)
print("ops:", dict(op_names))


def check(what, ok):
    print(("ok      " if ok else "MISSING ") + what)


for k in ("kernel", "memcpy", "memset", "runtime", "driver", "external_correlation", "synchronization",
          "overhead", "marker", "marker_data", "memory2", "memcpy_p2p"):
    check("kind %s (%d)" % (k, kinds.get(k, 0)), kinds.get(k, 0) > 0)
graph_kernels = [t for t in truth if t["kind"] == "kernel" and t.get("graphId")]
check("kernels with a graphId (%d, graphs %s)" % (len(graph_kernels), sorted({t["graphId"] for t in graph_kernels})),
      len(graph_kernels) >= 9)
graph_copies = [t for t in truth if t["kind"] in ("memcpy", "memset") and t.get("graphId")]
check("memcpy/memset with a graphId (%d)" % len(graph_copies), len(graph_copies) >= 6)
sync_types = collections.Counter(t["type"] for t in truth if t["kind"] == "synchronization")
check("synchronization types %s (1 event sync, 2 stream wait event, 3 stream sync, 4 context sync)" % dict(sync_types),
      set(sync_types) >= {1, 2, 3, 4})
markers = [t for t in truth if t["kind"] == "marker"]
check("marker names %s" % sorted({t["name"] for t in markers if t.get("name")}), len(markers) > 0)
check("marker domains %s" % sorted({t["domain"] for t in markers if t.get("domain")}),
      any(t.get("domain") for t in markers))
mem = collections.Counter((t["memoryOperationType"], t["memoryKind"], t["isAsync"]) for t in truth if t["kind"] == "memory2")
check("memory2 (operation, memoryKind, isAsync) %s" % dict(mem), len(mem) > 0)
overheads = collections.Counter(t["overheadKind"] for t in truth if t["kind"] == "overhead")
print("overhead kinds:", dict(overheads))
bound = {t["correlation"]: t["externalId"] for t in truth if t["kind"] == "external_correlation"}
no_id = [t for t in truth if t["kind"] == "kernel" and t["correlation"] not in bound]
print("kernels without an External id: %d (the nvtx::no_op kernel is one)" % len(no_id))
if os.path.exists(p(".meta.json")):
    print("meta:", json.dumps(json.load(open(p(".meta.json")))))
else:
    print("MISSING meta.json (the capture did not finish)")
