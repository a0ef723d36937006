#!/usr/bin/env bash
# The sweep throughput benchmark of docs/performance.md: a 1,005-point sweep
# of the 1024^3 bf16 GEMM (5 array sizes x 3 dataflows x 67 HBM bandwidths on
# tpuv4core) with one worker and with two; wall time, peak RSS, points per
# second and the parallel efficiency (rate with N jobs / (N x rate with 1)).
set -euo pipefail
cd "$(dirname "$0")/../.."
go build -o /tmp/pulse-bench ./cmd/pulse
args=(examples/hlo/gemm1024_bf16.hlo --chip tpuv4core --axis mxu.rows=16:256:x2 --axis mxu.cols=16:256:x2
  --zip mxu.rows,mxu.cols --axis mxu.dataflow=ws,os,is --axis hbm.bandwidth_gbps=50:3350:50)
# Three runs each, alternating, medians compared: a single pair varies by
# +-10% on a 2-core machine.
declare -A runs
for rep in 1 2 3; do
  for jobs in 1 2; do
    out=$(mktemp -d)
    /usr/bin/time -f "%e %M" -o /tmp/pulse-bench.time /tmp/pulse-bench sweep "${args[@]}" -o "$out/r" --jobs $jobs >/dev/null 2>&1
    read -r s kb < /tmp/pulse-bench.time
    runs[$jobs]="${runs[$jobs]:-} $s"
    printf 'jobs %d, run %d: %s s, %.1f points/s, peak RSS %d MB\n' $jobs $rep "$s" "$(echo "1005 / $s" | bc -l)" $((kb / 1024))
    cp "$out/r/results.csv" "/tmp/pulse-bench-$jobs.csv"
    rm -rf "$out"
  done
done
cmp -s /tmp/pulse-bench-1.csv /tmp/pulse-bench-2.csv && echo "results.csv identical with 1 and 2 jobs"
median() { printf '%s\n' $1 | sort -n | sed -n 2p; }
m1=$(median "${runs[1]}"); m2=$(median "${runs[2]}")
printf 'medians: jobs 1 %s s, jobs 2 %s s; parallel efficiency with 2 jobs: %.1f%%\n' "$m1" "$m2" "$(echo "100 * $m1 / (2 * $m2)" | bc -l)"
