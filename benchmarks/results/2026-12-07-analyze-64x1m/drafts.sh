#!/usr/bin/env bash
# drafts.sh PID [SECONDS]: beside monitor.sh, which analysis `analyze` PID is in: every SECONDS (30), the -o files
# (drafts) open in its scratch folder, with their sizes, and DuckDB's database file
P=$1; S=${2:-30}
while [ -d /proc/$P ]; do
  d=$(for f in /proc/$P/fd/*; do l=$(readlink "$f"); case "$l" in */flagtrace-analyze-tables-*/*.csv) echo "$(basename "$l"):$(( $(stat -c %s "$l" 2>/dev/null || echo 0) >> 20 ))MB";; esac; done 2>/dev/null | tr '\n' ' ')
  echo "$(date -u +%T) $d"
  sleep "$S"
done
