package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/bogd-project/bogd/internal/atomicfile"
)

// line is one row of the report's table: one bogdbench algorithm of a cell
// (or KOL alone) and the cell's KOL runs.
type line struct {
	cell      cell
	algorithm string   // bogdbench's; "" for KOL alone
	ours, kol []record // by round
}

// lines groups the runs into the table's rows, in the cells' order.
func lines(cells []cell, runs []record) []line {
	var out []line
	for _, c := range cells {
		var kol []record
		for _, r := range runs {
			if r.Cell == c.Name && r.Tool == "KOL" {
				kol = append(kol, r)
			}
		}
		if len(c.Ours) == 0 {
			out = append(out, line{cell: c, kol: kol})
		}
		for _, a := range c.Ours {
			l := line{cell: c, algorithm: a, kol: kol}
			for _, r := range runs {
				if r.Cell == c.Name && r.Tool == "bogdbench" && r.Algorithm == a {
					l.ours = append(l.ours, r)
				}
			}
			out = append(out, l)
		}
	}
	return out
}

// ratios are KOL's time over ours in each round that has both.
func (l line) ratios() []float64 {
	var out []float64
	for _, o := range l.ours {
		for _, k := range l.kol {
			if k.Round == o.Round && o.Seconds > 0 {
				out = append(out, k.Seconds/o.Seconds)
			}
		}
	}
	return out
}

// kolCPU is the CPU time of KOL's learning in each round: its process's
// less that of the round's floor run (its start and its loader thread),
// where there is one.
func (l line) kolCPU(floor map[int]float64) []float64 {
	out := make([]float64, len(l.kol))
	for i, k := range l.kol {
		out[i] = k.ProcessCPU - floor[k.Round]
	}
	return out
}

// cpuRatios are KOL's learning CPU time over our pass's in each round.
func (l line) cpuRatios(floor map[int]float64) []float64 {
	var out []float64
	for _, o := range l.ours {
		for _, k := range l.kol {
			if k.Round == o.Round && o.PassCPU > 0 {
				out = append(out, (k.ProcessCPU-floor[k.Round])/o.PassCPU)
			}
		}
	}
	return out
}

// floorCPU is the process CPU time of each round's floor run.
func floorCPU(runs []record) map[int]float64 {
	m := map[int]float64{}
	for _, r := range runs {
		if r.Cell == kolFloor.Name {
			m[r.Round] = r.ProcessCPU
		}
	}
	return m
}

// column is one field of every record.
func column(rs []record, field func(record) float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = field(r)
	}
	return out
}

func seconds(rs []record) []float64 { return column(rs, func(r record) float64 { return r.Seconds }) }
func passCPU(rs []record) []float64 { return column(rs, func(r record) float64 { return r.PassCPU }) }
func rates(rs []record) []float64   { return column(rs, func(r record) float64 { return r.MistakeRate }) }

// spread is the median of xs, with the range when it is not one value.
func spread(xs []float64, format func(float64) string) string {
	if len(xs) == 0 {
		return ""
	}
	s := slices.Sorted(slices.Values(xs))
	med := median(s)
	if s[0] == s[len(s)-1] {
		return format(med)
	}
	return fmt.Sprintf("%s (%s–%s)", format(med), format(s[0]), format(s[len(s)-1]))
}

// median of sorted xs.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func formatSeconds(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func formatRate(v float64) string { return fmt.Sprintf("%.3f", v) }

func formatRatio(v float64) string { return fmt.Sprintf("%.1f×", v) }

