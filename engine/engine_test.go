package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bogd-project/bogd/internal/simdtest"
	"github.com/bogd-project/bogd/simd"
)

// eachImpl runs f once per SIMD implementation (simdtest: one the CPU
// lacks is skipped by name).
func eachImpl(t *testing.T, f func(t *testing.T)) {
	simdtest.ForEachImpl(t, func(t *testing.T, _ simd.Impl) { f(t) })
}

// eachStorage runs f once per storage, as subtest storage=<name>.
func eachStorage(t *testing.T, f func(t *testing.T, storage Storage)) {
	for _, storage := range []Storage{DenseStorage, SparseStorage} {
		t.Run("storage="+storage.String(), func(t *testing.T) { f(t, storage) })
	}
}

// score evaluates x on sc and returns the sum of weight column 0: f(x) of
// a set of one column.
func score(s *Set, sc *Scratch, x Vector) (float64, error) {
	var f [1]float64
	err := s.Evaluate(sc, x, f[:])
	return f[0], err
}

// reference computes Σ wᵢ exp(−‖x−sᵢ‖²/(2σ²)) in float64.
func reference(x []float32, vectors [][]float32, w []float64, sigma float64) (sum float64, k []float64) {
	k = make([]float64, len(vectors))
	for i, s := range vectors {
		var d2 float64
		for j := range x {
			d := float64(x[j]) - float64(s[j])
			d2 += d * d
		}
		k[i] = math.Exp(-d2 / (2 * sigma * sigma))
		sum += w[i] * k[i]
	}
	return sum, k
}

func sparseOf(x []float32) Vector {
	var v Vector
	v.Index, v.Value = []int32{}, []float32{}
	for j, f := range x {
		if f != 0 {
			v.Index = append(v.Index, int32(j))
			v.Value = append(v.Value, f)
		}
	}
	return v
}

// randomPoint draws a point with about density·dim non-zero features drawn
// by gen.
func randomPoint(rng *rand.Rand, dim int, density float64, gen func() float32) []float32 {
	x := make([]float32, dim)
	for j := range x {
		if rng.Float64() < density {
			x[j] = gen()
		}
	}
	return x
}

func TestScoreMatchesReference(t *testing.T) {
	type dataKind struct {
		name    string
		density float64
		gen     func(rng *rand.Rand) float32
		sigma   float64
	}
	kinds := []dataKind{
		{"binary-sparse", 0.04, func(*rand.Rand) float32 { return 1 }, 8},
		{"gaussian-dense", 1, func(r *rand.Rand) float32 { return float32(r.NormFloat64() * 4) }, 8},
		{"scaled-sparse", 0.05, func(r *rand.Rand) float32 { return float32(r.Float64()*2 - 1) }, 1},
		{"raw-large-sparse", 0.05, func(r *rand.Rand) float32 { return float32(r.Float64() * 15841) }, 8},
	}
	eachImpl(t, func(t *testing.T) {
		for _, kind := range kinds {
			for _, dim := range []int{1, 8, 57, 300} {
				rng := rand.New(rand.NewPCG(uint64(dim), 9))
				gen := func() float32 { return kind.gen(rng) }
				set, err := New(dim, kind.sigma, Options{Capacity: 4})
				if err != nil {
					t.Fatal(err)
				}
				var vectors [][]float32
				var weights []float64
				var sc Scratch
				for i := range 53 {
					x := randomPoint(rng, dim, kind.density, gen)
					w := rng.NormFloat64()
					if i%2 == 0 {
						_, err = set.Add(sparseOf(x), float32(w))
					} else {
						_, err = set.Add(Dense(x), float32(w))
					}
					if err != nil {
						t.Fatal(err)
					}
					vectors, weights = append(vectors, x), append(weights, float64(float32(w)))
				}
				for q := range 20 {
					var x []float32
					if q < 5 { // near neighbours: distances small next to norms
						x = append([]float32(nil), vectors[q]...)
						x[0] += 0.5
					} else {
						x = randomPoint(rng, dim, kind.density, gen)
					}
					want, k := reference(x, vectors, weights, kind.sigma)
					for _, v := range []Vector{Dense(x), sparseOf(x)} {
						got, err := score(set, &sc, v)
						if err != nil {
							t.Fatal(err)
						}
						var fTol float64
						kernels, factor := sc.Kernels()
						for i, kv := range kernels {
							tol := kernelTol(k[i], dim, v.IsSparse()) + factor*math.Exp(simd.ExpMin)
							if kv := factor * float64(kv); math.Abs(kv-k[i]) > tol {
								t.Fatalf("%s dim %d query %d sparse=%v: κ[%d] = %v, want %v ± %.3g", kind.name, dim, q, v.IsSparse(), i, kv, k[i], tol)
							}
							fTol += math.Abs(weights[i]) * (tol + float64(len(vectors)/16+20)*0x1p-24*k[i])
						}
						if math.Abs(got-want) > fTol {
							t.Fatalf("%s dim %d query %d: f = %v, want %v ± %.3g", kind.name, dim, q, got, want, fTol)
						}
					}
				}
			}
		}
	})
}

