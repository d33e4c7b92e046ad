package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/bogd-project/bogd/experiment"
	"github.com/bogd-project/bogd/experiment/lsokl"
	"github.com/bogd-project/bogd/experiment/paper"
)

// mergeCommand combines results files of `bogdbench paper` or `lsokl` (shards, or runs
// on several machines) into one: records of the same job are kept once
// when their outcomes agree (time and SIMD implementation may differ), and
// are an error when they do not; records of another rule version than this
// build's are left out, and counted on stderr. The output is sorted by job
// and replaces --out only once it is complete (--out may be one of the
// inputs).
func mergeCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", stderr)
	out := fs.String("out", "", "merged results file (required)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: bogdbench merge --out FILE IN...")
		fs.PrintDefaults()
	}
	if err := parseArgs(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--out is required")
	}
	if fs.NArg() == 0 {
		return usagef("no input files")
	}
	merged, dups, err := experiment.Merge(fs.Args(), func(msg string) { fmt.Fprintf(stderr, "bogdbench merge: warning: %s\n", msg) })
	if err != nil {
		return err
	}
	recs := merged.Sorted(append(slices.Clone(paper.Order), lsokl.Order...))
	if err := experiment.WriteRecords(*out, recs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d records from %d files into %s (%d duplicates dropped)\n", len(recs), fs.NArg(), *out, dups)
	return nil
}
