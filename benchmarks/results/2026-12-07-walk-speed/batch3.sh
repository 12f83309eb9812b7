#!/bin/bash
# One more of each, before first: summary pair 4, merge pair 5.
cd /work/agBK/benchmarks/results/2026-12-07-walk-speed
./summary-run.sh before 4; ./summary-run.sh after 4
cmp /work/agBK/target/data/S-before.json /work/agBK/target/data/S-after.json && echo "S-*.json IDENTICAL (cmp)" > summary-pair4.cmp || echo DIFFER > summary-pair4.cmp
./merge-run.sh before 5; ./merge-run.sh after 5
cmp /work/agBK/target/data/M-before.json /work/agBK/target/data/M-after.json && echo IDENTICAL > merge-pair5.cmp || echo DIFFER > merge-pair5.cmp
echo done > batch3.done
