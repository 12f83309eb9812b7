#!/usr/bin/env bash
# Makes the bundle benchmarks/cluster-job.sh runs from on a machine with no Java and no network (the device machine):
#   benchmarks/cluster-bundle.sh [OUT]          (OUT defaults to .device/cluster; .device/ is git-ignored)
# OUT/jre/ (a jlinked Java 17 with the modules Spark, Hadoop's client and DuckDB use; Spark 4 starts its executors with
# --add-modules=jdk.incubator.vector), OUT/lib/ (Spark 4.2's jars and
# the CLI's, every jar re-stored uncompressed with the natives of other systems than Linux x86-64 left out, so that
# xz compresses across them), flagtrace.jar, flagtrace-spark.jar, flagtrace-bench.jar (SyntheticJob, CompareTables),
# cli-jars.txt (the CLI's class path, names in lib/); and OUT/parts/bundle.txz.NN, the whole as pieces of at most
# 34 MiB (a device call carries at most 64 MiB with the working tree, about 26 MiB).
# Needs `./flagtrace --version` (target/lib), `mvn -B -o package -DskipTests` (the spark jar) and
# `mvn -B -o test-compile` first.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.device/cluster}
rm -rf "$out" && mkdir -p "$out/lib" "$out/parts"
mvn -B -q -o dependency:build-classpath -Dmdep.outputFile="$out/test.classpath" -Dmdep.includeScope=test >/dev/null
# Spark's and the CLI's jars; not the test tools, CUDA's bindings, RocksDB (a Spark UI store), SSL natives.
skip='duckdb|rocksdb|jazzer|archunit|bytedeco|junit|opentest4j|apiguardian|jmh|tcnative|riscv64|aarch_64|osx-|jna-platform'
tr ':' '\n' <"$out/test.classpath" | grep -v -E "$skip|/target/" >"$out/jars.txt"
ls ~/.m2/repository/org/duckdb/duckdb_jdbc/*/duckdb_jdbc-*.jar | tail -1 >>"$out/jars.txt"
lib=$(cd "$out/lib" && pwd)
while read -r jar; do
  d=$(mktemp -d)
  (cd "$d" && unzip -q -o "$jar" 2>/dev/null || true
   # native libraries of other systems: a file of a native kind whose path names no Linux x86-64
   find . -type f | grep -i -E '\.(so|dll|dylib|jnilib|a)$|libduckdb_java\.so_' \
     | grep -v -i -E 'linux[/_-]?(amd64|x86[_-]64|64)|x86[_-]64[/_-]linux|epoll_x86_64' | xargs -r rm -f || true
   zip -q -0 -r -X "$lib/$(basename "$jar")" .)
  rm -rf "$d"
done <"$out/jars.txt"
# The CLI's class path: the launcher's (target/lib) jars that made it into lib/ (not CUDA's bindings: tables and
# analyze load none).
ls target/lib | while read -r j; do [ -f "$lib/$j" ] && echo "$j"; done >"$out/cli-jars.txt"
jdk=$(dirname "$(readlink -f "$(command -v javac)")")
"$jdk/jlink" --add-modules java.base,java.compiler,java.desktop,java.logging,java.management,java.naming,java.security.jgss,java.security.sasl,java.sql,java.xml,java.rmi,java.scripting,java.instrument,java.datatransfer,jdk.unsupported,jdk.security.auth,jdk.management,jdk.jfr,jdk.crypto.ec,jdk.zipfs,jdk.incubator.vector \
  --strip-debug --no-header-files --no-man-pages --output "$out/jre"
cp "$(ls target/flagtrace-*-spark.jar | head -1)" "$out/flagtrace-spark.jar"
cp "$(ls target/flagtrace-[0-9]*-SNAPSHOT.jar | grep -v spark | head -1)" "$out/flagtrace.jar"
(cd target/test-classes && jar cf "$(cd - >/dev/null && cd "$out" && pwd)/flagtrace-bench.jar" org/flagos/trace/benchmarks \
  org/flagos/trace/spark/CompareTables.class)
(cd "$out" && tar cf - jre lib flagtrace.jar flagtrace-spark.jar flagtrace-bench.jar cli-jars.txt | xz -9 -T"$(nproc)" \
  | split -b 34M -d - parts/bundle.txz.)
ls -la "$out/parts"
