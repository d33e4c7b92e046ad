package experiment

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bogd-project/bogd/bogd"
)

// Cell is one (dataset, algorithm, budget) of a table.
type Cell struct {
	Dataset string
	Algo    bogd.Algorithm
	Budget  int // 0 for algorithms without a budget
}

func (c Cell) String() string {
	if c.Budget == 0 {
		return fmt.Sprintf("%s/%s", c.Dataset, c.Algo)
	}
	return fmt.Sprintf("%s/%s/B=%d", c.Dataset, c.Algo, c.Budget)
}

// Streams of permutations: parameter selection and reported runs draw their
// permutations from different seeds, so that no reported permutation is ever
// used to choose parameters.
const (
	StreamSelect = "select"
	StreamReport = "report"
)

// Key identifies a job: one pass of one algorithm with one parameter
// setting over one permutation. Two records with the same key and rule
// version must have the same outcome (apart from time and the SIMD
// implementation). The fields after Projection are those of the tasks
// and rules that came after binary classification: zero in the jobs of
// binary rules, whose keys stay as they were.
type Key struct {
	Dataset, Algorithm   string
	Budget               int
	Eta, LambdaT2, Gamma float64
	Stream               string
	Run                  int
	Seed                 uint64
	Sigma                float64
	Projection           string

	Task      string  // TaskName: "" for binary
	Scaling   string  // how the data were scaled: "" (as read), ScalingMinMax or ScalingMaxAbs
	Epsilon   float64 // the regression ε
	Nu        float64 // NORMA's ν
	C         float64 // BPA-S's C
	Rank      int     // NOGD's k
	Features  int     // FOGD's D
	AbsLambda float64 // λ given directly by the grid (LambdaT2 is then 0)
}

// String names a job for messages.
func (k Key) String() string {
	s := fmt.Sprintf("%s/%s", k.Dataset, k.Algorithm)
	if k.Budget > 0 {
		s += fmt.Sprintf("/B=%d", k.Budget)
	}
	lambda := fmt.Sprintf("lambda*T^2=%g", k.LambdaT2)
	if k.AbsLambda != 0 {
		lambda = fmt.Sprintf("lambda=%g", k.AbsLambda)
	}
	s += fmt.Sprintf(" eta=%g %s gamma=%g sigma=%g", k.Eta, lambda, k.Gamma, k.Sigma)
	for _, f := range []struct {
		name  string
		value float64
	}{{"C", k.C}, {"epsilon", k.Epsilon}, {"nu", k.Nu}, {"rank", float64(k.Rank)}, {"features", float64(k.Features)}} {
		if f.value != 0 {
			s += fmt.Sprintf(" %s=%g", f.name, f.value)
		}
	}
	if k.Task != "" {
		s += " " + k.Task
	}
	if k.Scaling != "" {
		s += " " + k.Scaling
	}
	return s + fmt.Sprintf(" %s run %d seed %d", k.Stream, k.Run, k.Seed)
}

// Ranking is the order of datasets in the stable order of jobs and of
// merged results files; datasets it does not name come after, by name.
type Ranking []string

// Compare orders keys: dataset rank, algorithm, budget, parameters,
// stream, seed, run. Shards are slices of this order, so it must not
// change (the fields that came with new tasks compare after the older
// parameters, and are zero in older jobs).
func (r Ranking) Compare(a, b Key) int {
	return cmp.Or(
		cmp.Compare(r.rank(a.Dataset), r.rank(b.Dataset)),
		cmp.Compare(a.Dataset, b.Dataset),
		cmp.Compare(a.Algorithm, b.Algorithm),
		cmp.Compare(a.Budget, b.Budget),
		cmp.Compare(a.LambdaT2, b.LambdaT2),
		cmp.Compare(a.Eta, b.Eta),
		cmp.Compare(a.Gamma, b.Gamma),
		cmp.Compare(a.Sigma, b.Sigma),
		cmp.Compare(a.Projection, b.Projection),
		cmp.Compare(a.Task, b.Task),
		cmp.Compare(a.Scaling, b.Scaling),
		cmp.Compare(a.AbsLambda, b.AbsLambda),
		cmp.Compare(a.C, b.C),
		cmp.Compare(a.Epsilon, b.Epsilon),
		cmp.Compare(a.Nu, b.Nu),
		cmp.Compare(a.Rank, b.Rank),
		cmp.Compare(a.Features, b.Features),
		cmp.Compare(a.Stream, b.Stream),
		cmp.Compare(a.Seed, b.Seed),
		cmp.Compare(a.Run, b.Run),
	)
}

func (r Ranking) rank(dataset string) int {
	if i := slices.Index(r, dataset); i >= 0 {
		return i
	}
	return len(r)
}

// Job is one pass to run.
type Job struct {
	Cell   Cell
	Params Params
	Key    Key
}

// Cost estimates the relative time of one pass of cell c over rows rows:
// rows times the support vectors scored per row, times the cost of an
// update. The scheduler starts the most expensive jobs first.
func Cost(c Cell, rows int) float64 {
	n, b := float64(rows), float64(c.Budget)
	switch c.Algo {
	case bogd.Perceptron:
		return n * n * 0.15
	case bogd.OGD, bogd.NORMA:
		return n * n * 0.4
	case bogd.BSGDMerge: // a merge searches every partner
		return 20 * n * b
	case bogd.Projectron:
		return n * b * (1 + b/4)
	case bogd.ProjectronPP:
		return n * b * (1 + b/2)
	case bogd.BOGDpp:
		return 2 * n * b
	}
	return n * b
}

// Shard is the slice K (0-based) of N of a sorted job list: job i belongs
// to it when i mod N = K.
type Shard struct{ K, N int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// ParseShard reads "k/n" with 0 ≤ k < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return Shard{}, fmt.Errorf("a shard is k/n with 0 <= k < n, got %q", s)
	}
	return Shard{k, n}, nil
}

// Of keeps the jobs of the shard; the zero Shard keeps all.
func (s Shard) Of(jobs []Job) []Job {
	if s.N <= 1 {
		return jobs
	}
	var out []Job
	for i, j := range jobs {
		if i%s.N == s.K {
			out = append(out, j)
		}
	}
	return out
}
