#!/usr/bin/env bash
# measure.sh D CP_BEFORE CP_AFTER PAIRS: interleaved before/after of `merge` (D/traces/rank-0.json, rank-1.json to /dev/null)
# and `summary D/merged.json`, as the launcher runs them (-Xmx2g, serial GC), nice 5, under /usr/bin/time; CP_* are class
# paths of copied class folders plus target/lib's jars. One line per run: user+sys CPU s, wall s, max RSS KB, load.
D=$1; B=$2; A=$3; N=${4:-3}
for r in $(seq 1 "$N"); do for v in before after; do cp=$B; [ $v = after ] && cp=$A
  for c in merge summary; do
    if [ $c = merge ]; then a="merge $D/traces/rank-0.json $D/traces/rank-1.json -o /dev/null"; else a="summary $D/merged.json"; fi
    l=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%U %S %e %M" -o "$D/t.txt" nice -n 5 java -Xmx2g -XX:+UseSerialGC -cp "$cp" org.flagos.trace.cli.FlagtraceCli $a > "$D/$c-$v.out" 2>&1
    echo "$r $v $c user+sys=$(awk '{print $1+$2}' "$D/t.txt") wall=$(awk '{print $3}' "$D/t.txt") rssKB=$(awk '{print $4}' "$D/t.txt") load=$l"
  done; done; done
