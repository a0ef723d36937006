#!/usr/bin/env bash
# Times pulse scalesim on the two layers SCALE-Sim v3 was timed on (the
# figures in docs/performance.md): a 1024^3 GEMM on one 128x128 array and a
# 4096x1024x1024 GEMM on 32x32, weight-stationary, CALC bandwidth mode; with
# and without the ifmap/filter DRAM columns (--dram-reads). Prints wall time
# and peak RSS of each run. Usage: bench/scalesim/run.sh [PULSE_BINARY]
set -euo pipefail
cd "$(dirname "$0")/../.."
pulse=${1:-}
if [ -z "$pulse" ]; then
  pulse=$(mktemp -d)/pulse
  go build -o "$pulse" ./cmd/pulse
fi
work=$(mktemp -d)
cfg() { # rows cols
  cat > "$work/$1x$2.cfg" <<CFG
[general]
run_name = bench_$1x$2

[architecture_presets]
ArrayHeight:    $1
ArrayWidth:     $2
IfmapSramSzkB:   1024
FilterSramSzkB:  1024
OfmapSramSzkB:   1024
IfmapOffset:    0
FilterOffset:   10000000
OfmapOffset:    20000000
Bandwidth : 10
Dataflow : ws
MemoryBanks:   1
ReadRequestBuffer: 512
WriteRequestBuffer: 512

[run_presets]
InterfaceBandwidth: CALC
UseRamulatorTrace: False
CFG
}
cfg 128 128
cfg 32 32
printf 'Layer, M, N, K,\ng1024, 1024, 1024, 1024,\n' > "$work/g1024.csv"
printf 'Layer, M, N, K,\ng4096, 4096, 1024, 1024,\n' > "$work/g4096.csv"
for run in "128x128 g1024" "32x32 g4096"; do
  set -- $run
  for dram in false true; do
    /usr/bin/time -f "$1 $2 --dram-reads=$dram: %e s wall, %M KB peak RSS" \
      "$pulse" scalesim -c "$work/$1.cfg" -t "$work/$2.csv" -p "$work/out" -i gemm --dram-reads=$dram > /dev/null 2> "$work/err" || { cat "$work/err"; exit 1; }
    tail -1 "$work/err"
    grep -h "^1, \|^0, " "$work/out/bench_$1/COMPUTE_REPORT.csv" | head -1
  done
done
rm -rf "$work"
