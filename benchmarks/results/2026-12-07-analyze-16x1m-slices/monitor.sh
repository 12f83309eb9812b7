#!/usr/bin/env bash
# monitor.sh PID [SECONDS]: every SECONDS (30) while PID lives, one line: the time, its VmHWM and VmRSS, its CPU seconds
# (user+sys), DuckDB's database file and its whole temporary folder (MB, the folder found through the process's open
# analyze.duckdb), the load, and the innermost flagtrace frames of the thread running the analyses (jstack), which
# name the analysis or the critical path's step (CriticalPath.java's line) running then
P=$1; S=${2:-30}; tck=$(getconf CLK_TCK)
while [ -d /proc/$P ]; do
  st=$(grep -E '^Vm(HWM|RSS)' /proc/$P/status 2>/dev/null | tr -s ' \t' ' ' | tr '\n' ' ')
  cpu=$(awk -v t=$tck '{printf "%.0f", ($14+$15)/t}' /proc/$P/stat 2>/dev/null)
  db=$(for f in /proc/$P/fd/*; do l=$(readlink "$f"); case "$l" in */analyze.duckdb) echo "$l";; esac; done 2>/dev/null | head -1)
  dbm=0; spm=0
  if [ -n "$db" ]; then dbm=$(( $(stat -c %s "$db" 2>/dev/null || echo 0) >> 20 )); spm=$(du -sm "$(dirname "$db")" 2>/dev/null | cut -f1); fi
  fr=$(jstack "$P" 2>/dev/null | grep -E 'org\.flagos\.trace\.(sql|cli)\.' | grep -vE 'FlagtraceCli|picocli' | head -3 | sed 's/^\s*at org\.flagos\.trace\.//' | tr '\n' ' ')
  echo "$(date -u +%T) $st cpu=${cpu}s db=${dbm}MB folder=${spm}MB load=$(cut -d' ' -f1 /proc/loadavg) $fr"
  sleep "$S"
done
