#!/usr/bin/env bash
# exp.sh TAG "EXTRA_JAVA_OPTS" [analyze args]: probe classes ahead of the build, launcher's analyze flags, /usr/bin/time -v
cd /work/agAZ/target/bench; T=$1; X=$2; shift 2
L=""; for f in ../lib/*.jar; do L="$L:$f"; done
rm -rf out-$T
nice -n 10 /usr/bin/time -v java -Xmx256m -Dflagtrace.analyze.memory=1g -XX:+UseSerialGC -Dflagtrace.probe=1 "-Dflagtrace.probe.sql=${PROBE_SQL:-}" $X -cp ../probe-classes:../flagtrace.jar$L org.flagos.trace.cli.FlagtraceCli analyze events64x100k.parquet -o out-$T "$@" > res/$T.out 2> res/$T.time
echo "rc=$? load=$(cut -d' ' -f1-3 /proc/loadavg) end=$(date -u +%T)" >> res/$T.time
grep PROBE res/$T.time | sed 's/PROBE //'
grep -E "Elapsed|User time|System time|Maximum resident" res/$T.time | sed 's/^\s*//' | tr '\n' ' '; tail -1 res/$T.time
