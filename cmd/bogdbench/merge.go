package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// mergeCommand combines results files of `bogdbench paper` (shards, or runs
// on several machines) into one: records of the same job are kept once
// when their outcomes agree (time and SIMD implementation may differ), and
// are an error when they do not. The output is sorted by job and replaces
// --out only once it is complete (--out may be one of the inputs).
func mergeCommand(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("merge", stderr)
	out := fs.String("out", "", "merged results file (required)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: bogdbench merge --out FILE IN...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if *out == "" {
		return usagef("--out is required")
	}
	if fs.NArg() == 0 {
		return usagef("no input files")
	}
	merged, dups, err := mergeFiles(fs.Args(), func(msg string) { fmt.Fprintf(stderr, "bogdbench merge: warning: %s\n", msg) })
	if err != nil {
		return err
	}
	recs := merged.sorted()
	if err := writeRecords(*out, recs); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "merged %d records from %d files into %s (%d duplicates dropped)\n", len(recs), fs.NArg(), *out, dups)
	return nil
}

// mergeFiles reads results files into one set, counting duplicates.
func mergeFiles(paths []string, warn func(string)) (*resultSet, int, error) {
	merged := newResultSet()
	dups := 0
	for _, p := range paths {
		recs, _, _, err := readRecords(p, warn)
		if err != nil {
			return nil, 0, err
		}
		if _, err := os.Stat(p); err != nil {
			return nil, 0, err // readRecords takes a missing file for an empty one
		}
		for _, r := range recs {
			added, err := merged.add(r)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: %w", p, err)
			}
			if !added {
				dups++
			}
		}
	}
	return merged, dups, nil
}
