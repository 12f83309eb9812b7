#!/bin/bash
# The rest of the interleaved cold runs, one at a time: merge pair 3 (before first), summary pair 1 and 2, outputs compared.
cd /work/agBK/benchmarks/results/2026-12-07-walk-speed
# (merge pair 3 ran here first)
# ./merge-run.sh before 3; ./merge-run.sh after 3
# cmp /work/agBK/target/data/M-before.json /work/agBK/target/data/M-after.json && echo IDENTICAL > merge-pair3.cmp || echo DIFFER > merge-pair3.cmp
./summary-run.sh after 1; ./summary-run.sh before 1
cmp /work/agBK/target/data/S-before.json /work/agBK/target/data/S-after.json && cmp /work/agBK/target/data/S-before.txt /work/agBK/target/data/S-after.txt && echo IDENTICAL > summary-pair1.cmp || echo DIFFER > summary-pair1.cmp
./summary-run.sh before 2; ./summary-run.sh after 2
cmp /work/agBK/target/data/S-before.json /work/agBK/target/data/S-after.json && cmp /work/agBK/target/data/S-before.txt /work/agBK/target/data/S-after.txt && echo IDENTICAL > summary-pair2.cmp || echo DIFFER > summary-pair2.cmp
echo done > batch.done
