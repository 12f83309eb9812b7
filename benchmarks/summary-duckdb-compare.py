#!/usr/bin/env python3
"""Compares `flagtrace summary --json S.json` rows with the DuckDB rows (SummaryDuckDb's TSV, one rank):
calls, CPU total, self CPU, self device and device total per (kind, name), to the nanosecond.
Usage: summary-duckdb-compare.py S.json ROWS.tsv"""
import csv
import json
import sys
from decimal import Decimal


def ns(us):
    return int(Decimal(str(us)) * 1000)


summary = json.load(open(sys.argv[1]))
ours = {}
for r in summary["rows"]:
    ours[(r["kind"], r["name"])] = (r["count"], ns(r["cpu_time_total_us"]), ns(r["self_cpu_time_total_us"]),
                                    ns(r["self_device_time_total_us"]), ns(r["device_time_total_us"]))
theirs = {}
with open(sys.argv[2]) as f:
    for r in csv.DictReader(f, delimiter="\t"):
        theirs[(r["kind"], r["name"])] = (int(r["calls"]), int(r["cpu_total_ns"]), int(r["self_cpu_ns"]),
                                          int(r["self_device_ns"]), int(r["device_total_ns"]))
diff = [k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k)]
for k in sorted(diff, key=str):
    print("differs:", k, ours.get(k), theirs.get(k))
print(f"{len(ours)} summary rows, {len(theirs)} DuckDB rows, {len(diff)} differ")
sys.exit(1 if diff else 0)
