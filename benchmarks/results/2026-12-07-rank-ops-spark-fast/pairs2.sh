#!/usr/bin/env bash
# pairs2.sh N: N interleaved pairs (after, after2) on Spark: after2 is after with rank_ops_hosts.sql reading the
# overhead events once (a LEFT JOIN to the op around them, not a JOIN and a LEFT JOIN back); cold.sh.
here="$(cd "$(dirname "$0")" && pwd)"
for i in $(seq 1 "$1"); do
  for w in after after2; do "$here/cold.sh" $w spark /tmp/agBU/o/spark2-$w-$i > "$here/spark2-$i-$w.txt" 2>&1; done
done
