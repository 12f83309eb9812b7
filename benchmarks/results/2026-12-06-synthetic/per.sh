#!/usr/bin/env bash
# per.sh BUILD_ROOT PARQUET [names...]: one cold CLI analyze --only NAME per analysis; prints name wall cpu rss_MB
set -uo pipefail
M=$1; P=$2; shift 2
JAR="$M/target/flagtrace.jar"; for f in $M/target/lib/*.jar; do JAR="$JAR:$f"; done
[ -n "${CLASSES:-}" ] && JAR="$CLASSES:$JAR"
NAMES="${*:-rank_steps step_stragglers rank_device rank_ops kernel_stats kernel_launches queue_length stream_idle collectives memory_bandwidth kernel_sequences critical_path critical_path_segments}"
for n in $NAMES; do
  /usr/bin/time -v timeout ${TMO:-600} java -Xmx2g -XX:+UseSerialGC -cp "$JAR" org.flagos.trace.cli.FlagtraceCli analyze $P --only $n > /tmp/agAI-bench/out.$n.txt 2> /tmp/agAI-bench/time.$n.txt
  rc=$?
  w=$(grep 'Elapsed (wall' /tmp/agAI-bench/time.$n.txt | awk '{print $NF}')
  u=$(grep 'User time' /tmp/agAI-bench/time.$n.txt | awk '{print $NF}')
  s=$(grep 'System time' /tmp/agAI-bench/time.$n.txt | awk '{print $NF}')
  r=$(grep 'Maximum resident' /tmp/agAI-bench/time.$n.txt | awk '{print $NF}')
  rows=$(grep -m1 "^$n:" /tmp/agAI-bench/out.$n.txt | grep -o '([0-9]* rows)')
  printf '%-24s rc=%s wall=%s cpu=%.1f rss=%dMB %s load=%s\n' $n $rc $w $(echo "$u + $s" | bc) $((r/1024)) "$rows" "$(cut -d' ' -f1 /proc/loadavg)"
done
