#!/bin/bash
# One cold merge of the 8 ranks by build WHO (before|after), as the user runs it; CPU from /usr/bin/time -v.
# Usage: merge-run.sh WHO RUN   (extra JVM options via FLAGTRACE_JAVA_OPTS, passed on to the launcher)
who=$1; run=$2
data=/work/agBM/target/data
res=/work/agBM/benchmarks/results/2026-12-07-merge-speed
cat /proc/loadavg > $res/merge-$who$run.load
cd $data
nice -n 10 /usr/bin/time -v /work/agBM/target/bench/$who/flagtrace merge r8/r0.json r8/r1.json r8/r2.json r8/r3.json \
  r8/r4.json r8/r5.json r8/r6.json r8/r7.json -o M-$who.json > $res/merge-$who$run.out 2> $res/merge-$who$run.time
cat /proc/loadavg >> $res/merge-$who$run.load