// kernelTol bounds the error of a float32 kernel value whose true value is
// k = e^a (a = −‖x−s‖²/(2σ²)) in dimension dim. The direct distance rounds
// each difference, its square and each of dim additions: at most
// (dim+2)·2⁻²⁴ of ‖x−s‖², so a moves by (dim+2)·2⁻²⁴·|a|, and its product
// with the scale and the offset by two more roundings of |a| (the offset is
// at most |a| when applied, see evaluate); the exponential errs by 2e-7
// relative. The sparse path is taken only when it is exact or within 1e-6
// of the direct one (view.expansionOf). k·|a| ≤ 1/e keeps all this small.
// Values below e^ExpMin times the kernel factor are floored there, an
// absolute error the caller adds.
func kernelTol(k float64, dim int, sparse bool) float64 {
	a := -math.Log(k)
	tol := k * (2e-7 + math.Expm1(float64(dim+4)*0x1p-24*a))
	if sparse {
		tol += 1e-6
	}
	return tol
}

func TestRemoveKeepsWeightsAligned(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		set, _ := New(2, 1, Options{Columns: 2, Storage: storage})
		for i := range 40 {
			set.Add(Dense([]float32{float32(i), 0}), float32(i), float32(-i))
		}
		rng := rand.New(rand.NewPCG(1, 1))
		for set.Len() > 0 {
			set.Remove(rng.IntN(set.Len()))
			var buf []float32
			for i := range set.Len() {
				buf = set.Vector(i, buf)
				if set.WeightColumn(0)[i] != buf[0] || set.WeightColumn(1)[i] != -buf[0] {
					t.Fatalf("vector %v has weights %v, %v", buf, set.WeightColumn(0)[i], set.WeightColumn(1)[i])
				}
			}
		}
	})
}

func TestSumOverSecondColumn(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		set, _ := New(1, 1, Options{Columns: 2, Storage: storage})
		set.Add(Dense([]float32{0}), 1, 2)
		set.Add(Dense([]float32{1}), 3, -1)
		var sc Scratch
		f, _ := score(set, &sc, Dense([]float32{0}))
		var second [1]float64
		set.Sums(&sc, 1, second[:])
		k := math.Exp(-0.5)
		if !closeTo(f, 1+3*k) || !closeTo(second[0], 2-k) {
			t.Fatalf("sums %v, %v", f, second[0])
		}
	})
}

func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-6*(1+math.Abs(b)) }

// relClose reports whether got is within 1e-6 of want relative to want's
// size, for values far below 1 where closeTo's absolute part accepts
// anything. For a non-zero want it implies got is non-zero with want's sign.
func relClose(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Abs(want) }

