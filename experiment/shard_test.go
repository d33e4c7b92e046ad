package experiment

import (
	"strconv"
	"strings"
	"testing"
)

// slurmArray is the environment Slurm gives task id of an array
// lo-hi:step of count tasks (as Slurm 22.05 sets it, measured).
func slurmArray(id, lo, hi, step, count string) map[string]string {
	return map[string]string{EnvSlurmTaskID: id, EnvSlurmTaskMin: lo, EnvSlurmTaskMax: hi, EnvSlurmTaskStep: step, EnvSlurmTaskCount: count}
}

func TestSchedulerShard(t *testing.T) {
	with := func(env map[string]string, more ...string) map[string]string {
		out := map[string]string{}
		for k, v := range env {
			out[k] = v
		}
		for i := 0; i < len(more); i += 2 {
			out[more[i]] = more[i+1]
		}
		return out
	}
	for _, c := range []struct {
		name string
		env  map[string]string
		want Shard
		err  string // a part of the error, when one is wanted
	}{
		{"array 0-3", slurmArray("2", "0", "3", "1", "4"), Shard{2, 4}, ""},
		{"array 1-16, first", slurmArray("1", "1", "16", "1", "16"), Shard{0, 16}, ""},
		{"array 1-16, last", slurmArray("16", "1", "16", "1", "16"), Shard{15, 16}, ""},
		{"array 0-6:2", slurmArray("4", "0", "6", "2", "4"), Shard{2, 4}, ""},
		{"array without a step", slurmArray("3", "0", "3", "", "4"), Shard{3, 4}, ""},
		{"array of one", slurmArray("0", "0", "0", "1", "1"), Shard{0, 1}, ""},
		{"array list 0,3,7", slurmArray("3", "0", "7", "1", "3"), Shard{}, "are not evenly spaced, so they name no shard: submit --array=0-2, or set BOGD_SHARDS=n"},
		{"resubmitted 3,7 of 16", with(slurmArray("7", "3", "7", "1", "2"), EnvShards, "16"), Shard{7, 16}, ""},
		{"task beyond BOGD_SHARDS", with(slurmArray("7", "3", "7", "1", "2"), EnvShards, "4"), Shard{}, "SLURM_ARRAY_TASK_ID=7 is not below BOGD_SHARDS=4: the shards are 0..3"},
		{"array without a count", slurmArray("1", "0", "3", "1", ""), Shard{}, `SLURM_ARRAY_TASK_COUNT="" is not an integer`},
		{"array id not a number", slurmArray("x", "0", "3", "1", "4"), Shard{}, `SLURM_ARRAY_TASK_ID="x" is not an integer`},
		{"indexed job", map[string]string{EnvCompletionIdx: "3", EnvShards: "4"}, Shard{3, 4}, ""},
		{"indexed job without BOGD_SHARDS", map[string]string{EnvCompletionIdx: "3"}, Shard{}, "JOB_COMPLETION_INDEX is set but BOGD_SHARDS is not"},
		{"indexed job beyond BOGD_SHARDS", map[string]string{EnvCompletionIdx: "4", EnvShards: "4"}, Shard{}, "JOB_COMPLETION_INDEX=4 is not below BOGD_SHARDS=4"},
		{"zero shards", map[string]string{EnvCompletionIdx: "0", EnvShards: "0"}, Shard{}, `BOGD_SHARDS="0" is not an integer of at least 1`},
		{"negative index", map[string]string{EnvCompletionIdx: "-1", EnvShards: "2"}, Shard{}, `JOB_COMPLETION_INDEX="-1"`},
		{"nothing", map[string]string{EnvShards: "4"}, Shard{}, "looked for a Slurm job array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT, SLURM_ARRAY_TASK_MIN) and a Kubernetes Indexed Job (JOB_COMPLETION_INDEX with BOGD_SHARDS)"},
	} {
		got, err := SchedulerShard(func(k string) string { return c.env[k] })
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%s: %v, %v; want %v", c.name, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, %v; want an error with %q", c.name, got, err, c.err)
		}
	}
}

// Every task of an array 1..n gets a different shard, and together they
// cover 0..n-1: each job runs exactly once.
func TestSchedulerShardsCoverTheArray(t *testing.T) {
	const n = 5
	seen := map[Shard]bool{}
	for id := 1; id <= n; id++ {
		env := slurmArray(strconv.Itoa(id), "1", strconv.Itoa(n), "1", strconv.Itoa(n))
		s, err := SchedulerShard(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		seen[s] = true
	}
	for k := range n {
		if !seen[Shard{k, n}] {
			t.Errorf("no task ran shard %d/%d", k, n)
		}
	}
}
