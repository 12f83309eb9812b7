#!/usr/bin/env bash
# analyze-compare.sh: `analyze` of the bundled h200-ranks job (its merged trace through `flagtrace tables`) with
# rank_ops.sql before (/tmp/agBH/sql-before) and after (/tmp/agBH/sql-final), each first on the classpath before
# this clone's target/classes, the launcher's flags (-Xmx256m, -Dflagtrace.analyze.memory=1g, serial GC), whole
# and a rank a statement (-Dflagtrace.analyze.slice.events=1); diff -r of the CSV folders and of the terminal
# text less `wrote` lines.
root="$(cd "$(dirname "$0")/../../.." && pwd)"
W=/tmp/agBH/analyze; mkdir -p $W; cd $W
CP="$root/target/classes:$(cat /tmp/agBH-rcp.txt)"
run() { # OUT SQLDIR [JAVA_OPTS...]
  O=$1; S=$2; shift 2; rm -rf "$O"
  nice -n 10 /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M KB max RSS" java -Xmx256m -Dflagtrace.analyze.memory=1g -XX:+UseSerialGC "$@" \
    -cp "$S:$CP" org.flagos.trace.cli.FlagtraceCli analyze events.parquet -o "$O" > "$O.out" 2> "$O.time"
  echo "$O: rc=$? $(tail -1 $O.time) load $(cut -d' ' -f1-3 /proc/loadavg)"
}
[ -f events.parquet ] || java -cp "$CP" org.flagos.trace.cli.FlagtraceCli tables "$root/src/test/resources/captures/h200-ranks/h200-ranks.merged.json.gz" -o events.parquet
run before /tmp/agBH/sql-before
run after /tmp/agBH/sql-final
run after-sliced /tmp/agBH/sql-final -Dflagtrace.analyze.slice.events=1
for o in after after-sliced; do
  diff -r before $o > /dev/null && echo "diff -r before $o: same" || echo "diff -r before $o: DIFFERENT"
  diff <(grep -v '^wrote' before.out) <(grep -v '^wrote' $o.out) > /dev/null && echo "terminal before $o: same" || echo "terminal before $o: DIFFERENT"
done
echo "$(ls before | wc -l) files, $(du -sb before | cut -f1) bytes; rank_ops.csv $(wc -l < before/rank_ops.csv) lines"
