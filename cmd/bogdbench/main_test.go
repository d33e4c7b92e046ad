package main

import (
	"strings"
	"testing"

	"github.com/bogd-project/bogd/simd"
)

// Help asked for goes to stdout (so that it pages) with exit 0; after a
// mistake, to stderr with exit 2.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"train", "--help"}, {"predict", "-h"}, {"run", "-help"}, {"merge", "-h"}} {
		code, stdout, stderr := bench(t, args...)
		if code != 0 || stderr != "" || !strings.Contains(stdout, "usage: bogdbench") {
			t.Errorf("%v: exit %d, stdout %.80q, stderr %q", args, code, stdout, stderr)
		}
	}
	code, stdout, stderr := bench(t, "train", "--help")
	if !strings.Contains(stdout, "-passes int") || !strings.Contains(stdout, "-sigma value") {
		t.Errorf("train --help: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, args := range [][]string{nil, {"nope"}, {"train", "--nope"}} {
		code, stdout, stderr := bench(t, args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "usage: bogdbench") {
			t.Errorf("%v: exit %d, stdout %q, stderr %.80q", args, code, stdout, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, stderr := bench(t, "--version")
	if code != 0 || stderr != "" || !strings.HasPrefix(stdout, "bogdbench github.com/bogd-project/bogd ") || !strings.Contains(stdout, "simd: "+simd.Active().String()+"\n") {
		t.Errorf("--version: exit %d\n%s%s", code, stdout, stderr)
	}
}
