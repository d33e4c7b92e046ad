package bogd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/bogd-project/bogd/simd"
)

// The top-k eigenpairs of NOGD's landmark kernel matrix come from randomized
// subspace iteration with a Rayleigh–Ritz step: Halko, Martinsson, Tropp,
// "Finding structure with randomness: probabilistic algorithms for
// constructing approximate matrix decompositions", SIAM Review 53(2), 2011,
// Algorithm 4.4 (an orthonormal basis X of the range of A^q·Ω, Ω an n×l
// Gaussian block, re-orthonormalised after every product) followed by
// Algorithm 5.3 (the eigendecomposition of XᵀAX).
//
// With l = k + oversampling columns, the work is q+1 products of the n×n
// matrix with an n×l block and q QR factorisations of n×l blocks, all
// level-3 BLAS, plus one l×l symmetric eigendecomposition: at n = 1000 and
// k = 200 less than half the flops of the dense eigendecomposition with
// vectors, at a better rate (matrix products, against the dense solver's
// level-2 tridiagonal reduction and column-wise rotations). The products
// are simd.MatMul64's, which has the bits of gonum's Dgemm (gemm); the QR
// factorisations and the small eigendecompositions are gonum's LAPACK
// (with its own Dgemm calls inside), most of what remains: on codrna at
// B = 1000 the transition took 374–404 ms with Dgemm's products and
// 220–264 ms with MatMul64's (two cores, BenchmarkNOGDTransition, three
// alternating rounds).
//
// A pair's eigenvalue converges like (λ_{l+1}/λ_j)^(2q). Where the
// spectrum is flat past the cut (isolated landmarks, or a narrow kernel:
// eigenvalues close to each other on both sides of the k-th), the last
// pairs before the cut do not converge in a few powers, and which of the
// nearly equal eigenvectors they mix changes what NOGD learns (spambase at
// σ = 8, B = 1000: 0.5 points more mistakes than with the dense solver). So
// when the Ritz values show such a spectrum (θ_l > eigenFlat·θ_k), topEigen
// discards them and runs the dense solver: the Gram matrices of fast
// decaying spectra (codrna at σ = 8, B = 1000: θ_l ≈ 0.14·θ_k) take the
// fast path. TestTopEigenSharedData states how far the pairs are from
// gonum's dense solver.
const (
	// eigenPowers is q: X spans A^q·Ω.
	eigenPowers = 3
	// eigenOversampling is l − k as a fraction of k (rounded up).
	eigenOversampling = 0.5
	// eigenFlat is the largest ratio θ_l/θ_k of the smallest Ritz value to
	// the k-th for which topEigen keeps its Ritz pairs (their eigenvalues
	// then within about eigenFlat^(2q) ≈ 10⁻³ of the dense solver's);
	// above it the dense solver runs.
	eigenFlat = 0.3
	// eigenFlatEarly is a bound on the same ratio after the first power,
	// which is lower (θ_k converges first): 0.56–0.87 on the flattest
	// spectra of the shared data sets, which it leaves to the dense solver
	// without the other powers; at most 0.19 on those that pass eigenFlat.
	eigenFlatEarly = 0.5
)

// nystromStream is the second PCG seed word of NOGD's random start block Ω:
// the first is Config.Seed, so that the transition draws the same Ω in a
// learner that was saved before it and loaded.
const nystromStream = 0x6e_79_73_74

// topEigen returns the k largest eigenvalues of the symmetric positive
// semi-definite n×n matrix a (row-major, both triangles set; a is
// overwritten) in descending order, and their orthonormal eigenvectors as the
// columns of an n×k row-major matrix: subspaceEigen's, its start block drawn
// from rng, unless its block would exceed half of n (then the dense
// eigendecomposition, LAPACK's dsyev as gonum's Dsyev, is cheaper) or the
// spectrum is flat past the cut (then the dense solver runs after it).
func topEigen(a []float64, n, k int, rng *rand.Rand) (values, vectors []float64, err error) {
	if 2*eigenBlock(k) <= n {
		values, vectors, converged, err := subspaceEigen(a, n, k, rng)
		if err != nil || converged {
			return values, vectors, err
		}
	}
	return denseTopEigen(a, n, k)
}

