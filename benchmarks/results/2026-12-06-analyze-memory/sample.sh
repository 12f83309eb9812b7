#!/usr/bin/env bash
# sample.sh PID OUT : every second, the process's memory (status) and which table scratch files exist
P=$1; O=$2
while kill -0 $P 2>/dev/null; do
  s=$(awk '/^(VmRSS|VmHWM|RssAnon|RssFile|Threads)/{printf "%s=%s ", $1, $2}' /proc/$P/status 2>/dev/null)
  t=$(ls -t /tmp/flagtrace-analyze-tables-*/ 2>/dev/null | head -1)
  sp=$(du -sk /tmp/flagtrace-analyze-spill-* 2>/dev/null | awk '{s+=$1} END{print s+0}')
  echo "$(date +%T) $s cur=$t spillK=$sp"
  sleep 1
done > $O
