#!/usr/bin/env bash
# The memory pr suite as a Slurm job array: one array task per shard, then a merge that
# gates the result like a single run. Submit from a checkout with gaia-eval on PATH:
#   jobid=$(sbatch --parsable docs/examples/scale/slurm-array.sh)
#   sbatch --dependency=afterok:"$jobid" --wrap "$(sed -n 's/^# merge: //p' docs/examples/scale/slurm-array.sh)"
# merge: gaia-eval merge "${RESULTS:-runs}"/shard-1 "${RESULTS:-runs}"/shard-2 "${RESULTS:-runs}"/shard-3 --out "${RESULTS:-runs}"/merged --gate builtin:memory/pr
# tests/test_lanes.py renders these commands for N = 3 and runs them on one machine.
#SBATCH --job-name=gaia-eval-memory-pr
#SBATCH --array=1-3
#SBATCH --cpus-per-task=2
#SBATCH --time=00:30:00
set -euo pipefail
shards=3
results="${RESULTS:-runs}"
gaia-eval memory --suite pr --shard "${SLURM_ARRAY_TASK_ID}/${shards}" \
  --out "${results}/shard-${SLURM_ARRAY_TASK_ID}"
