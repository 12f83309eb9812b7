#!/usr/bin/env bash
# run.sh TAG [analyze args...]: cold ./flagtrace analyze of the 64x100k table under /usr/bin/time -v, sampled
cd /work/agAZ/target/bench; T=$1; shift
rm -rf out-$T; 
nice -n 10 /usr/bin/time -v ../../flagtrace analyze events64x100k.parquet -o out-$T "$@" > res/$T.out 2> res/$T.time &
W=$!; J=; for i in $(seq 100); do J=$(pgrep -f "FlagtraceCli analyze events64x100k.parquet -o out-$T" | head -1); [ -n "$J" ] && break; sleep 0.2; done
./sample.sh $J res/$T.samples & 
wait $W; echo "rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg) end=$(date -u +%T)" >> res/$T.time
grep -E "Elapsed|User time|System time|Maximum resident" res/$T.time | sed 's/^\s*//' | tr '\n' ' '; tail -1 res/$T.time
