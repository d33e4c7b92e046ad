// Command kol times bogdbench beside the C++ library KOL on the same rows.
//
// KOL is the LIBOL group's "Kernel Online Learning" (github.com/LIBOL/KOL).
// Both tools learn the same rows in the same order with the same parameters,
// in interleaved rounds, and kol writes the comparison that issue 22's targets
// are judged by.
//
// Run it from the repository root with KOL's binary, built from its public
// source (see benchmarks/README.md, "Side by side with KOL"):
//
//	KOL=/path/to/KOL KOL_VERSION="LIBOL/KOL <commit>, <how it was built>" go run ./benchmarks/kol
//
// It writes benchmarks/results/kol/NAME.md (the table, the machine, both
// tools' versions, the commands) and NAME-runs.jsonl (one line per timed
// run), NAME being the dataset's (codrna by default). Both tools learn one
// text file that holds the data's rows in the order
// experiment.Permutation(seed, 0, n), in file order: KOL through its own
// binary cache (its fastest input), bogdbench with --order 1,2,…,n. Each
// round runs every cell's bogdbench, then its KOL, so that both see the
// same load. Beside each tool's own wall-clock timer it measures CPU
// times, which other work on a shared machine inflates far less.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintf(os.Stderr, "kol: %v\n", err)
		os.Exit(1)
	}
}

// sigma is the Gaussian width of every cell, exp(−‖x−y‖²/(2σ²)) in
// bogdbench's parametrisation; KOL's kernel is exp(−γ‖x−y‖²), so it gets
// γ = 1/(2σ²).
const sigma = 8.0

// options are the command's flags.
type options struct {
	kol, kolVersion string
	data, out       string
	cells           []cell
	rounds          int
	cpuPasses       int
	seed            uint64
	force           bool
}

