#!/bin/bash
# Steady state: one JVM merging r0 + r1 (2,164,476 events) 5 times into /dev/null, per build (MergeLoop.java.txt).
res=/work/agBK/benchmarks/results/2026-12-07-walk-speed
cd /work/agBK/target/data
for who in ${ORDER:-before after}; do
  b=/work/agBK/target/bench/$who/target
  { cat /proc/loadavg; nice -n 10 java -Xmx2g -XX:+UseSerialGC -XX:+CITime -cp "/work/agBK/target/loop:$b/flagtrace.jar:$b/lib/*" h.MergeLoop 5 r8/r0.json r8/r1.json; cat /proc/loadavg; } > $res/steady-$who${RUN:-1}.txt 2>&1
done