// subspaceEigen is randomized subspace iteration (see above) with a block of
// l = eigenBlock(k) ≤ n columns, leaving a unchanged. converged reports
// θ_l ≤ eigenFlat·θ_k, θ_l/θ_k estimating λ_{l+1}/λ_k, or θ_l below
// NOGD's cut; otherwise the spectrum is too flat past the cut for q powers
// to converge the last pairs.
func subspaceEigen(a []float64, n, k int, rng *rand.Rand) (values, vectors []float64, converged bool, err error) {
	l := eigenBlock(k)
	A := blas64.General{Rows: n, Cols: n, Stride: n, Data: a}
	x := blas64.General{Rows: n, Cols: l, Stride: l, Data: make([]float64, n*l)}
	y := blas64.General{Rows: n, Cols: l, Stride: l, Data: make([]float64, n*l)}
	for i := range x.Data {
		x.Data[i] = rng.NormFloat64()
	}
	tau := make([]float64, l)
	work := make([]float64, 1)
	lapack64.Geqrf(x, tau, work, -1)
	lwork := int(work[0])
	lapack64.Orgqr(x, tau, work, -1)
	lwork = max(lwork, int(work[0]))
	work = make([]float64, lwork)
	gemm(false, A, x, y) // Y = AΩ
	t := blas64.Symmetric{N: l, Stride: l, Data: make([]float64, l*l), Uplo: blas.Upper}
	for q := range eigenPowers {
		// X = orth(Y), Y = AX: the last product also serves Rayleigh–Ritz.
		lapack64.Geqrf(y, tau, work, lwork)
		lapack64.Orgqr(y, tau, work, lwork)
		x, y = y, x
		gemm(false, A, x, y)
		if q == 0 {
			// The Ritz values of one power already tell a very flat
			// spectrum: leave it to the dense solver without the others.
			theta, err := ritz(x, y, t, lapack.EVNone)
			if err != nil || flat(theta, k, eigenFlatEarly) {
				return nil, nil, false, err
			}
		}
	}
	// Rayleigh–Ritz: T = XᵀAX = XᵀY = SΘSᵀ, the Ritz vectors XS.
	theta, err := ritz(x, y, t, lapack.EVCompute)
	if err != nil {
		return nil, nil, false, err
	}
	s := blas64.General{Rows: l, Cols: k, Stride: k, Data: make([]float64, l*k)}
	values = make([]float64, k)
	for j := range k {
		e := l - 1 - j // ascending: the j-th largest
		values[j] = theta[e]
		for r := range l {
			s.Data[r*k+j] = t.Data[r*l+e]
		}
	}
	u := blas64.General{Rows: n, Cols: k, Stride: k, Data: make([]float64, n*k)}
	gemm(false, x, s, u)
	return values, u.Data, !flat(theta, k, eigenFlat), nil
}

// gemm sets c to a·b, or aᵀ·b when aTrans, with the bits of gonum's
// blas64.Gemm(op, blas.NoTrans, 1, a, b, 0, c) (simd.MatMul64 adds in its
// order, about five times faster on one core: BenchmarkMatMul64), the rows
// of c shared among the processors from gemmSplit multiply-adds on: each
// element is summed whole by one of them, so the split changes no bit.
func gemm(aTrans bool, a, b, c blas64.General) {
	m, n, k := c.Rows, c.Cols, b.Rows
	parts := max(1, min(runtime.GOMAXPROCS(0), m*n*k/gemmSplit, m))
	rows := ((m+parts-1)/parts + simd.MatMulRows - 1) / simd.MatMulRows * simd.MatMulRows
	part := func(i0 int) {
		i1 := min(m, i0+rows)
		ai := a.Data[i0*a.Stride:]
		if aTrans {
			ai = a.Data[i0:]
		}
		simd.MatMul64(c.Data[i0*c.Stride:], c.Stride, ai, a.Stride, aTrans, b.Data, b.Stride, i1-i0, n, k)
	}
	var wg sync.WaitGroup
	for i0 := rows; i0 < m; i0 += rows {
		wg.Go(func() { part(i0) })
	}
	part(0)
	wg.Wait()
}

// gemmSplit is the number of multiply-adds from which gemm shares a
// product among processors: about two milliseconds of one core's work, well
// above the cost of starting a goroutine.
const gemmSplit = 1 << 25

// ritz returns the eigenvalues (ascending) of T = XᵀY for Y = AX, and with
// job lapack.EVCompute leaves its eigenvectors in t.
func ritz(x, y blas64.General, t blas64.Symmetric, job lapack.EVJob) ([]float64, error) {
	gemm(true, x, y, blas64.General{Rows: t.N, Cols: t.N, Stride: t.Stride, Data: t.Data})
	return syev(t, job)
}

// flat reports whether ascending Ritz values theta show a spectrum too flat
// past the k-th for the iteration: θ_l > ratio·θ_k, unless θ_l lies at or
// below NOGD's cut (pairs there are dropped, converged or not).
func flat(theta []float64, k int, ratio float64) bool {
	l := len(theta)
	return theta[0] > ratio*theta[l-k] && theta[0] > nystromCut*theta[l-1]
}

// eigenBlock is l, the width of topEigen's block for k eigenpairs.
func eigenBlock(k int) int { return k + int(math.Ceil(float64(k)*eigenOversampling)) }

// denseTopEigen is topEigen by the dense eigendecomposition.
func denseTopEigen(a []float64, n, k int) (values, vectors []float64, err error) {
	t := blas64.Symmetric{N: n, Stride: n, Data: a, Uplo: blas.Upper}
	all, err := syev(t, lapack.EVCompute)
	if err != nil {
		return nil, nil, err
	}
	values, vectors = make([]float64, k), make([]float64, n*k)
	for j := range k {
		e := n - 1 - j
		values[j] = all[e]
		for r := range n {
			vectors[r*k+j] = t.Data[r*n+e]
		}
	}
	return values, vectors, nil
}

// syev returns the eigenvalues of t (upper triangle read) in ascending
// order; with job lapack.EVCompute it replaces t by its eigenvectors, one per
// column.
func syev(t blas64.Symmetric, job lapack.EVJob) ([]float64, error) {
	w := make([]float64, t.N)
	work := make([]float64, 1)
	lapack64.Syev(job, t, w, work, -1)
	work = make([]float64, int(work[0]))
	if !lapack64.Syev(job, t, w, work, len(work)) {
		return nil, fmt.Errorf("the eigendecomposition of a %d×%d symmetric matrix did not converge", t.N, t.N)
	}
	return w, nil
}
