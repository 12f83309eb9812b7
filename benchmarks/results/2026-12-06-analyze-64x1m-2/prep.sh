#!/usr/bin/env bash
# prep.sh DIR RANKS EVENTS SEED: a synthetic job (benchmarks/synthetic-job.sh), merged and written as DIR/events.parquet,
# each step under /usr/bin/time -v, nice 10; the traces and the merged JSON deleted afterwards
set -e
root="$(cd "$(dirname "$0")/../../.." && pwd)"
D=$1; R=$2; E=$3; S=$4
mkdir -p "$D"; cd "$D"
/usr/bin/time -v nice -n 10 "$root/benchmarks/synthetic-job.sh" "$D/traces" "$R" "$E" "$S" > gen.log 2> gen.time
/usr/bin/time -v nice -n 10 "$root/flagtrace" merge $(ls traces/* | sort -V) -o merged.json > merge.log 2> merge.time
rm -rf traces
/usr/bin/time -v nice -n 10 "$root/flagtrace" tables merged.json -o events.parquet > tables.log 2> tables.time
rm -f merged.json
for f in gen merge tables; do echo "$f: $(grep -E 'Elapsed|User time|System time|Maximum resident' $f.time | sed 's/^\s*//' | tr '\n' ' ')"; done
echo "done $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
