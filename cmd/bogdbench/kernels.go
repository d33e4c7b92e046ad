package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/internal/simdimpl"
	"github.com/bogd-project/bogd/simd"
)

// kernelShape is one (budget, dimension) shape of a kernel expansion, named
// after the paper dataset it stands for.
type kernelShape struct {
	Name   string
	Budget int
	Dim    int
	NNZ    int // non-zeros of a sparse shape (binary features); 0 = dense
}

// paperShapes lists the paper datasets' shapes: their budgets of Table 3 and
// feature counts of Table 1, plus w8a's sparse binary form (about 12 of 300
// features set per example).
func paperShapes(quick bool) []kernelShape {
	var out []kernelShape
	for _, d := range paperDatasets {
		budgets := d.Budgets
		if quick {
			budgets = budgets[len(budgets)-1:]
		}
		for _, b := range budgets {
			out = append(out, kernelShape{Name: d.Name, Budget: b, Dim: d.Features})
		}
		if d.Name == "w8a" {
			for _, b := range budgets {
				out = append(out, kernelShape{Name: d.Name + " sparse", Budget: b, Dim: d.Features, NNZ: 12})
			}
		}
	}
	return out
}

// kernelResult is one measured (implementation, shape); its JSON form is
// what `bogdbench kernels --format json` prints.
type kernelResult struct {
	SIMD      string  `json:"simd"`
	Shape     string  `json:"shape"`
	Budget    int     `json:"budget"`
	Dim       int     `json:"dim"`
	NNZ       int     `json:"nnz,omitempty"`
	NsPerEval float64 `json:"ns_per_eval"` // median over the batches
	NsMin     float64 `json:"ns_per_eval_min"`
	EvalsPerS float64 `json:"evals_per_second"`
	Flops     float64 `json:"flops_per_eval"`
	GFlops    float64 `json:"gflops"`
	SpeedUp   float64 `json:"speedup_over_generic"`
	PeakShare float64 `json:"peak_share"` // of this implementation's peak, 0..1
}

type kernelReport struct {
	Cores      int                `json:"cores"`
	Peak       map[string]float64 `json:"peak_gflops"` // per implementation
	PeakMethod string             `json:"peak_method"` // how Peak was obtained
	GHz        float64            `json:"assumed_ghz,omitempty"`
	Batches    int                `json:"batches"`
	Results    []kernelResult     `json:"results"`
}

// measuredPeak says how simd.PeakFLOPS measures the peak.
const measuredPeak = "measured by simd.PeakFLOPS per implementation: independent FMA chains on full-width registers " +
	"(scalar multiply-adds in pure Go for generic), the loop's flops / elapsed time of the fastest of 9 calibrated batches of ~1 ms, one core"

// assumedPeak says how the peak is computed from an assumed clock.
const assumedPeak = "assumed, not measured: 1 core x %.2f GHz (--ghz) x 2 FMA ports x lanes x 2 flops"

// implLanes is the float32 lanes of one vector register of an implementation.
func implLanes(i simd.Impl) int {
	switch i {
	case simd.AVX512:
		return 16
	case simd.AVX2:
		return 8
	}
	return 1
}

// flopsPerEval counts one f(x): 3 flops per (support vector, feature) for
// the subtraction and the fused multiply-add of the squared distance (for a
// sparse query, per non-zero feature of the query), plus about 20 per
// support vector for the exponential and the weighted sum.
func flopsPerEval(s kernelShape) float64 {
	features := s.Dim
	if s.NNZ > 0 {
		features = s.NNZ
	}
	return float64(s.Budget) * float64(3*features+20)
}

func kernelsCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("kernels", stderr)
	format := fs.String("format", "table", "output format: table or json")
	ghz := fs.Float64("ghz", 0, "assume this clock in GHz for the peak instead of measuring it")
	budgetFlag := fs.String("budget", "", "comma-separated budgets instead of the paper's shapes (with --dim, default 1000)")
	dimFlag := fs.String("dim", "", "comma-separated dimensions instead of the paper's shapes (with --budget, default 8,10,22,24,57,300)")
	quick := fs.Bool("quick", false, "one budget per dataset and shorter timings")
	batches := fs.Int("batches", 0, "timed batches per measurement, of which the median is reported (default 7, 3 with --quick)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *format != "table" && *format != "json" {
		return usagef("--format must be table or json, got %q", *format)
	}
	if !(*ghz >= 0) || math.IsInf(*ghz, 0) {
		return usagef("--ghz must be a positive clock rate (or 0 to measure the peak), got %v", *ghz)
	}
	if *batches == 0 {
		*batches = 7
		if *quick {
			*batches = 3
		}
	}
	if *batches < 1 {
		return usagef("--batches must be at least 1, got %d", *batches)
	}
	shapes := paperShapes(*quick)
	if *budgetFlag != "" || *dimFlag != "" {
		budgets, dims := []int{1000}, []int{8, 10, 22, 24, 57, 300}
		var err error
		if *budgetFlag != "" {
			if budgets, err = parseInts(*budgetFlag); err != nil {
				return usagef("--budget: %v", err)
			}
		}
		if *dimFlag != "" {
			if dims, err = parseInts(*dimFlag); err != nil {
				return usagef("--dim: %v", err)
			}
		}
		shapes = nil
		for _, b := range budgets {
			for _, d := range dims {
				if b < 1 || d < 1 {
					return usagef("budgets and dimensions must be positive, got %d and %d", b, d)
				}
				shapes = append(shapes, kernelShape{Name: "custom", Budget: b, Dim: d})
			}
		}
	}
	if err := simd.EnvError(); err != nil {
		return err
	}
	target := 20 * time.Millisecond
	if *quick {
		target = 4 * time.Millisecond
	}
	rep, err := measureKernels(shapes, *ghz, *batches, target)
	if err != nil {
		return err
	}
	if *format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return writeKernelTable(stdout, rep)
}

// measureKernels times engine.Set.Evaluate for every shape under every
// available implementation, selected in turn through internal/simdimpl
// (nothing else runs kernels meanwhile), restoring the one chosen at start
// afterwards. The peak of each implementation is measured
// (simd.PeakFLOPS), or computed from ghz when it is positive.
func measureKernels(shapes []kernelShape, ghz float64, batches int, target time.Duration) (*kernelReport, error) {
	rep := &kernelReport{Cores: 1, Peak: map[string]float64{}, PeakMethod: measuredPeak, Batches: batches}
	if ghz > 0 {
		rep.GHz, rep.PeakMethod = ghz, fmt.Sprintf(assumedPeak, ghz)
	}
	generic := make([]float64, len(shapes))
	for _, impl := range simd.Available() {
		restore, err := simdimpl.Select(impl.String())
		if err != nil {
			return nil, err
		}
		peak := simd.PeakFLOPS() / 1e9
		if ghz > 0 {
			peak = float64(rep.Cores) * ghz * 2 * float64(implLanes(impl)) * 2
		}
		rep.Peak[impl.String()] = peak
		for i, s := range shapes {
			ns, nsMin, err := timeScore(s, batches, target)
			if err != nil {
				restore()
				return nil, err
			}
			if impl == simd.Generic {
				generic[i] = ns
			}
			flops := flopsPerEval(s)
			r := kernelResult{
				SIMD: impl.String(), Shape: s.Name, Budget: s.Budget, Dim: s.Dim, NNZ: s.NNZ,
				NsPerEval: ns, NsMin: nsMin, EvalsPerS: 1e9 / ns, Flops: flops, GFlops: flops / ns,
			}
			if generic[i] > 0 {
				r.SpeedUp = generic[i] / ns
			}
			r.PeakShare = r.GFlops / peak
			rep.Results = append(rep.Results, r)
		}
		restore()
	}
	return rep, nil
}