func TestInvalidInput(t *testing.T) {
	if _, err := New(3, 0, Options{}); err == nil {
		t.Fatal("sigma 0 accepted")
	}
	if _, err := New(3, math.Inf(1), Options{}); err == nil {
		t.Fatal("infinite sigma accepted")
	}
	if _, err := New(0, 1, Options{}); err == nil {
		t.Fatal("dimension 0 accepted")
	}
	bad := []Vector{
		Dense(nil),
		Dense([]float32{}),
		Dense([]float32{1, 2}),
		Dense([]float32{1, float32(math.NaN()), 2}),
		{Dense: []float32{1, 2, 3}, Index: []int32{0}, Value: []float32{1}},
		{Dense: []float32{1, 2, 3}, Value: []float32{}},
		Sparse([]int32{0, 3}, []float32{1, 1}),
		Sparse([]int32{-1}, []float32{1}),
		Sparse([]int32{1, 1}, []float32{1, 1}),
		Sparse([]int32{2, 1}, []float32{1, 1}),
		Sparse([]int32{0}, []float32{1, 2}),
		Sparse([]int32{0}, []float32{float32(math.Inf(-1))}),
		Dense([]float32{1, 2, float32(math.Inf(1))}),
		Sparse([]int32{1}, []float32{float32(math.NaN())}),
		// Full rows, every feature set (validate's own test of them):
		Sparse([]int32{0, 2, 1}, []float32{1, 1, 1}),
		Sparse([]int32{0, 1, 3}, []float32{1, 1, 1}),
		Sparse([]int32{-1, 1, 2}, []float32{1, 1, 1}),
		Sparse([]int32{0, 1, 1}, []float32{1, 1, 1}),
		Sparse([]int32{0, 1, 2}, []float32{1, float32(math.Inf(1)), 1}),
		Sparse([]int32{0, 1, 2}, []float32{1, 1, float32(math.Inf(-1))}),
		Sparse([]int32{0, 1, 2}, []float32{float32(-math.NaN()), 1, 1}),
		Sparse([]int32{0, 1, 2}, []float32{1, 1}),
	}
	for _, storage := range []Storage{DenseStorage, SparseStorage} {
		set, _ := New(3, 1, Options{Storage: storage})
		set.Add(Dense([]float32{1, 0, 2}), 1)
		model, _ := set.Snapshot(1)
		for _, v := range bad {
			for name, call := range map[string]func() error{
				"Add":              func() error { _, err := set.Add(v); return err },
				"Replace":          func() error { return set.Replace(0, v) },
				"Evaluate":         func() error { return set.Evaluate(new(Scratch), v, nil) },
				"Set.ScoreBatch":   func() error { return set.ScoreBatch(context.Background(), []Vector{v}, make([]float64, 1)) },
				"ExactKernels":     func() error { _, err := set.ExactKernels(v, nil); return err },
				"Model.Score":      func() error { _, err := model.Score(v); return err },
				"Model.Scores":     func() error { _, err := model.Scores(v, nil); return err },
				"Model.ScoreBatch": func() error { return model.ScoreBatch(context.Background(), []Vector{v}, make([]float64, 1)) },
			} {
				if err := call(); err == nil {
					t.Errorf("%v storage: %s(%+v) accepted", storage, name, v)
				}
			}
		}
		if set.Len() != 1 || !slices.Equal(set.Vector(0, nil), []float32{1, 0, 2}) {
			t.Fatalf("%v storage: a rejected vector was stored", storage)
		}
	}
	validate := func(v Vector, dim int) error { return v.validate(dim) }
	// Every finite value is valid, the extremes included.
	for _, x := range []float32{math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, float32(math.Copysign(0, -1))} {
		if err := validate(Dense([]float32{x, 0, 1}), 3); err != nil {
			t.Errorf("%v rejected: %v", x, err)
		}
		if err := validate(Sparse([]int32{2}, []float32{x}), 3); err != nil {
			t.Errorf("sparse %v rejected: %v", x, err)
		}
		if err := validate(Sparse([]int32{0, 1, 2}, []float32{1, x, -x}), 3); err != nil {
			t.Errorf("full sparse row with %v rejected: %v", x, err)
		}
	}
	// The zero Vector is the sparse zero vector, Dense(nil) an error.
	if !(Vector{}).IsSparse() || Dense(nil).IsSparse() {
		t.Fatal("the zero Vector must be sparse, Dense(nil) dense")
	}
	if err := validate(Dense(nil), 3); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Fatalf("Dense(nil): %v", err)
	}
	if err := validate(Vector{}, 3); err != nil {
		t.Fatalf("the zero vector: %v", err)
	}
}

