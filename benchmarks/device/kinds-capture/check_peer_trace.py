"""Checks the peer copy of a flagtrace trace of the Java kinds workload recorded on two GPUs.

Usage: python3 check_peer_trace.py TRACE.json. Prints one line per check (ok / MISSING); exit status 1
when a check fails. What must hold (docs/vendors/cupti.md, "Peer-to-peer copies"): kinds::peer_copy's
cudaMemcpyPeer to device 1 is drawn as kineto draws a CUpti_ActivityMemcpyPtoP: a gpu_memcpy named
"Memcpy PtoP (Device -> Device)" with fromDevice 0 and toDevice 1, kineto's args in its order, 4 MiB,
on the row of the device that ran it, attributed to the op and linked to the call by an arrow.
"""
import json
import sys

trace = json.load(open(sys.argv[1]))
events = trace["traceEvents"]
failed = []


def check(what, ok):
    print(("ok      " if ok else "MISSING ") + what)
    if not ok:
        failed.append(what)


op = [e for e in events if e.get("cat") == "cpu_op" and e.get("name") == "kinds::peer_copy"]
check("the op kinds::peer_copy (%d)" % len(op), len(op) == 1)
external = op[0]["args"]["External id"] if op else None
peer = [e for e in events if e.get("cat") == "gpu_memcpy" and "fromDevice" in e.get("args", {})]
check("peer copies drawn (%d)" % len(peer), len(peer) >= 1)
for e in peer:
    a = e["args"]
    print("  " + json.dumps(e))
    keys = [k for k in a if k != "External id"]
    want = ["fromDevice", "inDevice", "toDevice", "fromContext", "inContext", "toContext", "stream", "correlation",
            "bytes", "memory bandwidth (GB/s)"]
    check("  name %r" % e["name"], e["name"] == "Memcpy PtoP (Device -> Device)")
    check("  kineto's args in its order %s" % keys, keys[:len(want)] == want)
    check("  device 0 -> device 1, 4 MiB", a["fromDevice"] == 0 and a["toDevice"] == 1 and a["bytes"] == 4 << 20)
    check("  on the row of the device that ran it (pid %s, inDevice %s)" % (e["pid"], a["inDevice"]), e["pid"] == a["inDevice"])
    check("  attributed to kinds::peer_copy (External id %s)" % a.get("External id"), a.get("External id") == external)
    calls = [c for c in events if c.get("cat") == "cuda_runtime" and c.get("args", {}).get("correlation") == a["correlation"]]
    check("  its call %s" % [c["name"] for c in calls], len(calls) == 1 and calls[0]["name"] == "cudaMemcpyPeer")
    flows = [f for f in events if f.get("cat") == "ac2g" and f.get("id") == a["correlation"]]
    check("  an arrow from the call (%s)" % sorted(f["ph"] for f in flows), sorted(f["ph"] for f in flows) == ["f", "s"])
decoded = trace.get("flagtrace", {}).get("decoded", {})
print("decoded:", json.dumps(decoded))
sys.exit(1 if failed else 0)
