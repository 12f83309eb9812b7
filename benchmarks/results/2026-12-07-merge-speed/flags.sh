#!/bin/bash
# JIT inlining sizes for the cold merge, the after build (FLAGTRACE_JAVA_OPTS replaces the launcher's -Xmx2g; its other flags stay).
cd /work/agBM/benchmarks/results/2026-12-07-merge-speed
for r in 1 2; do
  ./merge-run.sh after default$r
  FLAGTRACE_JAVA_OPTS="-Xmx2g -XX:FreqInlineSize=100" ./merge-run.sh after freq100-$r
  FLAGTRACE_JAVA_OPTS="-Xmx2g -XX:FreqInlineSize=50" ./merge-run.sh after freq50-$r
done
echo done > flags.done
