package engine

import (
	"context"
	"fmt"
	"sync"
)

// Model is an immutable snapshot of a support set with one weight per vector
// and output: output o is f_o(x) = Σᵢ w_{o,i}·κ(x, sᵢ). A binary classifier
// or a regressor has one output, a multi-class classifier one per class. A
// Model is safe for concurrent use by any number of goroutines; each call
// borrows scratch from a pool, so scoring allocates nothing in steady state.
// It keeps the storage of the set it came from (Storage) and scores
// exactly as that set would.
type Model struct {
	view
	vs      vectors
	outputs int
	stride  int       // slots per weight column: Len padded to whole tiles
	weights []float32 // column-major, output o at [o*stride, (o+1)*stride), zero past Len
	scratch sync.Pool // of *Scratch
	// feat, when set, makes the model linear over its random Fourier
	// features (NewFeatureModel): stride is then the features' length and
	// there are no support vectors.
	feat *Features
}

// Snapshot freezes the set into a Model of k outputs. The set's columns
// form groups of k, one column per output, and the weight of vector i for
// output o is Σ_g scales[g]·w_{g·k+o}[i] in float64 (missing scales count
// as 1): a binary or regression learner with one column passes k = 1; a
// multi-class learner with one column per class passes k = classes; one
// that keeps two separately scaled groups of weights (BOGD's free and
// capped weights) has 2k columns and passes two scales.
func (s *Set) Snapshot(k int, scales ...float64) (*Model, error) {
	if k < 1 || s.cols%k != 0 {
		return nil, fmt.Errorf("engine: snapshot: %d columns do not form groups of %d outputs", s.cols, k)
	}
	if groups := s.cols / k; len(scales) > groups {
		return nil, fmt.Errorf("engine: snapshot: %d scales for %d groups of columns", len(scales), groups)
	}
	mix := make([][]float64, k)
	for o := range mix {
		mix[o] = make([]float64, s.cols)
		for c := o; c < s.cols; c += k {
			mix[o][c] = 1
			if g := c / k; g < len(scales) {
				mix[o][c] = scales[g]
			}
		}
	}
	return s.SnapshotLinear(mix)
}

// SnapshotLinear freezes the set into a Model of len(mix) outputs whose
// weight for vector i and output o is Σ_c mix[o][c]·w_c[i], computed in
// float64: any linear map of the columns (NOGD's second phase folds its
// linear model into its landmarks' columns this way). Every row of mix
// has one coefficient per column.
func (s *Set) SnapshotLinear(mix [][]float64) (*Model, error) {
	w, err := s.mixWeights(mix)
	if err != nil {
		return nil, err
	}
	return &Model{view: s.view, vs: s.vs.frozen(), outputs: len(mix), stride: s.vs.Padded(), weights: w}, nil
}

// mixWeights returns the weights of a Model of len(mix) outputs (see
// SnapshotLinear), column-major with Padded slots per output.
func (s *Set) mixWeights(mix [][]float64) ([]float32, error) {
	if len(mix) == 0 {
		return nil, fmt.Errorf("engine: snapshot: no outputs")
	}
	n, padded := s.vs.Len(), s.vs.Padded()
	w := make([]float32, len(mix)*padded)
	for o, row := range mix {
		if len(row) != s.cols {
			return nil, fmt.Errorf("engine: snapshot: output %d mixes %d columns of %d", o, len(row), s.cols)
		}
		out := w[o*padded : o*padded+n]
		for i := range out {
			var sum float64
			for c, coef := range row {
				if coef != 0 {
					sum += coef * float64(s.weights[c*s.stride+i])
				}
			}
			out[i] = float32(sum)
		}
	}
	return w, nil
}

// Len returns the number of support vectors.
func (m *Model) Len() int { return m.vs.Len() }

// Dim returns the dimension of the vectors.
func (m *Model) Dim() int { return m.dim }

// Sigma returns the kernel width.
func (m *Model) Sigma() float64 { return m.sigma }

// Outputs returns the number of outputs (scores per query).
func (m *Model) Outputs() int { return m.outputs }

// Storage returns how the model stores its vectors: DenseStorage or
// SparseStorage.
func (m *Model) Storage() Storage { return m.vs.storage() }

