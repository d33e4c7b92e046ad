package bogd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/bogd-project/bogd/dataset"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// eigenReport compares topEigen's k pairs of the n×n PSD matrix a with
// gonum's dense solver (mat.EigenSym).
type eigenReport struct {
	dense         bool    // topEigen ran the dense solver: its values are EigenSym's bits
	kept, leading int     // pairs above NOGD's cut (10⁻¹⁰ of the largest); of those, the leading ones (λ_j ≥ 10·λ_{l+1})
	leadValue     float64 // largest relative eigenvalue error of the leading pairs
	allValue      float64 // … of every kept pair
	above         float64 // largest θ_j − λ_j over λ_1 (Ritz values do not exceed the eigenvalues)
	leadVector    float64 // largest sine of the angle between a leading Ritz vector and EigenSym's eigenspace of its eigenvalue (a cluster within 10⁻⁶)
	nystrom       float64 // ‖A − AU·Θ⁻¹·UᵀA‖₂ over the optimal λ_{kept+1}: the Nyström approximation of the kept pairs' span
}

func (r eigenReport) String() string {
	path := "subspace iteration"
	if r.dense {
		path = "dense"
	}
	return fmt.Sprintf("%s; kept %d, leading %d: eigenvalue rel. error leading %.1e, all %.1e; above %.0e; vector sine leading %.1e; Nyström error ×%.4f of the optimum",
		path, r.kept, r.leading, r.leadValue, r.allValue, r.above, r.leadVector, r.nystrom)
}

func compareEigen(t *testing.T, a []float64, n, k int, seed uint64) eigenReport {
	t.Helper()
	sym := mat.NewSymDense(n, slices.Clone(a))
	var dense mat.EigenSym
	if !dense.Factorize(sym, true) {
		t.Fatal("EigenSym failed")
	}
	lambda := dense.Values(nil) // ascending
	var v mat.Dense
	dense.VectorsTo(&v)
	theta, u, err := topEigen(slices.Clone(a), n, k, rand.New(rand.NewPCG(seed, nystromStream)))
	if err != nil {
		t.Fatal(err)
	}
	lam := func(j int) float64 { return lambda[n-1-j] } // the j-th largest, 0-based
	var r eigenReport
	r.dense = true
	for j, v := range theta {
		r.dense = r.dense && v == lam(j)
	}
	cut := eigenBlock(k)
	for j := range k {
		if theta[j] <= 1e-10*theta[0] {
			break
		}
		r.kept = j + 1
		// relative to λ_j, or to the rounding of A's products (n·ε·λ_1)
		rel := math.Abs(theta[j]-lam(j)) / max(lam(j), float64(n)*0x1p-52*lam(0))
		r.allValue = max(r.allValue, rel)
		r.above = max(r.above, (theta[j]-lam(j))/lam(0))
		if cut >= n || lam(j) < 10*lam(cut) {
			continue
		}
		r.leading = j + 1
		r.leadValue = max(r.leadValue, rel)
		// ‖u_j‖² − ‖projection of u_j on the cluster's eigenvectors‖²
		var proj float64
		for i := range n {
			if math.Abs(lambda[i]-lam(j)) <= 1e-6*lam(j) {
				var d float64
				for m := range n {
					d += u[m*k+j] * v.At(m, i)
				}
				proj += d * d
			}
		}
		r.leadVector = max(r.leadVector, math.Sqrt(max(0, 1-proj)))
	}
	// Nyström error: the largest eigenvalue of A − (AU)Θ⁻¹(AU)ᵀ over the kept pairs.
	au := mat.NewDense(n, r.kept, nil)
	um := mat.NewDense(n, r.kept, nil)
	for i := range n {
		for j := range r.kept {
			um.Set(i, j, u[i*k+j])
		}
	}
	au.Mul(mat.NewDense(n, n, slices.Clone(a)), um)
	e := mat.NewSymDense(n, nil)
	for i := range n {
		for m := i; m < n; m++ {
			sum := a[i*n+m]
			for j := range r.kept {
				sum -= au.At(i, j) * au.At(m, j) / theta[j]
			}
			e.SetSym(i, m, sum)
		}
	}
	var ee mat.EigenSym
	if !ee.Factorize(e, false) {
		t.Fatal("EigenSym of the Nyström error failed")
	}
	// The optimum is λ_{kept+1}, but no better than the rounding of A's
	// products (n·ε·λ_1).
	if r.kept < n {
		r.nystrom = ee.Values(nil)[n-1] / max(lam(r.kept), float64(n)*0x1p-52*lam(0))
	}
	return r
}

