package bogd

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/bogd-project/bogd/engine"
)

// matlabProjectron is projectron.m and proplus.m taken literally, in
// float64: K⁻¹ grown by the block update with no guard on ‖δ‖² (a zero or
// negative one is divided by, as MATLAB does; its complex square root only
// enters β through its real part, 0), P = dᵀKd, and sgn(NaN) counted as a
// mistake: the authors' group's code, against which the paper's Projectron
// figures can be checked.
type matlabProjectron struct {
	budget int
	plus   bool
	u      float64
	sv     [][]float64
	alpha  []float64
	kinv   [][]float64
}

func (r *matlabProjectron) observe(x []float64, y int) (mistake bool) {
	m := len(r.sv)
	k := make([]float64, m)
	f := 0.0
	for i, s := range r.sv {
		k[i] = fpKernel(s, x, 8)
		f += r.alpha[i] * k[i]
	}
	yf := float64(y)
	mistake = math.IsNaN(f) || fpSign(f) != y
	if m == 0 {
		if mistake {
			r.sv, r.alpha, r.kinv = append(r.sv, x), append(r.alpha, yf), [][]float64{{1}}
		}
		return mistake
	}
	loss := 1 - yf*f
	if !mistake && !(r.plus && loss > 0 && loss < 1) {
		return mistake
	}
	d := make([]float64, m)
	kd := 0.0
	for i := range d {
		for j, v := range r.kinv[i] {
			d[i] += v * k[j]
		}
		kd += k[i] * d[i]
	}
	delta2 := 1 - kd
	if mistake {
		if m < r.budget {
			for i, row := range r.kinv {
				for j := range row {
					row[j] += d[i] * d[j] / delta2
				}
				r.kinv[i] = append(row, -d[i]/delta2)
			}
			last := append(make([]float64, 0, m+1), d...)
			for j := range last {
				last[j] = -last[j] / delta2
			}
			r.kinv = append(r.kinv, append(last, 1/delta2))
			r.sv, r.alpha = append(r.sv, x), append(r.alpha, yf)
			return mistake
		}
		for i := range d {
			r.alpha[i] += yf * d[i]
		}
		return mistake
	}
	p := 0.0 // dᵀKd with K recomputed, as proplus.m does
	for i := range d {
		for j := range d {
			p += d[i] * fpKernel(r.sv[i], r.sv[j], 8) * d[j]
		}
	}
	tau := min(loss/p, 1)
	norm := 0.0
	if delta2 > 0 {
		norm = math.Sqrt(delta2)
	}
	if beta := tau * (2*loss - tau*p - 2*r.u*norm); beta >= 0 {
		for i := range d {
			r.alpha[i] += yf * tau * d[i]
		}
	}
	return mistake
}

// TestExperimentMatlabProjectronSpambase runs the Projectrons and their
// literal MATLAB twins over the same 8 random orders of spambase at B = 300,
// where the paper's Table 3 reports 29.302% ± 4.831 and 29.359% ± 4.959, and
// our reported runs give about 26.7% ± 0.5 and 26.2% ± 0.6. The finding it
// asserts: the authors' own code lands within a point of ours, with a
// standard deviation as small, so neither the guard of minDelta2 nor any
// other difference from projectron.m and proplus.m explains the paper's
// figures. Four minutes of float64 passes: it runs only with
// BOGD_EXPERIMENTS=1 (see benchmarks/README.md).
func TestExperimentMatlabProjectronSpambase(t *testing.T) {
	if os.Getenv("BOGD_EXPERIMENTS") != "1" {
		t.Skip("an experiment of several minutes: set BOGD_EXPERIMENTS=1 to run it")
	}
	d := sharedData(t, "spambase.svm.gz")
	const budget, runs = 300, 8
	rows := make([][]float64, d.Len())
	buf := make([]float32, d.Dim)
	for i := range rows {
		x := d.Dense(i, buf)
		rows[i] = make([]float64, d.Dim)
		for j, v := range x {
			rows[i][j] = float64(v)
		}
	}
	for _, algo := range []Algorithm{Projectron, ProjectronPP} {
		var ours, twin []float64
		for r := range runs {
			perm := rand.New(rand.NewPCG(uint64(r), 77)).Perm(d.Len())
			l, err := New(algo, Config{Dim: d.Dim, Budget: budget, Sigma: 8})
			if err != nil {
				t.Fatal(err)
			}
			ref := &matlabProjectron{budget: budget, plus: algo == ProjectronPP,
				u: 0.25 * math.Sqrt(float64(budget+1)/math.Log(float64(budget+1)))}
			var a, b int
			for _, i := range perm {
				out, err := l.observe(engine.Dense(d.Dense(i, buf)), int(d.Labels[i]))
				if err != nil {
					t.Fatal(err)
				}
				if out.Mistake {
					a++
				}
				if ref.observe(rows[i], int(d.Labels[i])) {
					b++
				}
			}
			ours = append(ours, 100*float64(a)/float64(d.Len()))
			twin = append(twin, 100*float64(b)/float64(d.Len()))
		}
		om, osd := meanStd(ours)
		tm, ts := meanStd(twin)
		t.Logf("%v B=%d over %d orders: ours %.3f ± %.3f, MATLAB rule %.3f ± %.3f", algo, budget, runs, om, osd, tm, ts)
		if math.Abs(om-tm) > 1 || ts > 1.5 || osd > 1.5 {
			t.Errorf("%v: the MATLAB rule differs from ours by more than a point or scatters: the finding no longer holds", algo)
		}
	}
}
