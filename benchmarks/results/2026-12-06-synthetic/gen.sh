#!/usr/bin/env bash
# gen.sh RANKS EVENTS : writes /tmp/agAI-bench/jRANKSxEVENTS/{traces,merged.json,events.parquet} with main's build
set -euo pipefail
R=$1; E=$2; D=/tmp/agAI-bench/j${R}x${E}
M=/work/main
CP="$M/target/test-classes:$M/target/classes:$(cat $M/target/synthetic-job.classpath)"
mkdir -p $D
[ -d $D/traces ] || java -cp "$CP" org.flagos.trace.benchmarks.SyntheticJob $D/traces $R $E $((R>41?41:R-1)) 
JAR="$M/target/flagtrace.jar"; for f in $M/target/lib/*.jar; do JAR="$JAR:$f"; done
[ -f $D/merged.json ] || java -Xmx2g -XX:+UseSerialGC -cp "$JAR" org.flagos.trace.cli.FlagtraceCli merge $(ls $D/traces/* | sort -V) -o $D/merged.json > $D/merge.log 2>&1
[ -f $D/events.parquet ] || java -Xmx2g -XX:+UseSerialGC -cp "$JAR" org.flagos.trace.cli.FlagtraceCli tables $D/merged.json -o $D/events.parquet > $D/tables.log 2>&1
ls -la $D
