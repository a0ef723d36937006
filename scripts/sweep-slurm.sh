#!/bin/bash
# A Pulse sweep as a Slurm array job: one shard per array task (docs/sweeps.md).
#   jobid=$(sbatch --parsable scripts/sweep-slurm.sh)
#   sbatch --dependency=afterok:$jobid --wrap "pulse sweep merge -o sweep-results/all sweep-results/shard-*"
# SPEC and OUT may be set in the environment (sbatch --export=ALL,SPEC=...).
#SBATCH --job-name=pulse-sweep
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --time=02:00:00
#SBATCH --output=sweep-%A_%a.log
set -euo pipefail
SPEC=${SPEC:-examples/sweeps/transformer_mxu_hbm.yaml}
OUT=${OUT:-sweep-results}
PULSE=${PULSE:-pulse}
# --resume: a requeued or time-limited task continues where it stopped.
"$PULSE" sweep "$SPEC" -o "$OUT/shard-$SLURM_ARRAY_TASK_ID" --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --shard $((SLURM_ARRAY_TASK_ID+1))/$SLURM_ARRAY_TASK_COUNT --resume
