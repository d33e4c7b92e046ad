package experiment

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/dataset"
)

// germanPath is the bundled copy of shared/datasets/german.svm.gz.
const germanPath = "../dataset/testdata/german.svm.gz"

func german(t *testing.T) *dataset.Dataset {
	t.Helper()
	d, err := dataset.ReadFile(germanPath, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// scripted is an Online that makes a mistake on the rows it lists.
type scripted struct {
	wrong map[int]bool
	steps int
}

func (s *scripted) Step(row int) (Loss, error) {
	s.steps++
	return Loss{Mistake: s.wrong[row]}, nil
}

func (s *scripted) SupportVectors() int { return s.steps / 2 }

func TestPassCountsAndCheckpoints(t *testing.T) {
	order := []int{4, 0, 3, 1, 2}
	s := &scripted{wrong: map[int]bool{0: true, 2: true}}
	res, err := Pass(context.Background(), s, order, []int{1, 2, 5})
	if err != nil {
		t.Fatal(err)
	}
	// Row 0 is second, row 2 last: 0 mistakes after 1 row, 1 after 2, 2 after 5.
	if res.Mistakes != 2 || res.SupportVectors != 2 || !slices.Equal(res.Checkpoints, []int{0, 1, 2}) || !(res.Seconds >= 0) {
		t.Fatalf("%+v", res)
	}
	if res, _ := Pass(context.Background(), &scripted{}, order, nil); res.Checkpoints != nil {
		t.Fatalf("checkpoints %v without positions", res.Checkpoints)
	}
}

func TestPassStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s := &scripted{}
	if _, err := Pass(ctx, s, make([]int, 5000), nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled pass: %v", err)
	}
	if s.steps != 1023 {
		t.Fatalf("%d steps before noticing the cancellation, want 1023", s.steps)
	}
}

// The binary adapter is exactly a loop of Observe calls, and its errors
// name the dataset and the 1-based row.
func TestClassifierIsObserve(t *testing.T) {
	data := german(t)
	n := data.Len()
	cfg := bogd.Config{Dim: data.Dim, Budget: 50, Sigma: 8, Eta: 0.25, Lambda: 1 / float64(n*n), Gamma: 1, Seed: LearnerSeed(1, 0)}
	order := Permutation(1, 0, n)
	a, _ := bogd.New(bogd.BOGDpp, cfg)
	res, err := Pass(context.Background(), Classifier(a, data), order, Checkpoints(n))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := bogd.New(bogd.BOGDpp, cfg)
	mistakes := 0
	for _, row := range order {
		loss, err := Classifier(b, data).Step(row)
		if err != nil {
			t.Fatal(err)
		}
		if loss.Mistake {
			mistakes++
		}
	}
	if res.Mistakes != mistakes || res.SupportVectors != b.SupportVectors() || res.Checkpoints[len(res.Checkpoints)-1] != mistakes {
		t.Fatalf("pass %+v, loop %d mistakes, %d support vectors", res, mistakes, b.SupportVectors())
	}
	narrow, _ := bogd.New(bogd.RBP, bogd.Config{Dim: 3, Budget: 10, Sigma: 8})
	if _, err := Classifier(narrow, data).Step(6); err == nil || !strings.HasPrefix(err.Error(), "german.svm.gz row 7: ") {
		t.Fatalf("a row wider than the learner: %v", err)
	}
}

// Stored results depend on the permutations and learner seeds: their
// values are pinned.
func TestPermutationAndSeedsNeverChange(t *testing.T) {
	if got := Permutation(1, 0, 10); !slices.Equal(got, []int{6, 3, 1, 9, 7, 4, 8, 2, 0, 5}) {
		t.Errorf("Permutation(1, 0, 10) = %v", got)
	}
	if got := Permutation(1<<32+1, 2, 8); !slices.Equal(got, []int{5, 1, 7, 2, 4, 0, 6, 3}) {
		t.Errorf("Permutation(2^32+1, 2, 8) = %v", got)
	}
	if got := LearnerSeed(1, 0); got != 11400714819323198486 {
		t.Errorf("LearnerSeed(1, 0) = %d", got)
	}
	if got := LearnerSeed(1<<32+1, 3); got != 2126250766343240729 {
		t.Errorf("LearnerSeed(2^32+1, 3) = %d", got)
	}
}

func TestCheckpoints(t *testing.T) {
	for _, n := range []int{1, 7, 100, 1000, 271617} {
		at := Checkpoints(n)
		if len(at) != min(n, CheckpointCount) || at[len(at)-1] != n || at[0] < 1 || !slices.IsSorted(at) {
			t.Fatalf("Checkpoints(%d) = %v", n, at)
		}
	}
	if got := Checkpoints(250)[:3]; !slices.Equal(got, []int{3, 5, 8}) {
		t.Fatalf("Checkpoints(250) starts %v, want ⌈2.5⌉, ⌈5⌉, ⌈7.5⌉", got)
	}
}

func TestMeanStdAndSummarize(t *testing.T) {
	if m, s := MeanStd([]float64{2, 4, 4, 4, 5, 5, 7, 9}); m != 5 || math.Abs(s-2.138089935299395) > 1e-12 {
		t.Errorf("MeanStd: %v, %v (want the n−1 deviation 2.138)", m, s)
	}
	if m, s := MeanStd([]float64{3}); m != 3 || s != 0 {
		t.Errorf("one value: %v, %v", m, s)
	}
	if m, s := MeanStd(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("no value: %v, %v", m, s)
	}
	s := Summarize([]Result{{Mistakes: 10, SupportVectors: 4, Seconds: 1}, {Mistakes: 30, SupportVectors: 6, Seconds: 3}}, 200)
	if s.Runs != 2 || s.MistakeRate != 10 || math.Abs(s.MistakeRateStd-math.Sqrt(50)) > 1e-12 || s.SupportVectors != 5 || s.Seconds != 2 {
		t.Errorf("Summarize: %+v", s)
	}
}