// Weight returns the weight of support vector i for output o.
func (m *Model) Weight(o, i int) float32 {
	if o < 0 || o >= m.outputs {
		panic(fmt.Sprintf("engine: output %d out of range [0,%d)", o, m.outputs))
	}
	return m.weights[o*m.stride : o*m.stride+m.vs.Len()][i]
}

// Vector copies support vector i into dst (resized to Dim) and returns it:
// O(Dim) whatever the storage.
func (m *Model) Vector(i int, dst []float32) []float32 {
	m.check(i)
	return m.vs.dense(i, dst)
}

// SupportVector copies support vector i in the form the model stores it
// (see Set.SupportVector) and returns it.
func (m *Model) SupportVector(i int, buf Vector) Vector {
	m.check(i)
	return m.vs.supportVector(i, buf)
}

func (m *Model) check(i int) {
	if i < 0 || i >= m.vs.Len() {
		panic(fmt.Sprintf("engine: support vector %d out of range [0,%d)", i, m.vs.Len()))
	}
}

// Score returns f(x) of output 0.
func (m *Model) Score(x Vector) (float64, error) {
	if err := x.validate(m.dim); err != nil {
		return 0, fmt.Errorf("engine: score: %w", err)
	}
	sc := m.borrow()
	defer m.scratch.Put(sc)
	return m.score(x, sc), nil
}

// Scores writes f_o(x) of every output o into dst (resized to Outputs) and
// returns it: one kernel pass for all the outputs.
func (m *Model) Scores(x Vector, dst []float64) ([]float64, error) {
	if err := x.validate(m.dim); err != nil {
		return nil, fmt.Errorf("engine: score: %w", err)
	}
	if cap(dst) < m.outputs {
		dst = make([]float64, m.outputs)
	}
	dst = dst[:m.outputs]
	sc := m.borrow()
	defer m.scratch.Put(sc)
	m.scores(x, sc, dst)
	return dst, nil
}

// ScoreBatch writes f_o(xs[k]) of every output o into
// dst[k*Outputs()+o] (len(dst) ≥ len(xs)·Outputs()), as Scores does for
// one query, on one borrowed scratch. It stops with ctx's error, which it
// checks before the first query and every 256 queries; on an error the
// scores of the queries before the one it names are written. Goroutines
// may each score a part of a large batch at once.
func (m *Model) ScoreBatch(ctx context.Context, xs []Vector, dst []float64) error {
	if len(dst) < len(xs)*m.outputs {
		return fmt.Errorf("engine: score batch: %d scores for %d queries of %d outputs", len(dst), len(xs), m.outputs)
	}
	sc := m.borrow()
	defer m.scratch.Put(sc)
	for k, x := range xs {
		if err := stopped(ctx, k, len(xs)); err != nil {
			return err
		}
		if err := x.validate(m.dim); err != nil {
			return fmt.Errorf("engine: score query %d: %w", k, err)
		}
		m.scores(x, sc, dst[k*m.outputs:(k+1)*m.outputs])
	}
	return nil
}

// score evaluates output 0 of x on sc, leaving the kernel values in sc.
func (m *Model) score(x Vector, sc *Scratch) float64 {
	var sum [1]float32
	m.evaluate(x, sc, sum[:])
	return sc.factor * float64(sum[0])
}

// scores evaluates every output of x on sc into dst.
func (m *Model) scores(x Vector, sc *Scratch, dst []float64) {
	sums := sc.sumBuf(m.outputs)
	m.evaluate(x, sc, sums)
	for o, v := range sums {
		dst[o] = sc.factor * float64(v)
	}
}

// evaluate writes the first len(sums) outputs of x, divided by sc.factor,
// into sums.
func (m *Model) evaluate(x Vector, sc *Scratch, sums []float32) {
	if m.feat != nil {
		m.featureScores(x, sc, sums)
		sc.factor = 1
		return
	}
	sc.factor = m.view.evaluate(sc, &x, m.vs, m.weights, m.stride, sums)
}

func (m *Model) borrow() *Scratch {
	sc, ok := m.scratch.Get().(*Scratch)
	if !ok {
		sc = new(Scratch)
	}
	sc.fit(m.stride)
	return sc
}
