#!/usr/bin/env bash
# The sweep throughput benchmark of docs/performance.md: a 1,005-point sweep
# of the 1024^3 bf16 GEMM (5 array sizes x 3 dataflows x 67 HBM bandwidths on
# tpuv4core) with each number of workers given (default: 1 2), wall time,
# peak RSS, points per second and the parallel efficiency (the median time
# with 1 job on one core / (N x the median with N)). The 1-job runs are held
# to one core (GOMAXPROCS=1): a sweep also expands its grid and compiles
# ahead on the other cores, and the baseline is one core's throughput.
#
#   bench/sweep/run.sh            # 1 and 2 jobs, 3 runs each
#   REPS=6 bench/sweep/run.sh 1 2 4 8 16
#
# The runs alternate between the job counts and medians are compared: on
# shared or small machines a single run varies by 10-40%.
set -euo pipefail
cd "$(dirname "$0")/../.."
go build -o /tmp/pulse-bench ./cmd/pulse
args=(examples/hlo/gemm1024_bf16.hlo --chip tpuv4core --axis mxu.rows=16:256:x2 --axis mxu.cols=16:256:x2
  --zip mxu.rows,mxu.cols --axis mxu.dataflow=ws,os,is --axis hbm.bandwidth_gbps=50:3350:50)
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(1 2)
[[ " ${counts[*]} " == *" 1 "* ]] || counts=(1 "${counts[@]}")
reps=${REPS:-3}
declare -A runs
for rep in $(seq "$reps"); do
  for jobs in "${counts[@]}"; do
    out=$(mktemp -d)
    procs=$([ "$jobs" = 1 ] && echo 1 || nproc)
    GOMAXPROCS=$procs /usr/bin/time -f "%e %M" -o /tmp/pulse-bench.time /tmp/pulse-bench sweep "${args[@]}" -o "$out/r" --jobs "$jobs" >/dev/null 2>&1
    read -r s kb < /tmp/pulse-bench.time
    runs[$jobs]="${runs[$jobs]:-} $s"
    printf 'jobs %d, run %d: %s s, %.1f points/s, peak RSS %d MB\n' "$jobs" "$rep" "$s" "$(echo "1005 / $s" | bc -l)" $((kb / 1024))
    cp "$out/r/results.csv" "/tmp/pulse-bench-$jobs.csv"
    rm -rf "$out"
  done
done
median() { printf '%s\n' $1 | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
m1=$(median "${runs[1]}")
for jobs in "${counts[@]}"; do
  cmp -s /tmp/pulse-bench-1.csv "/tmp/pulse-bench-$jobs.csv" || { echo "results.csv with $jobs jobs differs from 1 job's" >&2; exit 1; }
  m=$(median "${runs[$jobs]}")
  printf 'jobs %2d: median %6.2f s, %.1f points/s, parallel efficiency %.1f%%\n' "$jobs" "$m" "$(echo "1005 / $m" | bc -l)" "$(echo "100 * $m1 / ($jobs * $m)" | bc -l)"
done
echo "results.csv identical with every job count"
