// Command bogdbench trains, evaluates, tunes and serves budgeted kernel online learners.
//
// It reads LIBSVM data (binary, multi-class or regression) and benchmarks the
// learners with the protocol of the BOGD paper (random permutations, Gaussian
// kernel, one online pass).
//
// Usage:
//
//	bogdbench train [--data FILE|-] [--algo A] [--budget B] [--sigma S|auto] [--passes N] [--save MODEL] [--model MODEL] ...
//	bogdbench predict --model MODEL [--data FILE|-] [--output FILE] [--format text|json]
//	bogdbench tune --data FILE [--algo LIST] [--budget LIST] [--grid quick|full] [--save MODEL] ...
//	bogdbench serve --model MODEL [--addr HOST:PORT] [--snapshot-every D] ...
//	bogdbench run --data FILE [--task T] [--scale minmax] [--algo LIST] [--budget LIST] [--runs N] [--save FILE] ...
//	bogdbench paper [--quick] [--out DIR [--resume]] [--workers N] [--shard k/n|auto] [--phase PHASE] ...
//	bogdbench lsokl --table multiclass|regression|binary [--quick] [--out DIR [--resume]] ...
//	bogdbench merge --out FILE IN...
//	bogdbench kernels [--format table|json]
//	bogdbench cpu
//	bogdbench --version
//
// Run "bogdbench COMMAND --help" for the flags of a command; help goes to
// standard output.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/bogd-project/bogd/simd"
)

// command is one subcommand: it parses its own flags from args and writes
// results to stdout, diagnostics to stderr. The commands that read
// standard input (`--data -`) are read instead of run.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
	read          func(args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = []command{
	{name: "train", summary: "train a learner in file order from a file or stdin, with progressive validation; save it or continue a saved one", read: trainCommand},
	{name: "predict", summary: "predict rows with a saved model: one line (or JSON object) per row, a summary when the rows have labels", read: predictCommand},
	{name: "tune", summary: "select η, λ, γ and σ on held-out permutations of your data (the paper's protocol); optionally save the tuned model", read: tuneCommand},
	{name: "serve", summary: "serve a saved model over HTTP: /predict, /learn, /healthz, /metrics, with snapshots to disk", run: serveCommand},
	{name: "run", summary: "run learners over random permutations of a dataset", run: runCommand},
	{name: "cpu", summary: "show the detected CPU features and the chosen SIMD implementation", run: cpuCommand},
	{name: "kernels", summary: "measure f(x) throughput of every SIMD implementation on the paper's shapes", run: kernelsCommand},
	{name: "paper", summary: "reproduce Tables 2 and 3 of the paper (selection, reported runs, tables, plots)", run: paperCommand},
	{name: "lsokl", summary: "reproduce Tables 5, 7 and 9 of Lu et al. (JMLR 2016): binary, multi-class, regression", run: lsoklCommand},
	{name: "merge", summary: "merge results files of `paper` or `lsokl` (shards) into one", run: mergeCommand},
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// dispatch runs the command named by args[0] and returns the exit code:
// 0 on success, 2 on a usage error, 1 on any other failure. Asked for,
// help goes to stdout (so that it pages); after a mistake, to stderr.
func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		usage(stdout)
		return 0
	case "-version", "--version", "version":
		version(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		var err error
		if c.read != nil {
			err = c.read(args[1:], stdin, stdout, stderr)
		} else {
			err = c.run(args[1:], stdout, stderr)
		}
		var help helpRequest
		switch {
		case err == nil:
			return 0
		case errors.As(err, &help):
			io.WriteString(stdout, help.text)
			return 0
		case errors.As(err, new(usageError)):
			fmt.Fprintf(stderr, "bogdbench %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "bogdbench %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "bogdbench: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: bogdbench COMMAND [flags]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun \"bogdbench COMMAND --help\" for the flags of a command, \"bogdbench --version\" for the version.")
}

// version prints the module version this binary was built from (a tag
// when installed with go install, "(devel)" from a work tree), the
// toolchain and the SIMD implementation the kernels run on.
func version(w io.Writer) {
	module, revision := "github.com/bogd-project/bogd", ""
	v := "(unknown)"
	if info, ok := debug.ReadBuildInfo(); ok {
		module, v = info.Main.Path, info.Main.Version
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = " " + s.Value
			case "vcs.modified":
				if s.Value == "true" {
					revision += " (modified)"
				}
			}
		}
	}
	fmt.Fprintf(w, "bogdbench %s %s%s\n", module, v, revision)
	fmt.Fprintf(w, "go:   %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "simd: %s", simd.Active())
	if err := simd.EnvError(); err != nil {
		fmt.Fprintf(w, " (%v)", err)
	}
	fmt.Fprintln(w)
}

// usageError marks a problem with the command line rather than the work.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// helpRequest carries a command's help, asked for with -h or --help, to
// dispatch, which prints it on stdout.
type helpRequest struct{ text string }

func (h helpRequest) Error() string { return "help requested" }

func (h helpRequest) Is(target error) bool { return target == flag.ErrHelp }

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("bogdbench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags]\n\nflags:\n", fs.Name())
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses args, turning parse failures into usage errors (the
// message and the flags go to the flag set's output) and -h into a
// helpRequest; the arguments after the flags are left in fs.Args.
func parseArgs(fs *flag.FlagSet, args []string) error {
	var printed bytes.Buffer
	out := fs.Output()
	fs.SetOutput(&printed)
	err := fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return helpRequest{printed.String()}
	case err != nil:
		out.Write(printed.Bytes())
		return usageError{err}
	}
	return nil
}

// parseFlags parses args, which must all be flags.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
