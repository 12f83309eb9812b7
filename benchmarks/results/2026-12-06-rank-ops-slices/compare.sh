#!/usr/bin/env bash
A=/work/agBG/benchmarks/results/2026-12-06-analyze-64x1m-2/analyze.sh
cd /tmp/agBG
for e in h200:h200.parquet j8:j8x100k/events.parquet; do n=${e%%:*}; f=${e#*:}
 echo "before-$n: $(ACLASSES=/tmp/agBG/classes-before0 bash $A out/before-$n $f)"
 echo "after-$n: $(bash $A out/after-$n $f)"
 echo "after-sliced-$n (-Dflagtrace.analyze.slice.events=1): $(bash $A out/after-sliced-$n $f -Dflagtrace.analyze.slice.events=1)"
 for o in after after-sliced; do
  diff -r out/before-$n out/$o-$n > /dev/null && echo "diff -r before-$n $o-$n: same" || echo "diff -r before-$n $o-$n: DIFFERENT"
  diff <(grep -v '^wrote' out/before-$n.out) <(grep -v '^wrote' out/$o-$n.out) > /dev/null && echo "terminal before-$n $o-$n: same" || echo "terminal before-$n $o-$n: DIFFERENT"
 done
 echo "$n: $(ls out/before-$n | wc -l) files, $(du -sb out/before-$n | cut -f1) bytes"
done