func TestScoreDoesNotAllocate(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops scratch at random under the race detector")
	}
	for _, storage := range []Storage{DenseStorage, SparseStorage} {
		set, _ := New(22, 8, Options{Capacity: 100, Storage: storage})
		rng := rand.New(rand.NewPCG(2, 2))
		gen := func() float32 { return float32(rng.NormFloat64()) }
		for range 100 {
			set.Add(Dense(randomPoint(rng, 22, 1, gen)), 1)
		}
		x := Dense(randomPoint(rng, 22, 1, gen))
		sx := sparseOf(randomPoint(rng, 22, 0.1, gen))
		model, _ := set.Snapshot(1)
		model.Score(x) // fill the scratch pool
		var sc Scratch
		for name, f := range map[string]func(){
			"set dense":    func() { score(set, &sc, x) },
			"set sparse":   func() { score(set, &sc, sx) },
			"model dense":  func() { model.Score(x) },
			"model sparse": func() { model.Score(sx) },
		} {
			if a := testing.AllocsPerRun(100, f); a != 0 {
				t.Errorf("%v storage, %s: %v allocations per score", storage, name, a)
			}
		}
	}
}

// TestModelConcurrentWithTraining scores a snapshot from many goroutines
// while the set it came from keeps changing (run with -race), with either
// storage.
func TestModelConcurrentWithTraining(t *testing.T) {
	for _, storage := range []Storage{DenseStorage, SparseStorage} {
		modelConcurrentWithTraining(t, storage)
	}
}

func modelConcurrentWithTraining(t *testing.T, storage Storage) {
	set, _ := New(4, 2, Options{Capacity: 50, Storage: storage})
	rng := rand.New(rand.NewPCG(3, 3))
	gen := func() float32 { return float32(rng.NormFloat64()) }
	for range 50 {
		set.Add(Dense(randomPoint(rng, 4, 1, gen)), float32(rng.NormFloat64()))
	}
	model, _ := set.Snapshot(1)
	queries := make([]Vector, 64)
	for i := range queries {
		queries[i] = Dense(randomPoint(rng, 4, 1, gen))
	}
	want := make([]float64, len(queries))
	if err := model.ScoreBatch(context.Background(), queries, want); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := make([]float64, len(queries))
			for range 50 {
				if err := model.ScoreBatch(context.Background(), queries, got); err != nil {
					errs <- err
					return
				}
				for i := range got {
					if got[i] != want[i] {
						errs <- fmt.Errorf("query %d: %v then %v", i, want[i], got[i])
						return
					}
				}
			}
		}()
	}
	var sc Scratch
	for range 500 { // training goes on meanwhile
		set.Remove(rng.IntN(set.Len()))
		set.Add(Dense(randomPoint(rng, 4, 1, gen)), 1)
		score(set, &sc, queries[0])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestModelRebuiltFromItsVectors: a Model's vectors and weights, read
// back (Vector, Weight) into a new set, make a model that scores alike.
func TestModelRebuiltFromItsVectors(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		set, _ := New(3, 2, Options{Storage: storage})
		set.Add(Dense([]float32{1, 2, 3}), 0.5)
		set.Add(Sparse([]int32{1}, []float32{-4}), -2)
		m1, _ := set.Snapshot(1)
		again, _ := New(3, 2, Options{Storage: storage})
		for i := range m1.Len() {
			if _, err := again.Add(Dense(m1.Vector(i, nil)), m1.Weight(0, i)); err != nil {
				t.Fatal(err)
			}
		}
		m2, err := again.Snapshot(1)
		if err != nil {
			t.Fatal(err)
		}
		q := Dense([]float32{0.5, -1, 2})
		a, _ := m1.Score(q)
		b, _ := m2.Score(q)
		if a != b {
			t.Fatalf("scores %v and %v", a, b)
		}
	})
}

