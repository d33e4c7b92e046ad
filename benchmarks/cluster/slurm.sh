#!/usr/bin/env bash
# A bogdbench study (paper or lsokl) on a Slurm cluster: two job arrays and a
# merge, chained by dependencies.
#
#   select  array of N tasks: --phase select --shard auto, one results file each
#   report  array of N tasks, after every select task succeeded (afterok):
#           --phase report --shard auto, reading every selection file
#   merge   one job after the report array: `bogdbench merge` of all the shard
#           files into OUT/STUDY-runs.jsonl, then --phase tables (report, plots)
#
# Run it from a directory every node sees, with bogdbench on PATH (or in
# $BOGDBENCH); it submits the three jobs, prints their IDs and returns:
#
#   benchmarks/cluster/slurm.sh [-n TASKS] [-c CPUS] [-r] -o OUT STUDY [FLAGS...]
#   benchmarks/cluster/slurm.sh -n 16 -c 2 -o /scratch/paper paper --datasets /data/bogd
#
# -n  tasks per array (default 16); -c  CPUs per task, the --workers of each
# (default 1); -o  directory of the results, the report and the logs (OUT/logs);
# -r  continue the run in OUT: after a cancelled or failed task (the dependent
# jobs are then cancelled), submit the same command with -r; each task skips
# the passes its file holds. FLAGS go to every step and must not change.
# sbatch's own SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT and the like
# apply to every job. The tasks always run with --resume, so that a task Slurm
# requeues (node failure) continues its file.
set -euo pipefail

# In a job: `slurm.sh --task PHASE OUT TASKS CPUS STUDY FLAGS...`, as submitted below.
if [ "${1-}" = --task ]; then
  phase=$2 out=$3 n=$4 cpus=$5 study=$6
  shift 6
  bin=${BOGDBENCH:-bogdbench}
  run=("$bin" "$study" --out "$out" --workers "$cpus")
  case $phase in
  select) exec "${run[@]}" --phase select --shard auto --resume "$@" ;;
  report) exec "${run[@]}" --phase report --shard auto --resume --read "$out/$study-select-*-of-$n.jsonl" "$@" ;;
  merge)
    "$bin" merge --out "$out/$study-runs.jsonl" "$out/$study"-select-*-of-"$n".jsonl "$out/$study"-report-*-of-"$n".jsonl
    exec "${run[@]}" --phase tables "$@"
    ;;
  esac
  echo "slurm.sh: unknown phase $phase" >&2
  exit 2
fi

usage() {
  echo "usage: slurm.sh [-n TASKS] [-c CPUS] [-r] -o OUT paper|lsokl [FLAGS...]" >&2
  exit 2
}
n=16 cpus=1 out="" resume=""
while getopts n:c:o:r opt; do
  case $opt in
  n) n=$OPTARG ;;
  c) cpus=$OPTARG ;;
  o) out=$OPTARG ;;
  r) resume=1 ;;
  *) usage ;;
  esac
done
shift $((OPTIND - 1))
if [ -z "$out" ] || [ $# -lt 1 ]; then usage; fi
study=$1
shift
case $study in
paper | lsokl) ;;
*) echo "slurm.sh: the study is paper or lsokl, not $study (tune: see benchmarks/README.md)" >&2; exit 2 ;;
esac
[[ $n =~ ^[1-9][0-9]*$ && $cpus =~ ^[1-9][0-9]*$ ]] || { echo "slurm.sh: -n and -c are positive integers" >&2; exit 2; }
for flag in "$@"; do
  name=${flag#-}
  case $flag in -*) name=${name#-} ;; *) continue ;; esac
  case ${name%%=*} in
  out | phase | shard | results | read | resume | workers)
    echo "slurm.sh: $flag is the script's to set (-o, -r, -c)" >&2
    exit 2
    ;;
  esac
done
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
shopt -s nullglob
earlier=("$out/$study"-*-of-*.jsonl)
if [ ${#earlier[@]} -gt 0 ] && [ -z "$resume" ]; then
  echo "slurm.sh: $out holds the results of an earlier run (${earlier[0]}, ...): pass -r to continue it, or choose another -o" >&2
  exit 1
fi

# The script file itself is each job's script: sbatch copies it when it submits.
submit() { sbatch --parsable "$@" | cut -d';' -f1; }
args=("$out" "$n" "$cpus" "$study" "$@")
sel=$(submit --job-name=bogd-select --array="0-$((n - 1))" --cpus-per-task="$cpus" \
  --output="$out/logs/%x-%A_%a.out" "$0" --task select "${args[@]}")
rep=$(submit --job-name=bogd-report --array="0-$((n - 1))" --cpus-per-task="$cpus" \
  --dependency="afterok:$sel" --kill-on-invalid-dep=yes \
  --output="$out/logs/%x-%A_%a.out" "$0" --task report "${args[@]}")
mrg=$(submit --job-name=bogd-merge --cpus-per-task=1 \
  --dependency="afterok:$rep" --kill-on-invalid-dep=yes \
  --output="$out/logs/%x-%j.out" "$0" --task merge "${args[@]}")
echo "select=$sel report=$rep merge=$mrg"
