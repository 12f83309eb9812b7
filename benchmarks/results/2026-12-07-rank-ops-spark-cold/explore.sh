#!/usr/bin/env bash
# explore.sh ROUND: the levers one after another, each in a fresh JVM (cold.sh, 2 runs: run 0 cold, run 1 warm),
# same events.parquet (/tmp/agBO/d); output explore-ROUND-VARIANT.txt beside this script.
H="$(dirname "$0")/cold.sh"; D="$(dirname "$0")"; r=$1
"$H" /tmp/agBO/d 2 > "$D/explore-$r-base.txt" 2>&1
"$H" /tmp/agBO/d 2 -Dh.conf="spark.sql.codegen.wholeStage=false" > "$D/explore-$r-nowholestage.txt" 2>&1
"$H" /tmp/agBO/d 2 -XX:TieredStopAtLevel=1 > "$D/explore-$r-c1only.txt" 2>&1
"$H" /tmp/agBO/d 2 -Dh.conf="spark.sql.codegen.wholeStage=false;spark.sql.codegen.factoryMode=NO_CODEGEN" > "$D/explore-$r-nocodegen.txt" 2>&1
"$H" /tmp/agBO/d 2 -Dspark.sql.codegen.cache.maxEntries=1000 > "$D/explore-$r-cache1000.txt" 2>&1
"$H" /tmp/agBO/d 2 -Dh.conf="spark.sql.adaptive.enabled=false" > "$D/explore-$r-noaqe.txt" 2>&1