// TestForcedImplementationErrors runs the test binary again with a bad
// BOGD_SIMD and expects New to refuse, naming the setting.
func TestForcedImplementationErrors(t *testing.T) {
	if os.Getenv("BOGD_ENGINE_CHILD") == "1" {
		_, err := New(1, 1, Options{})
		switch impl, perr := simd.ParseImpl(os.Getenv(simd.EnvVar)); {
		case err != nil:
			fmt.Println(err)
		case perr == nil && simd.Supported(impl):
			// The child runs natively even when the parent runs under an
			// emulator (go test -exec qemu-x86_64 -cpu Haswell): this
			// CPU has what the parent's lacked.
			fmt.Println("SUPPORTED HERE")
		default:
			fmt.Println("NO ERROR")
		}
		os.Exit(0)
	}
	for _, setting := range []string{"sse9", unsupportedImpl()} {
		if setting == "" {
			continue
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestForcedImplementationErrors$")
		cmd.Env = append(os.Environ(), "BOGD_ENGINE_CHILD=1", simd.EnvVar+"="+setting)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s=%s: %v\n%s", simd.EnvVar, setting, err, out)
		}
		if strings.Contains(string(out), "SUPPORTED HERE") {
			t.Logf("%s=%s: the child process runs on a CPU that has it (not emulated): not checked", simd.EnvVar, setting)
			continue
		}
		if !strings.Contains(string(out), simd.EnvVar) || strings.Contains(string(out), "NO ERROR") {
			t.Fatalf("%s=%s: New did not refuse:\n%s", simd.EnvVar, setting, out)
		}
	}
}

// unsupportedImpl names an implementation this CPU or build lacks, or "".
func unsupportedImpl() string {
	for _, impl := range []simd.Impl{simd.AVX512, simd.AVX2} {
		if !simd.Supported(impl) {
			return impl.String()
		}
	}
	return ""
}

// TestFarQueriesKeepTheirSign: every kernel value is below float32's range,
// yet f keeps its float64 value (here dominated by the nearer vector). The
// values are near 1e-87, so they are compared relative to their size
// (relClose): 0 or the wrong sign fails.
func TestFarQueriesKeepTheirSign(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		eachImpl(t, func(t *testing.T) {
			set, _ := New(1, 1, Options{Columns: 2, Storage: storage})
			set.Add(Dense([]float32{0}), 1, 3)
			set.Add(Dense([]float32{50}), -1, 5)
			var sc Scratch
			var f [2]float64
			if err := set.Evaluate(&sc, Dense([]float32{30}), f[:]); err != nil {
				t.Fatal(err)
			}
			want := [2]float64{math.Exp(-450) - math.Exp(-200), 3*math.Exp(-450) + 5*math.Exp(-200)}
			if !relClose(f[0], want[0]) || !relClose(f[1], want[1]) {
				t.Fatalf("f = %v, want %v", f, want)
			}
			var second [1]float64
			if set.Sums(&sc, 1, second[:]); !relClose(second[0], want[1]) {
				t.Fatalf("column 1 from the kernel values: %v, want %v", second[0], want[1])
			}
			if kernels, factor := sc.Kernels(); !relClose(factor*float64(kernels[1]), math.Exp(-200)) {
				t.Fatalf("κ = %v, want %v", factor*float64(kernels[1]), math.Exp(-200))
			}
			m, _ := set.Snapshot(2) // an output per column
			if g, _ := m.Scores(Dense([]float32{30}), nil); !relClose(g[0], want[0]) || !relClose(g[1], want[1]) {
				t.Fatalf("model: f = %v, want %v", g, want)
			}
		})
	})
}

