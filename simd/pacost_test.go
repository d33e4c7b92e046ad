package simd_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// refPACosts is PACosts written as BPA-S states it, in float64 with
// math.Max and math.Abs; the products are rounded one by one (float64()
// keeps a compiler from fusing them), as PACosts promises. It returns the
// costs, the first index of the least (by a second pass, as BPA-S once
// found it: −1 when the least is +Inf) and the least.
func refPACosts(kernels []float32, alpha []float64, p simd.PACost, n int) ([]float64, int, float64) {
	q := make([]float64, n)
	least := math.Inf(1)
	for r := range q {
		kr := p.Factor * float64(kernels[r])
		a := alpha[r]
		beta := float64(a*kr) + p.Step
		fr := p.Score - float64(a*kr) + beta
		u := p.Offset + float64(p.Slope*fr)
		if p.Abs {
			u = math.Abs(u)
		}
		loss := u - p.Epsilon
		if !math.IsNaN(loss) && loss < 0 {
			loss = 0
		}
		q[r] = (float64(a*a)+float64(beta*beta)-float64(2*kr*float64(a*beta)))/2 + float64(p.C*loss)
		if q[r] < least {
			least = q[r]
		}
	}
	best := slices.Index(q, least)
	if math.IsInf(least, 1) {
		best = -1
	}
	return q, best, least
}

// checkPACosts runs PACosts on guarded, misaligned (by skew) copies of its
// inputs (kernels and alpha may be longer than q: the rest is not read, so
// it is NaN) and requires refPACosts's bits, costs, least and its index.
// It returns the costs.
func checkPACosts(tb testing.TB, what string, kernels []float32, alpha []float64, p simd.PACost, n, skew int) []float64 {
	tb.Helper()
	k := make([]float32, n+skew%3)
	a := make([]float64, n+skew%3)
	copy(k, kernels[:n])
	copy(a, alpha[:n])
	for i := n; i < len(k); i++ {
		k[i], a[i] = nan[float32](), nan[float64]()
	}
	kg := newGuarded(k, nan[float32](), skew)
	ag := newGuarded(a, nan[float64](), skew+1)
	qg := newOutput[float64](n, skew+2)
	best, least := simd.PACosts(qg.s(), kg.s(), ag.s(), p)
	kg.checkInput(tb, what+" kernels")
	ag.checkInput(tb, what+" alpha")
	qg.check(tb, what+" q")
	want, wantBest, wantLeast := refPACosts(kernels, alpha, p, n)
	if !sameBits(qg.s(), want) {
		for r := range want {
			if math.Float64bits(qg.s()[r]) != math.Float64bits(want[r]) {
				tb.Fatalf("%s: q[%d] = %v, want %v (k %v, a %v)", what, r, qg.s()[r], want[r], kernels[r], alpha[r])
			}
		}
	}
	if least != wantLeast && !(least == 0 && wantLeast == 0) {
		tb.Fatalf("%s: least %v, want %v", what, least, wantLeast)
	}
	if best != wantBest {
		tb.Fatalf("%s: least at %d, want %d", what, best, wantBest)
	}
	return qg.s()
}

// paCostCases are the example scalars of the PACosts tests: binary (a
// hinge loss), regression (an absolute loss with ε), a cost without loss
// (C = 0), and scales far from 1.
func paCostCases(r *rand.Rand) []simd.PACost {
	return []simd.PACost{
		{Factor: 1, Step: 0.7, Score: 0.3, Offset: 1, Slope: -1, C: 1},
		{Factor: 1, Step: -1, Score: -2.5, Offset: 1, Slope: 1, C: 10},
		{Factor: 0.5, Step: 0.25, Score: r.NormFloat64(), Offset: r.NormFloat64(), Slope: -1, Epsilon: 0.1, Abs: true, C: 1},
		{Factor: 3, Step: r.NormFloat64(), Score: r.NormFloat64(), Offset: 1, Slope: -1, C: 0},
		{Factor: 1e-30, Step: 1e20, Score: -1e10, Offset: 1, Slope: 1, C: 1e-5},
	}
}

func TestEquivPACosts(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		r := rand.New(rand.NewPCG(31, 32))
		skew := 0
		for _, n := range append(vectorCounts(), 1000, 1003) {
			kernels := randVecs(r, 1, n, r.Float32)[0]
			alpha := make([]float64, n)
			for i := range alpha {
				alpha[i] = r.NormFloat64()
			}
			if n > 3 {
				kernels[1], alpha[2] = 0, 0 // k = 0 and a = 0: cost a²/2 and β = step
				alpha[3] = math.Copysign(0, -1)
			}
			for c, p := range paCostCases(r) {
				checkPACosts(t, fmt.Sprintf("n=%d case %d skew=%d", n, c, skew), kernels, alpha, p, n, skew)
				skew++
			}
		}
	})
}

