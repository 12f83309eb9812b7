#!/usr/bin/env bash
# sparkh.sh CLASSES(before|after) PARQUET: CriticalPath.build alone on Spark 4.2 local[2], statements counted, digests
set -euo pipefail
if [ "$1" = before ]; then C=/tmp/agAV-bench/sb:/tmp/agAV-bench/before-classes; else C=/tmp/agAV-bench/sa:/tmp/agAV-bench/after-test-classes:/tmp/agAV-bench/after-classes; fi
S=$(mktemp -d /tmp/agAV-bench/sspill.XXXX)
/usr/bin/time -v java -Xmx2g -XX:+UseSerialGC -Djava.io.tmpdir=$S -XX:+IgnoreUnrecognizedVMOptions --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.invoke=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED --add-opens=java.base/jdk.internal.ref=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/sun.nio.cs=ALL-UNNAMED --add-opens=java.base/sun.security.action=ALL-UNNAMED --add-opens=java.base/sun.util.calendar=ALL-UNNAMED -Djdk.reflect.useDirectMethodHandle=false -Dio.netty.tryReflectionSetAccessible=true -cp $C:$(cat /tmp/agAV-bench/cp.txt) org.flagos.trace.spark.SparkCpHarness $2 $S 2> $S.time | grep -E "Rounds|digest"
grep -E "Elapsed|User time|System time|Maximum resident" $S.time | sed 's/^\s*//' | tr '\n' ' '; echo " load=$(cut -d' ' -f1-3 /proc/loadavg)"
grep -E "Exception|Error" $S.time | head -5
rm -rf $S $S.time