// TestHugeValuesStayFinite: features of 1e30 overflow float32 squared
// distances; the kernel values must come out 0, never NaN.
func TestHugeValuesStayFinite(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		eachImpl(t, func(t *testing.T) {
			set, _ := New(2, 8, Options{Storage: storage})
			set.Add(Dense([]float32{1e30, -1e30}), 1)
			set.Add(Dense([]float32{-1e30, 1e30}), -1)
			var sc Scratch
			for _, q := range [][]float32{{1e30, -1e30}, {0, 0}, {-1e30, -1e30}} {
				f, err := score(set, &sc, Dense(q))
				if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
					t.Fatalf("query %v: f = %v, %v", q, f, err)
				}
				kernels, _ := sc.Kernels()
				for _, k := range kernels {
					if math.IsNaN(float64(k)) {
						t.Fatalf("query %v: kernel NaN", q)
					}
				}
			}
		})
	})
}

// TestFarBandMatchesFloat64: queries whose nearest support vector lies in
// the band where exp's argument clamp (ExpMin = −87) starts to bite, the
// largest exponent between −90 and −60, with up to 4000 vectors. The
// exponents are exact (integer coordinates, σ = 1: the arguments are
// exact halves), so the only errors are exp's (2e-7 relative) and the
// float32 sum's: f must match its float64 value within those, relative to
// Σ|wᵢ|κᵢ. Vectors beyond the reach of float32 carry the opposite sign:
// had each been floored at e⁻⁸⁷ instead of zeroed, they would add up to
// n·e⁻⁸⁷ ≫ that tolerance.
func TestFarBandMatchesFloat64(t *testing.T) {
	eachImpl(t, func(t *testing.T) {
		for _, n := range []int{16, 1000, 4000} {
			for top := -90; top <= -60; top++ {
				checkFarBand(t, n, top)
			}
		}
	})
}

// checkFarBand builds n one-dimensional vectors around the query 0: vector
// 0 at exponent top (weight +1), a tenth of the rest spread over
// [top−20, top] with random signs, the others at exponent ≤ top−40 with
// weight −1. σ = 1, so a vector at coordinate c has exponent −c²/2; the
// coordinates are square roots of even integers, rounded to float32, and
// the reference uses those rounded values.
func checkFarBand(t *testing.T, n, top int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(n), uint64(-top)))
	set, err := New(1, 1, Options{Capacity: n})
	if err != nil {
		t.Fatal(err)
	}
	var want, mag float64
	for i := range n {
		e, w := float64(top), 1.0
		switch {
		case i == 0:
		case i%10 == 0:
			e, w = float64(top-rng.IntN(21)), rng.NormFloat64()
		default:
			e, w = float64(top-40-rng.IntN(200)), -1
		}
		c := float32(math.Sqrt(-2 * e))
		if _, err := set.Add(Dense([]float32{c}), float32(w)); err != nil {
			t.Fatal(err)
		}
		k := math.Exp(-float64(c) * float64(c) / 2)
		want += float64(float32(w)) * k
		mag += math.Abs(float64(float32(w))) * k
	}
	got, err := score(set, new(Scratch), Dense([]float32{0}))
	if err != nil {
		t.Fatal(err)
	}
	// exp's 2e-7 and the arguments' rounding (the coordinates are not
	// exact square roots, but their squares round to within 2⁻²⁴ relative
	// of the exponent, times |top| ≤ 90), plus the float32 sum: at most
	// n/16+20 roundings of 2⁻²⁴ on the way (16 lanes, the horizontal sum
	// and the tail).
	tol := (2e-7 + 90*0x1p-23 + float64(n/16+20)*0x1p-24) * mag
	if math.Abs(got-want) > tol {
		t.Fatalf("n=%d, largest exponent %d: f = %.9g, float64 %.9g (off by %.3g of Σ|w|κ, tolerance %.3g)",
			n, top, got, want, math.Abs(got-want)/mag, tol/mag)
	}
}