// markdown is the report of the runs.
func (in *inputs) markdown(o options, args []string, runs []record, start time.Time) string {
	var b strings.Builder
	name := datasetName(o.data)
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# bogdbench beside KOL on %s\n\n", name)
	p("Written by `go run ./benchmarks/kol` (see benchmarks/README.md, \"Side by side with KOL\"); rerun it to measure again.\n\n")
	p("- **When**: %s, for %.0f minutes; rounds: %d, interleaved (each runs every cell's bogdbench, then its KOL); 1-minute load average %s as the runs started.\n",
		start.UTC().Format("2006-01-02 15:04 MST"), time.Since(start).Minutes(), o.rounds, loadRange(runs))
	p("- **CPU**: %s. Measured FP32 peak of one core (`bogdbench kernels --quick`), GFLOP/s: %s.\n", in.machine.cpu, in.machine.peak)
	p("- **bogdbench**: commit %s, %s, SIMD %s.\n", in.machine.ours, in.machine.goVer, simdOf(runs))
	kv := o.kolVersion
	if kv == "" {
		kv = "not stated (set KOL_VERSION)"
	}
	p("- **KOL**: %s; binary %s.\n", kv, in.machine.kolSHA)
	p("- **Data**: `%s`, %d rows, d = %d, written to one text file in the order experiment.Permutation(%d, 0, n) (run 0 of `bogdbench run --seed %d`), "+
		"which both tools learn in file order: KOL through its binary cache (`-c`, made by an untimed KOL run), bogdbench with `--order` 1, 2, …, n.\n",
		o.data, in.rows, in.dim, o.seed, o.seed)
	p("- **Parameters**: Gaussian kernel σ = %g (KOL's kernel is exp(−γ‖x−y‖²): `-gamma %s` = 1/(2σ²)), hinge loss (update when y·f(x) < 1), "+
		"η = %s (FOGD %s; KOL's NOGD gets it as `-eta` and `-eta1`), λ = 1/T² = %s, our BOGD's weight cap γ = 10, NOGD's rank k = 20, FOGD's D = 400.\n\n",
		sigma, in.gamma, eta, etaFOGD, in.lambda)

	p("| cell | bogdbench | ours, s per pass | KOL, s | KOL ÷ ours | ours, CPU s per pass | KOL, CPU s | KOL ÷ ours, CPU | ours, mistakes %% | KOL, mistakes %% |\n")
	p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	floor := floorCPU(runs)
	for _, l := range lines(withFloor(o.cells), runs) {
		kolCPU := l.kolCPU(floor)
		if l.cell.Name == kolFloor.Name {
			kolCPU = l.kolCPU(nil) // the floor itself
		}
		algo := "–"
		if l.algorithm != "" {
			algo = "`" + l.algorithm + "`"
			if l.algorithm == l.cell.KOLRule {
				algo += " (KOL's rule)"
			}
		}
		p("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", l.cell.Title, algo,
			spread(seconds(l.ours), formatSeconds), spread(seconds(l.kol), formatSeconds), spread(l.ratios(), formatRatio),
			spread(passCPU(l.ours), formatSeconds), spread(kolCPU, formatSeconds), spread(l.cpuRatios(floor), formatRatio),
			spread(rates(l.ours), formatRate), spread(rates(l.kol), formatRate))
	}
	p("\nEach figure is the median over the rounds (the range in brackets when the rounds differ); a ratio is the median of the rounds' ratios. ")
	p("Ours is bogdbench's own timer around the pass over rows already in memory (`seconds_mean` of `bogdbench run`). ")
	p("KOL's is the `Learning time` it prints: wall-clock time around its learning loop, which starts its loader thread and waits on it ")
	p("for every chunk of 256 rows (here read from its binary cache); the last line is that floor, KOL with next to nothing to learn.\n\n")
	p("The CPU columns stand up better to other work on the machine, which stretches wall-clock times but not CPU times (much). ")
	p("Ours is a pass's: the mean CPU time of the thread that ran each pass of a bogdbench process with %d passes (`cpu_seconds_mean` of `bogdbench run`), which leaves out reading the data and the orders and the trivial predictor's pass beside each. ", 1+o.cpuPasses)
	p("KOL's is its process's user and system time less that of the same round's floor run (its start and its loader thread); the floor line shows the floor's own.\n\n")

	p("Why the mistake rates differ (benchmarks/README.md has the experiments):\n\n")
	p("- BOGD: KOL's `kernel-bogd` is our `bogd-oldest`: shrink every weight by 1−ηλ, add x with η·y when y·f(x) < 1, drop the oldest vector, ")
	p("no rescaling (its weights never reach our cap γη). Both update on the same rows; they differ in the sign of scores of rows far from every ")
	p("support vector, whose kernel values lie below float32's range: KOL's float32 sums make them 0 or a few subnormals (0 counts as −1), ")
	p("ours shift the exponent by the nearest distance and keep the sign. Our `bogd` is the BOGD paper's rule (a random vector removed, the rest rescaled).\n")
	p("- NOGD: at its transition KOL keeps the first k eigenpairs in the order Eigen's general `EigenSolver` returns them, which is not sorted, ")
	p("so not the top k, and starts the linear weights at zero; ours keeps the top k and projects the kernel phase's function onto them.\n")
	p("- FOGD: KOL's first feature of a pair is a parabola approximation of sin(uᵀx) where FOGD has cos(uᵀx), and its second is sign(uᵀx)·|cos(uᵀx)| ")
	p("where FOGD has sin(uᵀx), so its features do not approximate the Gaussian kernel; its frequencies are drawn from a clock-seeded generator, ")
	p("a new draw every run. Ours computes cos and sin to float32 precision from the learner's seed.\n\n")

	p("The commands of one round ($WORK: the temporary directory of the order, the rows and the binaries):\n\n```sh\n")
	p("%s\n", strings.TrimSpace(fmt.Sprintf("KOL=%s KOL_VERSION=%q go run ./benchmarks/kol %s", o.kol, o.kolVersion, strings.Join(args, " "))))
	for _, c := range withFloor(o.cells) {
		for _, algo := range c.Ours {
			for _, runs := range []int{1, 1 + o.cpuPasses} {
				p("$WORK/bogdbench %s\n", strings.Join(in.oursArgs(c, algo, runs), " "))
			}
		}
		p("$KOL %s\n", strings.Join(in.kolArgs(c), " "))
	}
	p("```\n")
	return strings.ReplaceAll(b.String(), in.work, "$WORK")
}

func loadRange(runs []record) string {
	var xs []float64
	for _, r := range runs {
		xs = append(xs, r.Load1)
	}
	if len(xs) == 0 {
		return "unknown"
	}
	return fmt.Sprintf("%.2f–%.2f", slices.Min(xs), slices.Max(xs))
}

func simdOf(runs []record) string {
	for _, r := range runs {
		if r.SIMD != "" {
			return r.SIMD
		}
	}
	return "unknown"
}

// writeOutputs writes the report and the runs, one JSON object a line.
func writeOutputs(dir, report, runsPath, md string, runs []record, force bool) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var jl bytes.Buffer
	enc := json.NewEncoder(&jl)
	for _, r := range runs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	opt := atomicfile.Options{NoClobber: !force}
	return errors.Join(atomicfile.Write(report, []byte(md), opt), atomicfile.Write(runsPath, jl.Bytes(), opt))
}
