#!/usr/bin/env python3
"""Reads the trace `flagtrace run` wrote for nvtx_forms.cu: ops per name, and for each op name the kernels whose
External id is that op's. Prints one JSON line. Usage: check.py TRACE.json"""
import collections, json, sys

events = json.load(open(sys.argv[1]))["traceEvents"]
ops, op_of_id, kernels_of = collections.Counter(), {}, collections.defaultdict(collections.Counter)
for e in events:
    if e.get("ph") == "X" and e.get("cat") == "cpu_op":
        ops[e["name"]] += 1
        op_of_id[e.get("args", {}).get("External id")] = e["name"]
for e in events:
    if e.get("ph") == "X" and e.get("cat") == "kernel":
        owner = op_of_id.get(e.get("args", {}).get("External id"), "(none)")
        kernels_of[owner][e["name"].split("(")[0]] += 1
trace = json.load(open(sys.argv[1]))
print(json.dumps({"ops": dict(ops), "kernels_by_op": {k: dict(v) for k, v in kernels_of.items()},
                  "ops_dropped": trace.get("flagtrace_run_ops_dropped")}, ensure_ascii=False))
