"""First look at a kinds_capture output: does it hold what issue 16 asked for?

Usage: python3 check_capture.py DIR NAME. Prints one line per check (ok / MISSING) and the counts;
exit status 0 always (the tar keeps the answer; a missing kind is a finding, not a failure).
With two GPUs (meta.json's deviceCount), the MEMCPY2 record of kinds::peer_copy is checked: its fields
(PTOP, device 0 to 1, 4 MiB), the header's CUpti_ActivityMemcpyPtoP4 offsets against flagtrace's, and
every MEMCPY2 record in the buffers read at flagtrace's offsets against CUPTI's own decoding (truth.jsonl).
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


meta = json.load(open(p(".meta.json"))) if os.path.exists(p(".meta.json")) else {}
gpus = meta.get("deviceCount", 1)
for k in ("kernel", "memcpy", "memset", "runtime", "driver", "external_correlation", "synchronization",
          "overhead", "marker", "marker_data", "memory2") + (("memcpy_p2p",) if gpus > 1 else ()):
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

# MEMCPY2 (CUpti_ActivityMemcpyPtoP4): flagtrace's CuptiPeerCopyDecoder reads these offsets (measured on CUDA 13.0).
PTOP_OFFSETS = {"kind": 0, "copyKind": 4, "srcKind": 5, "dstKind": 6, "flags": 7, "bytes": 8, "start": 16, "end": 24,
                "deviceId": 32, "contextId": 36, "streamId": 40, "srcDeviceId": 44, "srcContextId": 48,
                "dstDeviceId": 52, "dstContextId": 56, "correlationId": 60, "graphNodeId": 72, "graphId": 80}
KIND_STRUCT = {1: "CUpti_ActivityMemcpy6", 2: "CUpti_ActivityMemset4", 3: "CUpti_ActivityKernel10",
               4: "CUpti_ActivityAPI", 5: "CUpti_ActivityAPI", 10: "CUpti_ActivityKernel10", 12: "CUpti_ActivityMarker2",
               13: "CUpti_ActivityMarkerData2", 17: "CUpti_ActivityOverhead3", 22: "CUpti_ActivityMemcpyPtoP4",
               25: "CUpti_ActivityUnifiedMemoryCounter3", 38: "CUpti_ActivitySynchronization2",
               39: "CUpti_ActivityExternalCorrelation", 49: "CUpti_ActivityMemory4"}
p2p = [t for t in truth if t["kind"] == "memcpy_p2p"]
if gpus < 2:
    print("memcpy_p2p: %d GPU, none expected (%d)" % (gpus, len(p2p)))
else:
    layouts = json.load(open(p(".layouts.json"))) if os.path.exists(p(".layouts.json")) else {}
    fields = {f["field"]: f["offset"] for f in layouts.get("CUpti_ActivityMemcpyPtoP4", {}).get("fields", [])}
    moved = {k: (v, fields.get(k)) for k, v in PTOP_OFFSETS.items() if fields.get(k) != v}
    check("CUpti_ActivityMemcpyPtoP4 sizeof 96 (%s) and flagtrace's offsets (differing: %s)"
          % (layouts.get("CUpti_ActivityMemcpyPtoP4", {}).get("sizeof"), moved),
          layouts.get("CUpti_ActivityMemcpyPtoP4", {}).get("sizeof") == 96 and not moved)
    peer_op = [o["external_id"] for o in ops if o.get("name") == "kinds::peer_copy"]
    calls = {t["correlation"] for t in truth if t["kind"] == "runtime" and t["name"].startswith("cudaMemcpyPeer")
             and bound.get(t["correlation"]) in peer_op}
    ours = [t for t in p2p if t["correlation"] in calls]
    check("memcpy_p2p of kinds::peer_copy's cudaMemcpyPeer (%d of %d, calls %s)" % (len(ours), len(p2p), sorted(calls)),
          len(ours) >= 1)
    for t in ours:
        print("  memcpy_p2p:", json.dumps(t))
        check("  copyKind 10 (PTOP) %s, device -> device (srcKind %s dstKind %s)" % (t["copyKind"], t["srcKind"], t["dstKind"]),
              t["copyKind"] == 10 and t["srcKind"] == 3 and t["dstKind"] == 3)
        check("  from device 0 to device 1 (%s -> %s), run by device %s" % (t["srcDeviceId"], t["dstDeviceId"], t["device"]),
              t["srcDeviceId"] == 0 and t["dstDeviceId"] == 1 and t["device"] in (0, 1))
        check("  4 MiB (%s bytes), start < end, two contexts (%s, %s; its own %s)"
              % (t["bytes"], t["srcContextId"], t["dstContextId"], t["context"]),
              t["bytes"] == 4 << 20 and t["start"] < t["end"] and t["srcContextId"] != t["dstContextId"])
    # The buffers walked with the header's sizes; every MEMCPY2 record read at flagtrace's offsets equals its line.
    data, at, seen, wrong = open(p(".fltrbuf"), "rb").read(), 8, 0, []
    while at + 16 <= len(data):
        _, _, length = struct.unpack_from("<IIQ", data, at)
        pos, end = at + 16, at + 16 + length
        while pos + 4 <= end:
            kind = struct.unpack_from("<I", data, pos)[0]
            size = layouts.get(KIND_STRUCT.get(kind, ""), {}).get("sizeof")
            if not size:
                wrong.append("kind %d of unknown size at %d: walk stopped" % (kind, pos))
                break
            if kind == 22 and seen < len(p2p):
                t, o = p2p[seen], PTOP_OFFSETS
                u8 = lambda f: data[pos + o[f]]
                u32 = lambda f: struct.unpack_from("<I", data, pos + o[f])[0]
                u64 = lambda f: struct.unpack_from("<Q", data, pos + o[f])[0]
                got = {"copyKind": u8("copyKind"), "srcKind": u8("srcKind"), "dstKind": u8("dstKind"), "bytes": u64("bytes"),
                       "start": u64("start"), "end": u64("end"), "device": u32("deviceId"), "context": u32("contextId"),
                       "stream": u32("streamId"), "srcDeviceId": u32("srcDeviceId"), "srcContextId": u32("srcContextId"),
                       "dstDeviceId": u32("dstDeviceId"), "dstContextId": u32("dstContextId"),
                       "correlation": u32("correlationId"), "graphNodeId": u64("graphNodeId"), "graphId": u32("graphId")}
                wrong += ["record %d %s: truth %s, at flagtrace's offset %s" % (seen, k, t[k], v)
                          for k, v in got.items() if t.get(k) != v]
                seen += 1
            pos += size
        at = end
    check("every MEMCPY2 record in the buffers read at flagtrace's offsets equals CUPTI's decoding (%d of %d; %s)"
          % (seen, len(p2p), wrong[:5]), seen == len(p2p) and not wrong)
    print("next: bundle the capture under src/test/resources/captures/NAME/ and add NAME/NAME to "
          "PeerCopyTruthTest.CAPTURES (the Java decoder against the same truth)")
if os.path.exists(p(".meta.json")):
    print("meta:", json.dumps(json.load(open(p(".meta.json")))))
else:
    print("MISSING meta.json (the capture did not finish)")
