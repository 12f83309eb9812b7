#!/usr/bin/env bash
# runeach.sh PARQUET NAME...: RunEach (RunEach.java.txt, compiled with javac into target/harness-classes) with the
# launcher's flags for analyze (-Xmx256m, -Dflagtrace.analyze.memory=1g, serial GC), nice 10, under /usr/bin/time -v
# (its summary lines after RunEach's); RJ: more JVM flags (-Dflagtrace.analyze.slice.events=N)
h="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$h/../../.." && pwd)"
mkdir -p "$root/target/harness-classes/src/org/flagos/trace/sql"
cp "$h/RunEach.java.txt" "$root/target/harness-classes/src/org/flagos/trace/sql/RunEach.java"
javac -d "$root/target/harness-classes" -cp "$root/target/classes:$root/target/lib/*" "$root/target/harness-classes/src/org/flagos/trace/sql/RunEach.java" || exit 1
T=$(mktemp); echo "# runeach.sh $*, start $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
nice -n 10 /usr/bin/time -v java -Xmx256m -XX:+UseSerialGC -Dflagtrace.analyze.memory=1g ${RJ:-} -cp "$root/target/harness-classes:$root/target/classes:$root/target/lib/*" org.flagos.trace.sql.RunEach "$@" 2> "$T"
echo "rc=$? end=$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E "Elapsed|User time|System time|Maximum resident" "$T" | sed 's/^\s*//' | tr '\n' ' '; echo; grep -iE "exception|error" "$T" | head -5; rm -f "$T"
