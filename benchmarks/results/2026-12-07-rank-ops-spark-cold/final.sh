#!/usr/bin/env bash
# final.sh: main's settings and the C1-only JIT (-XX:TieredStopAtLevel=1) in turn, fresh JVMs (cold.sh: run 0 cold,
# then warm runs in the same JVM), then once with spark-submit's default of 200 shuffle partitions (AQE coalescing
# them); same events.parquet (/tmp/agBO/d); output final-N-VARIANT.txt beside this script.
H="$(dirname "$0")/cold.sh"; D="$(dirname "$0")"
"$H" /tmp/agBO/d 2 > "$D/final-1-base.txt" 2>&1
"$H" /tmp/agBO/d 2 -XX:TieredStopAtLevel=1 > "$D/final-2-c1only.txt" 2>&1
"$H" /tmp/agBO/d 3 > "$D/final-3-base.txt" 2>&1
"$H" /tmp/agBO/d 2 -XX:TieredStopAtLevel=1 > "$D/final-4-c1only.txt" 2>&1
"$H" /tmp/agBO/d 2 -Dspark.sql.shuffle.partitions=200 -Dspark.default.parallelism=2 > "$D/final-5-partitions200.txt" 2>&1