// Tolerances of topEigen against EigenSym (see compareEigen). With q = 3
// powers a pair's eigenvalue converges like (λ_{l+1}/λ_j)^6, at most
// eigenFlat^6 ≈ 7·10⁻⁴ when subspace iteration keeps its pairs (else the
// dense solver gives EigenSym's bits): 7.2·10⁻⁴ is the largest seen
// (spambase, σ = 18, B = 1000). A pair with λ_j ≥ 10·λ_{l+1} converges to
// 10⁻⁶ and its vector to 10⁻³ (1.8·10⁻⁶ and 1.4·10⁻³ seen). The kept
// pairs' Nyström approximation is the best one to 10⁻⁴ in every case.
const (
	eigenLeadValueTol  = 1e-5
	eigenLeadVectorTol = 5e-3
	eigenAllValueTol   = 2e-3
	eigenAboveTol      = 1e-12
	eigenNystromTol    = 1.001
)

func checkEigen(t *testing.T, what string, r eigenReport) {
	t.Helper()
	t.Logf("%s: %v", what, r)
	if r.leadValue > eigenLeadValueTol || r.leadVector > eigenLeadVectorTol || r.allValue > eigenAllValueTol || r.above > eigenAboveTol || r.nystrom > eigenNystromTol {
		t.Errorf("%s: beyond the tolerances (leading eigenvalues %g, vectors %g; all eigenvalues %g; above %g; Nyström ×%g)",
			what, eigenLeadValueTol, eigenLeadVectorTol, eigenAllValueTol, eigenAboveTol, eigenNystromTol)
	}
}

// TestTopEigenSynthetic checks topEigen on matrices of known spectra
// Q·diag(λ)·Qᵀ (Q a random orthogonal matrix): fast decay, a flat cluster
// across the cut, a low rank below it; and the dense fallback (k > n/3).
func TestTopEigenSynthetic(t *testing.T) {
	const n = 300
	spectra := map[string]func(i int) float64{
		"geometric":    func(i int) float64 { return math.Pow(0.9, float64(i)) },
		"flat cluster": func(i int) float64 { return max(1, 50*math.Pow(0.9, float64(i))) * (1 + 1e-9*float64(n-i)) },
		"rank 20":      func(i int) float64 { return map[bool]float64{true: 1 / float64(i+1), false: 0}[i < 20] },
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var q mat.QR
	g := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			g.Set(i, j, rng.NormFloat64())
		}
	}
	q.Factorize(g)
	var orth mat.Dense
	q.QTo(&orth)
	for name, spec := range spectra {
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				var s float64
				for m := range n {
					s += orth.At(i, m) * spec(m) * orth.At(j, m)
				}
				a[i*n+j] = s
			}
		}
		for _, k := range []int{n / 5, n / 2} {
			what := fmt.Sprintf("%s, k = %d", name, k)
			r := compareEigen(t, a, n, k, 1)
			checkEigen(t, what, r)
			// the flat cluster, and k > n/3, need the dense solver
			if want := name == "flat cluster" || k > n/3; r.dense != want {
				t.Errorf("%s: the dense solver ran %v, want %v", what, r.dense, want)
			}
		}
	}
}

// TestTopEigenDeterministic: the same seed gives the same bits, another
// seed another start block.
func TestTopEigenDeterministic(t *testing.T) {
	const n, k = 200, 40
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([][]float64, n)
	for i := range x {
		x[i] = []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	}
	a := make([]float64, n*n)
	for i := range n {
		for j := range n {
			a[i*n+j] = fpKernel(x[i], x[j], 1)
		}
	}
	run := func(seed uint64) ([]float64, []float64) {
		v, u, err := topEigen(slices.Clone(a), n, k, rand.New(rand.NewPCG(seed, nystromStream)))
		if err != nil {
			t.Fatal(err)
		}
		return v, u
	}
	v1, u1 := run(1)
	v2, u2 := run(1)
	if !slices.Equal(v1, v2) || !slices.Equal(u1, u2) {
		t.Fatal("two runs with the same seed differ")
	}
	if _, u3 := run(2); slices.Equal(u1, u3) {
		t.Fatal("another seed gave the same vectors")
	}
}