// The least skips NaN costs and is +Inf (at −1) when every cost is NaN or
// +Inf; ties keep equal values, whichever zero, and the first of them.
func TestPACostsSpecial(t *testing.T) {
	simdtest.ForEachImpl(t, func(t *testing.T, impl simd.Impl) {
		for _, n := range []int{1, 8, 9, 24, 37} {
			kernels := make([]float32, n)
			alpha := make([]float64, n)
			for i := range kernels {
				kernels[i], alpha[i] = 1, 1
			}
			p := simd.PACost{Factor: 1, Step: 1, Score: 0, Offset: 1, Slope: -1, C: 1}
			kernels[n/2] = nan[float32]() // one NaN cost among equal ones
			q := checkPACosts(t, fmt.Sprintf("NaN n=%d", n), kernels, alpha, p, n, n%4)
			if !math.IsNaN(q[n/2]) {
				t.Fatalf("n=%d: q[%d] = %v, want NaN", n, n/2, q[n/2])
			}
			if n > 1 {
				first := 0
				if n/2 == 0 {
					first = 1
				}
				if best, least := simd.PACosts(q, kernels, alpha, p); least != q[(n/2+1)%n] || best != first {
					t.Fatalf("n=%d: least %v at %d beside a NaN, want %v at %d", n, least, best, q[(n/2+1)%n], first)
				}
			}
			for i := range kernels {
				kernels[i] = nan[float32]()
			}
			if best, least := simd.PACosts(q, kernels, alpha, p); !math.IsInf(least, 1) || best != -1 {
				t.Fatalf("n=%d: least of NaN costs %v at %d, want +Inf at -1", n, least, best)
			}
			for i := range kernels {
				kernels[i] = 1
			}
			p.Offset = math.NaN() // a NaN loss stays NaN: max(0, ·) must not clear it
			q = checkPACosts(t, fmt.Sprintf("NaN loss n=%d", n), kernels, alpha, p, n, n%4)
			if best, least := simd.PACosts(q, kernels, alpha, p); !math.IsInf(least, 1) || best != -1 || !math.IsNaN(q[0]) {
				t.Fatalf("n=%d: a NaN loss gives q[0] = %v and least %v at %d, want NaN and +Inf at -1", n, q[0], least, best)
			}
			p.Offset, p.Step = 1, math.Inf(1)
			for i := range kernels {
				kernels[i] = 0
			}
			if best, least := simd.PACosts(q, kernels, alpha, p); !math.IsInf(least, 1) || best != -1 {
				t.Fatalf("n=%d: least of +Inf costs %v at %d, want +Inf at -1", n, least, best)
			}
		}
		if best, least := simd.PACosts(nil, nil, nil, simd.PACost{}); !math.IsInf(least, 1) || best != -1 {
			t.Fatalf("least of no costs %v at %d, want +Inf at -1", least, best)
		}
	})
}

func TestPACostsShort(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("PACosts with kernels shorter than q did not panic")
		}
	}()
	simd.PACosts(make([]float64, 9), make([]float32, 8), make([]float64, 9), simd.PACost{})
}

func FuzzPACosts(f *testing.F) {
	f.Add([]byte{17, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{63, 3, 0xff, 0x7f, 30, 0, 0x80, 30})
	f.Add([]byte{1, 11, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		d := &decoder{b: data}
		n := d.intn(70)
		elo := -40 + d.intn(60)
		value := func() float64 { return d.value64(elo, elo+20) }
		kernels := make([]float32, n)
		alpha := make([]float64, n)
		for i := range kernels {
			kernels[i] = float32(math.Abs(d.value64(-30, 0)))
			alpha[i] = value()
		}
		p := simd.PACost{Factor: math.Abs(value()), Step: value(), Score: value(), Offset: value(), Slope: value(), Epsilon: math.Abs(value()), Abs: d.intn(2) == 0, C: math.Abs(value())}
		skew := d.intn(4)
		// Every implementation gives refPACosts's bits: a tolerance of 0.
		implsAgree(t, make([]float64, n), func(t *testing.T) []float64 {
			return checkPACosts(t, "fuzz input", kernels, alpha, p, n, skew)
		})
	})
}

// BenchmarkPACosts measures the replacement costs of BPA-S over B support
// vectors, with the scalar loop of the generic implementation as the
// baseline (impl=generic).
func BenchmarkPACosts(b *testing.B) {
	r := rand.New(rand.NewPCG(33, 34))
	simdtest.ForEachImplB(b, func(b *testing.B, impl simd.Impl) {
		for _, budget := range []int{100, 1000} {
			b.Run(fmt.Sprintf("budget=%d", budget), func(b *testing.B) {
				kernels := randVecs(r, 1, budget, r.Float32)[0]
				alpha := make([]float64, budget)
				for i := range alpha {
					alpha[i] = r.NormFloat64()
				}
				q := make([]float64, budget)
				p := simd.PACost{Factor: 1, Step: 0.5, Score: 0.2, Offset: 1, Slope: -1, C: 1}
				var sink float64
				for b.Loop() {
					best, least := simd.PACosts(q, kernels, alpha, p)
					sink += least + float64(best)
				}
				if math.IsNaN(sink) {
					b.Fatal("NaN")
				}
			})
		}
	})
}
