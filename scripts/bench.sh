#!/usr/bin/env bash
# Runs every benchmark of the project and prints a summary. Heavy
# benchmarks (1 GiB transfers, model training) run once; the rest take
# Go's default benchmark time. Packages run one at a time (-p 1): on two
# cores, two benchmark binaries at once would measure each other. The raw
# output is kept in bench.out.
set -euo pipefail
cd "$(dirname "$0")/.."
out=bench.out
: > "$out"
{
  echo "# hark benchmarks — $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "# machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
} | tee -a "$out"

heavy=(./cmd/harkd ./server/recomm/...)
go test -p 1 -run '^$' -bench . -benchtime 1x -timeout 60m "${heavy[@]}" 2>&1 | tee -a "$out" | grep -E '^(Benchmark|ok|FAIL|---)' || true

light=$(go list ./... | grep -v -e '/cmd/harkd$' -e '/server/recomm')
go test -p 1 -run '^$' -bench . -benchmem -timeout 60m $light 2>&1 | tee -a "$out" | grep -E '^(Benchmark|ok|FAIL|---)' || true
echo "# recommendation quality (MovieLens, top 10)" | tee -a "$out"
HARK_QUALITY_REPORT=1 go test -timeout 30m -run TestQualityReport -v ./server/recomm/evaluate 2>&1 | tee -a "$out" | grep -vE '^(=== RUN|--- PASS|PASS$)' || true
echo "full output: $out"