// TestTopEigenSharedData compares topEigen with EigenSym on the landmark
// kernel matrices NOGD builds (its landmarks after phase 1, one
// permutation, η = 0.2, k = B/5) on the shared data sets: binary german,
// spambase and codrna, multi-class satimage, regression cadata (min-max
// scaled), at B = 100 and 1000 (-short: 100 only), at σ = 8 and the width
// the LSOKL tables selected for NOGD.
func TestTopEigenSharedData(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "datasets")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("../shared/datasets not present (%v): skipping the test on real data", err)
	}
	cases := []struct {
		file   string
		task   task.Task
		scale  bool
		sigmas []float64
	}{
		{"german.svm.gz", task.Binary, false, []float64{8, 30}},
		{"spambase.svm.gz", task.Binary, false, []float64{8, 18}},
		{"codrna.svm.gz", task.Binary, false, []float64{8, 86}},
		{"multiclass/satimage.svm.gz", task.Multiclass, false, []float64{8, 1.4}},
		{"regression/cadata.svm.gz", task.Regression, true, []float64{8, 0.55}},
	}
	paths := map[bool]int{} // cases by whether the dense solver ran
	for _, c := range cases {
		d, err := dataset.ReadFile(filepath.Join(dir, c.file), dataset.Options{Task: c.task})
		if err != nil {
			t.Fatal(err)
		}
		if c.scale {
			if d, _, err = d.ScaleMinMax(true); err != nil {
				t.Fatal(err)
			}
		}
		for _, budget := range []int{100, 1000} {
			if budget > 100 && testing.Short() {
				continue
			}
			if budget >= d.Len() {
				t.Logf("%s B=%d: %d rows cannot fill the budget (NOGD never leaves phase 1)", c.file, budget, d.Len())
				continue
			}
			for _, sigma := range c.sigmas {
				what := fmt.Sprintf("%s B=%d σ=%g", c.file, budget, sigma)
				l := landmarksOf(t, d, budget, sigma)
				gram, err := l.landmarkGram()
				if err != nil {
					t.Fatal(err)
				}
				r := compareEigen(t, gram, l.set.Len(), l.rank, 1)
				checkEigen(t, what, r)
				paths[r.dense]++
			}
		}
	}
	if paths[false] == 0 || paths[true] == 0 {
		t.Errorf("%d cases took subspace iteration, %d the dense solver: the test must see both", paths[false], paths[true])
	}
}

// landmarksOf runs NOGD's phase 1 over a permutation of d until its budget
// is full, and returns the learner.
func landmarksOf(t *testing.T, d *dataset.Dataset, budget int, sigma float64) *nogd {
	t.Helper()
	cfg := Config{Dim: d.Dim, Budget: budget, Rank: budget / 5, Sigma: sigma, Eta: 0.2, Seed: 1}
	switch d.Task {
	case task.Multiclass:
		cfg.Task, cfg.Classes = task.Multiclass, d.Classes
	case task.Regression:
		cfg.Task, cfg.Epsilon = task.Regression, 0.1
	}
	learner := mustNew(t, NOGD, cfg)
	l := learner.b.rule.(*nogd)
	for _, i := range rand.New(rand.NewPCG(1, 0)).Perm(d.Len()) {
		if l.set.Len() == budget {
			return l
		}
		if _, err := learner.Learn(engine.Sparse(d.Row(i)), d.Labels[i]); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatalf("%d rows fill %d of the budget %d", d.Len(), l.set.Len(), budget)
	return nil
}

// TestGemmSplitBits checks that gemm, which shares a product's rows among
// the processors past gemmSplit multiply-adds, gives gonum's Dgemm bits in
// both orientations of a and at sizes around the split (rows that divide
// among the parts unevenly, and not in whole blocks of simd.MatMulRows).
func TestGemmSplitBits(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	fill := func(rows, cols int) blas64.General {
		g := blas64.General{Rows: rows, Cols: cols, Stride: cols + 1, Data: make([]float64, rows*(cols+1))}
		for i := range g.Data {
			g.Data[i] = r.NormFloat64()
		}
		return g
	}
	for _, s := range []struct{ m, n, k int }{{7, 5, 3}, {401, 301, 300}, {599, 257, 250}} {
		for _, trans := range []bool{false, true} {
			a := fill(s.m, s.k)
			tA := blas.NoTrans
			if trans {
				a, tA = fill(s.k, s.m), blas.Trans
			}
			b := fill(s.k, s.n)
			got := blas64.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: make([]float64, s.m*s.n)}
			want := blas64.General{Rows: s.m, Cols: s.n, Stride: s.n, Data: make([]float64, s.m*s.n)}
			gemm(trans, a, b, got)
			blas64.Gemm(tA, blas.NoTrans, 1, a, b, 0, want)
			if s.m*s.n*s.k >= gemmSplit && runtime.GOMAXPROCS(0) < 2 {
				t.Logf("%v: one processor, no split to check", s)
			}
			for i, v := range want.Data {
				if math.Float64bits(got.Data[i]) != math.Float64bits(v) {
					t.Fatalf("%v trans=%v: element (%d, %d) = %v, Dgemm %v", s, trans, i/s.n, i%s.n, got.Data[i], v)
				}
			}
		}
	}
}
