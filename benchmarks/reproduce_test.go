package benchmarks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
	"github.com/bogd-project/bogd/experiment/paper"
	"github.com/bogd-project/bogd/simd"
	"github.com/bogd-project/bogd/task"
)

// datasetsDir holds the studies' datasets, beside the repository.
const datasetsDir = "../../shared/datasets"

// smallRows bounds the passes TestResultsReproduce runs again: every
// dataset up to this size, so that the test takes seconds.
const smallRows = 5000

// TestResultsReproduce runs again, with this build, a pass of every
// algorithm on every small dataset of each committed results file, and
// compares it with the record: a change of arithmetic that kept its rule
// version (TestResultsAreThisBuildsRules sees only versions) fails here,
// naming the file and the job. Records of other versions are left to that
// test, and records of another SIMD implementation than this build's are
// not compared (their rounding differs).
func TestResultsReproduce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs passes again: not with -short")
	}
	if _, err := os.Stat(datasetsDir); err != nil {
		t.Skipf("the studies' datasets are not in %s (%v): no pass is run again", datasetsDir, err)
	}
	for _, path := range resultsFiles(t) {
		t.Run(path, func(t *testing.T) {
			t.Parallel()
			reproduceFile(t, path)
		})
	}
}

// reproduceFile runs again the first pass in key order of every small
// dataset and algorithm of the results file at path.
func reproduceFile(t *testing.T, path string) {
	load := studyData(path)
	if load == nil {
		t.Logf("benchmarks/%s: no study reads it here, its passes are not run again", path)
		return
	}
	set := experiment.NewResultSet()
	if _, err := set.Load(path, func(string) {}); err != nil {
		t.Fatalf("benchmarks/%s: %v", path, err)
	}
	type cell struct{ dataset, algorithm string }
	picked := map[cell]*experiment.Record{}
	other := 0
	for _, r := range set.Sorted(nil) {
		c := cell{r.Dataset, r.Algorithm}
		switch _, ok := picked[c]; {
		case ok || r.Rows > smallRows:
		case r.SIMD != simd.Active().String():
			other++ // implementations round differently
		default:
			picked[c] = r
		}
	}
	if other > 0 {
		t.Logf("benchmarks/%s: %d small records of another SIMD implementation than this build's %v are not run again", path, other, simd.Active())
	}
	var names []string
	for c := range picked {
		names = append(names, c.dataset)
	}
	data, err := load(names)
	if err != nil {
		t.Fatalf("benchmarks/%s: %v", path, err)
	}
	ran := 0
	for _, r := range picked {
		if data[r.Dataset] == nil {
			t.Logf("benchmarks/%s: %s is not read here: %s not run again", path, r.Dataset, r.Key())
			continue
		}
		if err := reproduce(r, data[r.Dataset]); err != nil {
			t.Errorf("benchmarks/%s: %v", path, err)
		}
		ran++
	}
	t.Logf("benchmarks/%s: %d passes run again", path, ran)
}

// reproduce runs the job of r over data and compares the outcomes.
func reproduce(r *experiment.Record, data *dataset.Dataset) error {
	a, err := bogd.ParseAlgorithm(r.Algorithm)
	if err != nil {
		return err
	}
	job := experiment.Job{Cell: experiment.Cell{Dataset: r.Dataset, Algo: a, Budget: r.Budget}, Key: r.Key()}
	got, err := experiment.RunJob(context.Background(), job, data)
	if err != nil {
		return fmt.Errorf("%s: %w", r.Key(), err)
	}
	want := r.Result
	got.Seconds, want.Seconds = 0, 0
	if got.Rule != r.Rule || got.Rows != r.Rows || got.Lambda != r.Lambda || !sameResult(got.Result, want) {
		return fmt.Errorf("%s: this build computes %s (rule %d), the record %s (rule %d): a change of arithmetic without a new rule version (bogd ruleVersions)?",
			r.Key(), outcome(r.Task, got.Result), got.Rule, outcome(r.Task, want), r.Rule)
	}
	return nil
}

func sameResult(a, b experiment.Result) bool {
	return a.Mistakes == b.Mistakes && a.SquaredError == b.SquaredError && a.SupportVectors == b.SupportVectors &&
		a.DivergedAt == b.DivergedAt && slices.Equal(a.Checkpoints, b.Checkpoints) && slices.Equal(a.ErrorCheckpoints, b.ErrorCheckpoints)
}

func outcome(taskName string, r experiment.Result) string {
	if taskName == experiment.TaskName(task.Regression) {
		return fmt.Sprintf("squared error %g, %d support vectors", r.SquaredError, r.SupportVectors)
	}
	return fmt.Sprintf("%d mistakes, %d support vectors", r.Mistakes, r.SupportVectors)
}

// studyData returns how the study that wrote the results file at path
// reads its datasets, or nil for a file of no known study.
func studyData(path string) func(names []string) (map[string]*dataset.Dataset, error) {
	ignore := func(string) {}
	dir, file := filepath.Split(path)
	switch {
	case strings.HasPrefix(file, "paper"):
		return func(names []string) (map[string]*dataset.Dataset, error) {
			o := &paper.Options{DatasetsDir: datasetsDir}
			for _, name := range names {
				if d, ok := paper.Lookup(name); ok {
					o.Datasets = append(o.Datasets, d)
				}
			}
			return o.LoadData(ignore)
		}
	case strings.HasPrefix(file, "lsokl"):
		table, err := lsokl.Lookup(filepath.Base(dir))
		if err != nil {
			return nil
		}
		return func(names []string) (map[string]*dataset.Dataset, error) {
			o := &lsokl.Options{Table: table, DatasetsDir: datasetsDir}
			for _, name := range names {
				if d, ok := table.Dataset(name); ok {
					o.Datasets = append(o.Datasets, d)
				}
			}
			return o.LoadData(ignore)
		}
	}
	return nil
}
