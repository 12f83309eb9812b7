#!/bin/bash
# After TextCache compared its slots with Arrays.equals (the after jar updated): summary pair 3, merge pair 4.
cd /work/agBK/benchmarks/results/2026-12-07-walk-speed
./summary-run.sh after 3; ./summary-run.sh before 3
cmp /work/agBK/target/data/S-before.json /work/agBK/target/data/S-after.json && echo "S-*.json IDENTICAL (cmp)" > summary-pair3.cmp || echo DIFFER > summary-pair3.cmp
./merge-run.sh after 4; ./merge-run.sh before 4
cmp /work/agBK/target/data/M-before.json /work/agBK/target/data/M-after.json && echo IDENTICAL > merge-pair4.cmp || echo DIFFER > merge-pair4.cmp
echo done > batch2.done
