#!/usr/bin/env bash
# cold.sh OUTDIR RUNS [JAVA_OPTS...]: ColdHarness (ColdHarness.java.txt, compiled into /tmp/agBO/hcls) in a fresh JVM,
# -Xmx2g and the Spark tests' JVM flags (pom.xml's spark.jvm.flags), under nice -n 10 /usr/bin/time -v; SQLDIR (env,
# optional) first on the class path for another rank_ops.sql; the load average before and after.
root="$(cd "$(dirname "$0")/../../.." && pwd)"
O=$1; R=$2; shift 2
mkdir -p "$O"
CP="${SQLDIR:+$SQLDIR:}/tmp/agBO/hcls:$root/target/test-classes:$root/target/classes:$(cat /tmp/agBH-cp.txt)"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T) opts: $* ${SQLDIR:+SQLDIR=$SQLDIR}"
nice -n 10 /usr/bin/time -v -o "$O/time.txt" java -Xmx2g -XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true "$@" -cp "$CP" org.flagos.trace.sql.ColdHarness "$O" "$R" 2>&1 | grep -v -E "WARN|^\s*$|NativeCodeLoader"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
grep -E "Elapsed|User time|System time|Maximum resident" "$O/time.txt" | sed 's/^\s*//' | tr '\n' ' '; echo
