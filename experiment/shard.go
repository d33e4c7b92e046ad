package experiment

import (
	"fmt"
	"strconv"
)

// The environment variables SchedulerShard reads: a Slurm job array's,
// a Kubernetes Indexed Job's, and the shard count a manifest (or a user
// resubmitting some tasks of an array) sets.
const (
	EnvSlurmTaskID    = "SLURM_ARRAY_TASK_ID"
	EnvSlurmTaskCount = "SLURM_ARRAY_TASK_COUNT"
	EnvSlurmTaskMin   = "SLURM_ARRAY_TASK_MIN"
	EnvSlurmTaskMax   = "SLURM_ARRAY_TASK_MAX"
	EnvSlurmTaskStep  = "SLURM_ARRAY_TASK_STEP"
	EnvCompletionIdx  = "JOB_COMPLETION_INDEX"
	EnvShards         = "BOGD_SHARDS"
)

// SchedulerShard is the shard of this process as a cluster scheduler
// set it in the environment (read through getenv), so that one job
// script serves every task of an array:
//
//   - a Slurm job array: task SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT,
//     counted from SLURM_ARRAY_TASK_MIN in steps of SLURM_ARRAY_TASK_STEP
//     (an array 1-16 is the shards 0..15 of 16). The task IDs must be
//     evenly spaced: a list such as 0,3,7 names no slice of n.
//   - with BOGD_SHARDS = n set as well, the array's task IDs are the shard
//     indices themselves, 0..n-1: resubmitting tasks 3 and 7 of 16 is
//     `sbatch --array=3,7` with BOGD_SHARDS=16.
//   - a Kubernetes Indexed Job: JOB_COMPLETION_INDEX (0-based) of
//     BOGD_SHARDS, which the manifest sets to the Job's completions.
//
// With none of these it is an error naming the variables it looked for.
func SchedulerShard(getenv func(string) string) (Shard, error) {
	num := func(name string, min int) (int, error) {
		v, err := strconv.Atoi(getenv(name))
		if err != nil || v < min {
			return 0, fmt.Errorf("%s=%q is not an integer of at least %d", name, getenv(name), min)
		}
		return v, nil
	}
	shards := func() (int, error) { return num(EnvShards, 1) }
	index := func(name string, n int) (Shard, error) {
		k, err := num(name, 0)
		if err != nil {
			return Shard{}, err
		}
		if k >= n {
			return Shard{}, fmt.Errorf("%s=%d is not below %s=%d: the shards are 0..%d", name, k, EnvShards, n, n-1)
		}
		return Shard{K: k, N: n}, nil
	}
	switch {
	case getenv(EnvSlurmTaskID) != "" && getenv(EnvShards) != "":
		n, err := shards()
		if err != nil {
			return Shard{}, err
		}
		return index(EnvSlurmTaskID, n)
	case getenv(EnvSlurmTaskID) != "":
		return slurmShard(getenv, num)
	case getenv(EnvCompletionIdx) != "":
		if getenv(EnvShards) == "" {
			return Shard{}, fmt.Errorf("%s is set but %s is not: the Indexed Job must set %s to its completions", EnvCompletionIdx, EnvShards, EnvShards)
		}
		n, err := shards()
		if err != nil {
			return Shard{}, err
		}
		return index(EnvCompletionIdx, n)
	}
	return Shard{}, fmt.Errorf("no scheduler shard in the environment: looked for a Slurm job array (%s, %s, %s) and a Kubernetes Indexed Job (%s with %s)",
		EnvSlurmTaskID, EnvSlurmTaskCount, EnvSlurmTaskMin, EnvCompletionIdx, EnvShards)
}

// slurmShard reads the shard of a Slurm array task from the array's IDs.
func slurmShard(getenv func(string) string, num func(name string, min int) (int, error)) (Shard, error) {
	id, count, lo, hi, step := 0, 0, 0, 0, 1
	vars := []struct {
		p    *int
		name string
		min  int
	}{{&id, EnvSlurmTaskID, 0}, {&count, EnvSlurmTaskCount, 1}, {&lo, EnvSlurmTaskMin, 0}, {&hi, EnvSlurmTaskMax, 0}, {&step, EnvSlurmTaskStep, 1}}
	for _, v := range vars {
		if v.name == EnvSlurmTaskStep && getenv(v.name) == "" {
			continue // a range without a step
		}
		var err error
		if *v.p, err = num(v.name, v.min); err != nil {
			return Shard{}, fmt.Errorf("a Slurm array task: %w", err)
		}
	}
	if (id-lo)%step != 0 || id < lo || id > hi || (hi-lo)/step+1 != count {
		return Shard{}, fmt.Errorf("the Slurm array's task IDs (%s=%d, %s=%d, %s=%d, %s=%d, this task %d) are not evenly spaced, so they name no shard: submit --array=0-%d, or set %s=n and use the task IDs 0..n-1",
			EnvSlurmTaskMin, lo, EnvSlurmTaskMax, hi, EnvSlurmTaskStep, step, EnvSlurmTaskCount, count, id, count-1, EnvShards)
	}
	return Shard{K: (id - lo) / step, N: count}, nil
}