func parseOptions(args []string, stderr io.Writer) (options, error) {
	fs := flag.NewFlagSet("kol", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.StringVar(&o.kol, "kol", os.Getenv("KOL"), "KOL's binary (default $KOL)")
	fs.StringVar(&o.kolVersion, "kol-version", os.Getenv("KOL_VERSION"), "what that binary is, recorded in the report: KOL's commit and how it was built (default $KOL_VERSION)")
	fs.StringVar(&o.data, "data", "../shared/datasets/codrna.svm.gz", "binary LIBSVM data set, labels ±1, plain or gzip")
	fs.StringVar(&o.out, "out", "benchmarks/results/kol", "directory of the report NAME.md and the runs NAME-runs.jsonl")
	fs.IntVar(&o.rounds, "rounds", 7, "interleaved rounds: each runs every cell once with each tool")
	fs.IntVar(&o.cpuPasses, "cpu-passes", 10, "bogdbench passes of each cell and round beyond the timed one, whose threads' mean CPU time gives a pass's")
	fs.Uint64Var(&o.seed, "seed", 1, "the rows' order is experiment.Permutation(seed, 0, n), run 0 of `bogdbench run --seed SEED`")
	fs.BoolVar(&o.force, "force", false, "overwrite the report and runs files if they exist")
	names := fs.String("cells", "", "comma-separated cells to run (default all): "+strings.Join(cellNames(), ","))
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.kol == "" {
		return o, fmt.Errorf("no KOL binary: set KOL=/path/to/KOL or give -kol")
	}
	if o.rounds < 1 || o.cpuPasses < 1 {
		return o, fmt.Errorf("-rounds and -cpu-passes must be at least 1, got %d and %d", o.rounds, o.cpuPasses)
	}
	var err error
	o.cells, err = selectCells(*names)
	return o, err
}

func run(args []string, stdout, stderr io.Writer) error {
	o, err := parseOptions(args, stderr)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join("cmd", "bogdbench")); err != nil {
		return fmt.Errorf("run from the repository root (no cmd/bogdbench here): %w", err)
	}
	if o.kol, err = filepath.Abs(o.kol); err != nil {
		return err
	}
	name := datasetName(o.data)
	report := filepath.Join(o.out, name+".md")
	runsPath := filepath.Join(o.out, name+"-runs.jsonl")
	if !o.force {
		for _, p := range []string{report, runsPath} {
			if _, err := os.Stat(p); err == nil {
				return fmt.Errorf("%s exists: pass -force to overwrite it", p)
			}
		}
	}
	work, err := os.MkdirTemp("", "bogd-kol-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "kol: "+format+"\n", a...) }

	// An interrupt stops the running tool and the rounds, and the
	// temporary files still go.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	in, err := prepare(ctx, o, work, logf)
	if err != nil {
		return err
	}
	var runs []record
	for r := 1; r <= o.rounds; r++ {
		for _, c := range withFloor(o.cells) {
			recs, err := in.round(ctx, c, r)
			if err != nil {
				return err
			}
			for _, rec := range recs {
				logf("round %d/%d %-9s %-9s %-11s %8.4f s  %7.3f%% mistakes  load %.2f",
					r, o.rounds, c.Name, rec.Tool, rec.Algorithm, rec.Seconds, rec.MistakeRate, rec.Load1)
			}
			runs = append(runs, recs...)
		}
	}
	md := in.markdown(o, args, runs, start)
	if err := writeOutputs(o.out, report, runsPath, md, runs, o.force); err != nil {
		return err
	}
	logf("wrote %s and %s", report, runsPath)
	_, err = io.WriteString(stdout, md)
	return err
}

// datasetName is the file name up to its first dot: codrna.svm.gz is codrna.
func datasetName(path string) string {
	name, _, _ := strings.Cut(filepath.Base(path), ".")
	return name
}

// cell is one line of the comparison: one KOL configuration and the
// bogdbench algorithms timed beside it. A cell without Ours is a
// reference figure of KOL alone.
type cell struct {
	Name     string   // its -cells key
	Title    string   // as the report shows it
	Ours     []string // bogdbench --algo values
	KOLRule  string   // the one of Ours whose rule is exactly KOL's, if any
	OursArgs []string // bogdbench run flags of the cell (budget, η, …)
	KOLArgs  []string // KOL flags of the cell (-opt, -B, -eta, …)
}

// Parameters of every cell. η and D are bogdbench's binary defaults
// (η = 0.2, FOGD 0.002 and D = 4·B, NOGD's rank k = 0.2·B); λ = 1/T² is
// filled in for the data. KOL's BOGD never reaches BOGD's weight cap γη,
// so γ only matters to our BOGD.
const (
	eta     = "0.2"
	etaFOGD = "0.002"
	lambdaT = "1/T^2" // placeholder of λ in the cells, replaced by its value
)

var allCells = []cell{
	bogdCell(100),
	bogdCell(1000),
	{
		Name: "nogd-100", Title: "NOGD, B = 100", Ours: []string{"nogd"},
		OursArgs: []string{"--budget", "100", "--rank", "20", "--eta", eta},
		KOLArgs:  []string{"-opt", "kernel-nogd", "-B", "100", "-knogd", "20", "-eta", eta, "-eta1", eta},
	},
	{
		Name: "fogd-100", Title: "FOGD, B = 100 (D = 400)", Ours: []string{"fogd"},
		OursArgs: []string{"--budget", "100", "--features", "400", "--eta", etaFOGD},
		KOLArgs:  []string{"-opt", "kernel-fogd", "-D", "400", "-eta", etaFOGD},
	},
}

// kolFloor ends every round: KOL's timer spans its loader thread, and FOGD
// with one feature pair learns next to nothing, so this is the floor of
// any KOL time; its CPU time is taken off KOL's in the same round.
var kolFloor = cell{
	Name: "kol-floor", Title: "KOL reading its cache (FOGD, D = 1)",
	KOLArgs: []string{"-opt", "kernel-fogd", "-D", "1", "-eta", etaFOGD},
}

// bogdCell is KOL's kernel-bogd at budget b, which drops the oldest support
// vector and does not rescale (our bogd-oldest), beside our BOGD.
func bogdCell(b int) cell {
	bs := strconv.Itoa(b)
	return cell{
		Name: "bogd-" + bs, Title: "BOGD, B = " + bs, Ours: []string{"bogd-oldest", "bogd"}, KOLRule: "bogd-oldest",
		OursArgs: []string{"--budget", bs, "--eta", eta, "--lambda", lambdaT, "--gamma", "10"},
		KOLArgs:  []string{"-opt", "kernel-bogd", "-B", bs, "-eta", eta, "-lambda", lambdaT},
	}
}

// withFloor is cells followed by kolFloor, the order of a round.
func withFloor(cells []cell) []cell { return append(slices.Clip(cells), kolFloor) }

func cellNames() []string {
	var names []string
	for _, c := range allCells {
		names = append(names, c.Name)
	}
	return names
}

// selectCells returns the cells named in the comma-separated list (all of
// them for ""), in the table's order.
func selectCells(list string) ([]cell, error) {
	if list == "" {
		return allCells, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []cell
	for _, c := range allCells {
		if want[c.Name] {
			out = append(out, c)
			delete(want, c.Name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("-cells: no cell %q (cells: %s)", n, strings.Join(cellNames(), ","))
	}
	return out, nil
}
