#!/usr/bin/env python3
"""Counts, in one trace written by flagtrace (or torch), how kernels meet their launches: kernels in
all, kernels carrying an External id, kernels whose correlation id is a runtime call's or a driver
call's, and the driver calls by name. Prints one JSON line. Usage: launches.py TRACE.json[.gz] LABEL"""
import collections, gzip, json, sys

path, label = sys.argv[1], sys.argv[2]
with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
    events = json.load(f)["traceEvents"]
runtime, driver, kernels = set(), collections.Counter(), []
driver_ids = set()
for e in events:
    cat = e.get("cat")
    corr = (e.get("args") or {}).get("correlation")
    if cat == "cuda_runtime":
        runtime.add(corr)
    elif cat == "cuda_driver":
        driver[e.get("name")] += 1
        driver_ids.add(corr)
    elif cat == "kernel":
        kernels.append(e)
def args(e): return e.get("args") or {}
print(json.dumps({
    "label": label,
    "kernels": len(kernels),
    "with_external_id": sum("External id" in args(k) for k in kernels),
    "launched_by_runtime": sum(args(k).get("correlation") in runtime for k in kernels),
    "launched_by_driver": sum(args(k).get("correlation") in driver_ids for k in kernels),
    "without_launch": sum(args(k).get("correlation") not in runtime | driver_ids for k in kernels),
    "gemm_kernels": sum("gemm" in k.get("name", "").lower() for k in kernels),
    "gemm_with_external_id": sum("gemm" in k.get("name", "").lower() and "External id" in args(k) for k in kernels),
    "driver_calls": dict(driver),
}))
