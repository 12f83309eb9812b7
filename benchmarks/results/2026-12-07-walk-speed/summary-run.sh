#!/bin/bash
# One cold `summary --json` of the merged 8-rank trace (M-before.json, 8,657,904 events, 1.57 GB) by build WHO.
who=$1; run=$2
data=/work/agBK/target/data
res=/work/agBK/benchmarks/results/2026-12-07-walk-speed
cat /proc/loadavg > $res/summary-$who$run.load
cd $data
nice -n 10 /usr/bin/time -v /work/agBK/target/bench/$who/flagtrace summary --json S-$who.json M-before.json > S-$who.txt 2> $res/summary-$who$run.time
cat /proc/loadavg >> $res/summary-$who$run.load
