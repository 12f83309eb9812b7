#!/bin/bash
# The final interleaved series: before (main at 68680df6), after (this branch, the launcher with merge's FreqInlineSize=100),
# after without the launcher's JIT flags (FLAGTRACE_JIT_BOUNDARIES=0: the code alone); each after output compared with before's.
cd /work/agBM/benchmarks/results/2026-12-07-merge-speed
d=/work/agBM/target/data
for r in 1 2 3; do
  ./merge-run.sh before final$r
  ./merge-run.sh after final$r
  cmp $d/M-before.json $d/M-after.json && echo IDENTICAL > final$r-after.cmp || echo DIFFER > final$r-after.cmp
  FLAGTRACE_JIT_BOUNDARIES=0 ./merge-run.sh after nojit$r
  cmp $d/M-before.json $d/M-after.json && echo IDENTICAL > final$r-nojit.cmp || echo DIFFER > final$r-nojit.cmp
done
echo done > final.done
