#!/usr/bin/env bash
# (copied from ../2026-12-07-rank-ops-spark-fast/, unchanged; /tmp/agBU/after held main's target/classes and test-classes at a77f2435)
# cold.sh WHICH ENGINE OUT: one fresh JVM over RankOpsScaleTest's seed-32 table (100,000 ops on one thread), the
# classes of WHICH (/tmp/agBU/before: main at 1f5a10ec, rank_ops nested in windows; /tmp/agBU/after: this branch,
# OpNesting), under nice -n 10 /usr/bin/time -v; the load average before and after.
#   ENGINE spark: ../2026-12-07-rank-ops-spark-cold/ColdHarness.java.txt (copied here, unchanged; compiled into
#     /tmp/agBU/hcls), RUNS runs (env, default 1: run 0 cold), -Xmx2g and pom.xml's spark.jvm.flags, LocalSpark's settings (local[2]).
#   ENGINE duckdb: the CLI's own main (FlagtraceCli analyze --only rank_ops EVENTS) with the launcher's flags for
#     analyze on this 2-core VM (-Xmx256m, -Dflagtrace.analyze.memory=1g, SerialGC); not the launcher's class-data archive.
# /tmp/agBU/cp.txt: mvn dependency:build-classpath -Dmdep.includeScope=test.
W=$1; E=$2; O=$3
mkdir -p "$O"
C=/tmp/agBU/$W
D=/tmp/agBU/data
echo "== $W $E load before: $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
if [ "$E" = spark ]; then
  nice -n 10 /usr/bin/time -v -o "$O/time.txt" java -Xmx2g -XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true \
    -cp "/tmp/agBU/hcls:$C/test-classes:$C/classes:$(cat /tmp/agBU/cp.txt)" org.flagos.trace.sql.ColdHarness "$D" "${RUNS:-1}" 2>&1 | grep -v -E "WARN|^\s*$|NativeCodeLoader"
else
  nice -n 10 /usr/bin/time -v -o "$O/time.txt" java -Xmx256m -Dflagtrace.analyze.memory=1g -XX:+UseSerialGC \
    -cp "$C/classes:$(cat /tmp/agBU/cp.txt)" org.flagos.trace.cli.FlagtraceCli analyze --only rank_ops -o "$O/csv" "$D/events.parquet" > "$O/stdout.txt" 2>&1
  tail -1 "$O/stdout.txt"; md5sum "$O/csv/"*.csv | cut -c1-12
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
grep -E "Elapsed|User time|System time|Maximum resident" "$O/time.txt" | sed 's/^\s*//' | tr '\n' ' '; echo