// timeScore builds a full set of the shape's budget with random vectors and
// returns the median and the minimum over batches of the nanoseconds of
// one Evaluate of a random query (dense, or sparse binary for a sparse shape). Each batch
// repeats Evaluate often enough to last about target.
func timeScore(s kernelShape, batches int, target time.Duration) (median, least float64, err error) {
	rng := rand.New(rand.NewPCG(uint64(s.Budget), uint64(s.Dim)))
	// Dense coordinates ~ N(0, scale²) put ‖x−s‖²/(2σ²) near 2 in every
	// dimension: kernel values within float32's range, so that Evaluate takes
	// its single-pass path (far queries whose every kernel value underflows
	// take a second pass; see the engine package's far queries).
	const sigma = 8
	scale := math.Sqrt(2 * sigma * sigma / float64(s.Dim))
	set, err := engine.New(s.Dim, sigma, engine.Options{Capacity: s.Budget})
	if err != nil {
		return 0, 0, err
	}
	point := func() engine.Vector {
		if s.NNZ > 0 {
			var idx []int32
			var val []float32
			for j := 0; j < s.Dim; j++ {
				if rng.IntN(s.Dim) < s.NNZ {
					idx = append(idx, int32(j))
					val = append(val, 1)
				}
			}
			return engine.Sparse(idx, val)
		}
		x := make([]float32, s.Dim)
		for j := range x {
			x[j] = float32(rng.NormFloat64() * scale)
		}
		return engine.Dense(x)
	}
	for range s.Budget {
		if _, err := set.Add(point(), float32(rng.NormFloat64())); err != nil {
			return 0, 0, err
		}
	}
	x := point()
	var sc engine.Scratch
	var f [1]float64
	batch := func(n int) (time.Duration, error) {
		start := time.Now()
		for range n {
			if err := set.Evaluate(&sc, x, f[:]); err != nil {
				return 0, err
			}
		}
		return time.Since(start), nil
	}
	// Calibrate (this also warms caches and the branch predictors).
	n := 1
	for {
		d, err := batch(n)
		if err != nil {
			return 0, 0, err
		}
		if d >= target/4 || n >= 1<<30 {
			n = max(1, int(float64(n)*float64(target)/float64(max(d, 1))))
			break
		}
		n *= 4
	}
	per := make([]float64, batches)
	for i := range per {
		d, err := batch(n)
		if err != nil {
			return 0, 0, err
		}
		per[i] = float64(d.Nanoseconds()) / float64(n)
	}
	slices.Sort(per)
	return per[len(per)/2], per[0], nil
}

func writeKernelTable(w io.Writer, rep *kernelReport) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "simd\tshape\tbudget\tdim\tnnz\tns/f(x)\tmin ns\tf(x)/s\tGFLOP/s\tspeed-up\t% of peak\t")
	for _, r := range rep.Results {
		nnz := "-"
		if r.NNZ > 0 {
			nnz = strconv.Itoa(r.NNZ)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%.0f\t%.0f\t%.0f\t%.2f\t%.2fx\t%.1f\t\n",
			r.SIMD, r.Shape, r.Budget, r.Dim, nnz, r.NsPerEval, r.NsMin, r.EvalsPerS, r.GFlops, r.SpeedUp, 100*r.PeakShare)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nns/f(x): median (and min) of %d timed batches of engine.Set.Evaluate of a random query over a full set of random vectors, one core;\n", rep.Batches)
	fmt.Fprintln(w, "f(x)/s, GFLOP/s, speed-up and % of peak use the median. Dense coordinates are N(0, 2σ²/dim): kernel values near e^-2.")
	fmt.Fprintln(w, "flops per f(x): budget x (3 x features + 20); sparse shapes count the query's non-zeros as features.")
	fmt.Fprintf(w, "peak GFLOP/s (%% of peak is against it), %s:", rep.PeakMethod)
	for _, impl := range simd.Available() {
		fmt.Fprintf(w, " %s %.1f", impl, rep.Peak[impl.String()])
	}
	fmt.Fprintln(w)
	return nil
}
