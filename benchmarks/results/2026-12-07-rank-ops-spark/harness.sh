#!/usr/bin/env bash
# harness.sh SQLDIR ENGINE RUNS OUTDIR [JAVA_OPTS...]: Harness (Harness.java.txt, compiled into /tmp/agBH/hcls) with
# rank_ops.sql from SQLDIR/org/flagos/trace/sql/ (first on the classpath), -Xmx2g and the Spark tests' JVM flags
# (pom.xml's spark.jvm.flags), under nice -n 10 /usr/bin/time -v; the load average before and after.
root="$(cd "$(dirname "$0")/../../.." && pwd)"
S=$1; E=$2; R=$3; O=$4; shift 4
mkdir -p "$O"
CP="$S:/tmp/agBH/hcls:$root/target/test-classes:$root/target/classes:$(cat /tmp/agBH-cp.txt)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
nice -n 10 /usr/bin/time -v java -Xmx2g -XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true "$@" -cp "$CP" org.flagos.trace.sql.Harness "$E" "$O" "$R" 2> "$O/time-$E.txt" | grep -v WARN
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
grep -E "Elapsed|User time|System time|Maximum resident" "$O/time-$E.txt" | sed 's/^\s*//' | tr '\n' ' '; echo
