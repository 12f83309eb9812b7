#!/usr/bin/env bash
# gen.sh RANKS EVENTS : /tmp/agAV-bench/jRxE/{traces,merged.json,events.parquet}, with the before classes
set -euo pipefail
R=$1; E=$2; D=/tmp/agAV-bench/j${R}x${E}
CP="/work/agAV/target/test-classes:/tmp/agAV-bench/before-classes:$(cat /tmp/agAV-bench/cp.txt)"
mkdir -p $D
[ -d $D/traces ] || java -cp "$CP" org.flagos.trace.benchmarks.SyntheticJob $D/traces $R $E $((R>41?41:R-1))
[ -f $D/merged.json ] || java -Xmx2g -XX:+UseSerialGC -cp "$CP" org.flagos.trace.cli.FlagtraceCli merge $(ls $D/traces/* | sort -V) -o $D/merged.json > $D/merge.log 2>&1
[ -f $D/events.parquet ] || java -Xmx2g -XX:+UseSerialGC -cp "$CP" org.flagos.trace.cli.FlagtraceCli tables $D/merged.json -o $D/events.parquet > $D/tables.log 2>&1
rm -f $D/merged.json
ls -la $D
