#!/usr/bin/env bash
# hisample.sh PATTERN OUT: every 0.2 s VmRSS of the process whose command line matches PATTERN
J=; for i in $(seq 200); do J=$(pgrep -f "$1" | head -1); [ -n "$J" ] && break; sleep 0.1; done
while kill -0 $J 2>/dev/null; do echo "$(date +%T.%N | cut -c1-10) $(awk '/^(VmRSS|VmHWM)/{printf "%s ", $2}' /proc/$J/status 2>/dev/null)"; sleep 0.2; done > $2
