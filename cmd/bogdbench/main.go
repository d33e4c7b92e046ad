// Command bogdbench runs budgeted kernel online learners over LIBSVM
// datasets — binary, multi-class or regression — and reports mistake rates
// or mean squared errors, support vectors and time, following the protocol
// of the BOGD paper (random permutations, Gaussian kernel, one online pass).
//
// Usage:
//
//	bogdbench run --data FILE [--task T] [--scale minmax] [--algo LIST] [--budget LIST] [--runs N] [--save FILE] ...
//	bogdbench predict --model FILE --data FILE [--scores]
//	bogdbench paper [--quick] [--out DIR [--resume]] [--workers N] [--shard k/n] [--phase PHASE] ...
//	bogdbench lsokl --table multiclass|regression|binary [--quick] [--out DIR [--resume]] ...
//	bogdbench merge --out FILE IN...
//	bogdbench kernels [--format table|json]
//	bogdbench cpu
//
// Run "bogdbench COMMAND -h" for the flags of a command.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: it parses its own flags from args and writes
// results to stdout, diagnostics to stderr.
type command struct {
	name, summary string
	run           func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"run", "run learners over random permutations of a dataset", runCommand},
	{"cpu", "show the detected CPU features and the chosen SIMD implementation", cpuCommand},
	{"predict", "predict a dataset with a model saved by run --save", predictCommand},
	{"kernels", "measure f(x) throughput of every SIMD implementation on the paper's shapes", kernelsCommand},
	{"paper", "reproduce Tables 2 and 3 of the paper (selection, reported runs, tables, plots)", paperCommand},
	{"lsokl", "reproduce Tables 5, 7 and 9 of Lu et al. (JMLR 2016): binary, multi-class, regression", lsoklCommand},
	{"merge", "merge results files of `paper` or `lsokl` (shards) into one", mergeCommand},
}

func main() {
	os.Exit(dispatch(os.Args[1:], os.Stdout, os.Stderr))
}

// dispatch runs the command named by args[0] and returns the exit code:
// 0 on success, 2 on a usage error, 1 on any other failure.
func dispatch(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
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
}

// usageError marks a problem with the command line rather than the work.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("bogdbench "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parseArgs parses args, turning parse failures into usage errors; the
// arguments after the flags are left in fs.Args.
func parseArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
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
