#!/usr/bin/env bash
# prep.sh DIR RANKS EVENTS STRAGGLER CLASSES TESTCLASSES LIB: a synthetic job (SyntheticJob), merged and written as
# DIR/events.parquet, as ../2026-12-06-analyze-64x1m-2/prep.sh does, but from fixed copies of the classes (CLASSES,
# TESTCLASSES, LIB's jars) so that edits to the clone do not rebuild the jar under it; each step under /usr/bin/time -v, nice 10
set -e
D=$1; R=$2; E=$3; S=$4; C=$5; T=$6; L=$7
cp="$C"; for j in "$L"/*.jar; do cp="$cp:$j"; done
mkdir -p "$D"; cd "$D"
/usr/bin/time -v nice -n 10 java -cp "$T:$cp" org.flagos.trace.benchmarks.SyntheticJob "$D/traces" "$R" "$E" "$S" > gen.log 2> gen.time
/usr/bin/time -v nice -n 10 java -Xmx2g -cp "$cp" org.flagos.trace.cli.FlagtraceCli merge $(ls traces/* | sort -V) -o merged.json > merge.log 2> merge.time
rm -rf traces
/usr/bin/time -v nice -n 10 java -Xmx2g -cp "$cp" org.flagos.trace.cli.FlagtraceCli tables merged.json -o events.parquet > tables.log 2> tables.time
rm -f merged.json
for f in gen merge tables; do echo "$f: $(grep -E 'Elapsed|User time|System time|Maximum resident' $f.time | sed 's/^\s*//' | tr '\n' ' ')"; done
echo "done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
