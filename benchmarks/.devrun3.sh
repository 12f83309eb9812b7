set -uo pipefail
CAPTURE_NAME=h200-java-parity bash benchmarks/run-device-record.sh > /dev/null 2>&1; echo "record (device kinds at init) done"
CAPTURE_NAME=h200-java-parity-deferred FLAGTRACE_JAVA_OPTS=-Dflagtrace.cupti.deviceKindsAtInit=false bash benchmarks/run-device-record.sh > /dev/null 2>&1; echo "record (deferred) done"
timeout 480 bash benchmarks/run-device.sh > "$OUT/jmh-console.txt" 2>&1; echo "jmh exit $?"
grep -E "^(LaunchOverhead|TracerInit)" "$OUT/jmh-console.txt" | sort -u
