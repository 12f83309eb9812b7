#!/bin/bash
# interleaved cold runs: after, then before, same inputs, outputs compared
cd /work/agAE-data
for who in ${ORDER:-after before}; do
  cat /proc/loadavg > runs/${who}${RUN:-2}.load
  /usr/bin/time -v /work/agAE/target/bench/$who/flagtrace merge r8/r0.json r8/r1.json r8/r2.json r8/r3.json r8/r4.json r8/r5.json r8/r6.json r8/r7.json -o m2-$who.json > runs/${who}${RUN:-2}.out 2> runs/${who}${RUN:-2}.time
  cat /proc/loadavg >> runs/${who}${RUN:-2}.load
done
cmp m2-after.json m2-before.json && echo IDENTICAL > runs/pair.cmp || echo DIFFER > runs/pair.cmp