// TestReplaceKeepsOtherSlots: Replace overwrites one slot's vector and
// weights; the others stay where they were, and scores see the new vector.
func TestReplaceKeepsOtherSlots(t *testing.T) {
	eachStorage(t, func(t *testing.T, storage Storage) {
		set, _ := New(2, 1, Options{Columns: 2, Storage: storage})
		for i := range 20 {
			set.Add(Dense([]float32{float32(i), 0}), float32(i), float32(-i))
		}
		if err := set.Replace(7, Sparse([]int32{1}, []float32{50}), 3); err != nil {
			t.Fatal(err)
		}
		var buf []float32
		for i := range set.Len() {
			buf = set.Vector(i, buf)
			want, w0, w1 := []float32{float32(i), 0}, float32(i), float32(-i)
			if i == 7 {
				want, w0, w1 = []float32{0, 50}, 3, 0
			}
			if !slices.Equal(buf, want) || set.WeightColumn(0)[i] != w0 || set.WeightColumn(1)[i] != w1 {
				t.Fatalf("slot %d: %v with weights %v, %v", i, buf, set.WeightColumn(0)[i], set.WeightColumn(1)[i])
			}
		}
		if f, _ := score(set, new(Scratch), Dense([]float32{0, 50})); !closeTo(f, 3) {
			t.Fatalf("f at the new vector = %v, want 3", f)
		}
		if err := set.Replace(20, Dense([]float32{0, 0})); err == nil {
			t.Fatal("slot 20 of 20 replaced")
		}
		if norm, _ := set.Bounds(); norm < 2500 {
			t.Fatalf("norm bound %v misses the new vector", norm)
		}
	})
}

// TestFullRow: a sparse query that sets every feature (simd.FullRow's
// check, eight features at a time) is valid exactly as the feature-by-feature
// rule says, over every length up to 13 and a flaw at every position: an
// index out of place, an infinity, a NaN; the extreme finite values pass.
func TestFullRow(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for n := 1; n <= 13; n++ {
		row := func() ([]int32, []float32) {
			idx, val := make([]int32, n), make([]float32, n)
			for k := range n {
				idx[k], val[k] = int32(k), float32(k%3)-1
			}
			return idx, val
		}
		full := Sparse(row())
		if err := full.validate(n); err != nil {
			t.Fatalf("n = %d: a full row refused: %v", n, err)
		}
		for k := range n {
			for _, flaw := range []struct {
				name string
				bad  func(idx []int32, val []float32)
				ok   bool
			}{
				{"index +1", func(idx []int32, _ []float32) { idx[k]++ }, false},
				{"index −1", func(idx []int32, _ []float32) { idx[k]-- }, false},
				{"index −2³¹", func(idx []int32, _ []float32) { idx[k] = math.MinInt32 }, false},
				{"+Inf", func(_ []int32, val []float32) { val[k] = inf }, false},
				{"−Inf", func(_ []int32, val []float32) { val[k] = -inf }, false},
				{"NaN", func(_ []int32, val []float32) { val[k] = nan }, false},
				{"largest", func(_ []int32, val []float32) { val[k] = -math.MaxFloat32 }, true},
				{"smallest", func(_ []int32, val []float32) { val[k] = math.SmallestNonzeroFloat32 }, true},
			} {
				idx, val := row()
				flaw.bad(idx, val)
				v := Sparse(idx, val)
				if err := v.validate(n); (err == nil) != flaw.ok {
					t.Errorf("n = %d, %s at %d: %v, want valid %v", n, flaw.name, k, err, flaw.ok)
				}
			}
		}
	}
}
