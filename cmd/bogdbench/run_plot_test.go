package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runFigures are the files of `run --plot` on german with budgets 30 and 40.
var runFigures = []string{
	"german-B30-online.png", "german-B30-online.svg",
	"german-B40-online.png", "german-B40-online.svg",
	"german-time.png", "german-time.svg",
}

// checkFigures fails unless dir holds exactly the files names, each a valid
// PNG or SVG, and returns their contents.
func checkFigures(t *testing.T, dir string, names []string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, slices.Sorted(slices.Values(names))) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
	out := map[string][]byte{}
	for _, name := range names {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		switch filepath.Ext(name) {
		case ".png":
			if !bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
				t.Fatalf("%s: no PNG signature", path)
			}
			img, err := png.Decode(bytes.NewReader(data))
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
				t.Fatalf("%s: %v pixels", path, b)
			}
		case ".svg":
			if !bytes.HasPrefix(data, []byte("<?xml")) && !bytes.HasPrefix(data, []byte("<svg")) {
				t.Fatalf("%s does not start like an SVG: %q", path, data[:min(len(data), 40)])
			}
			if !bytes.Contains(data, []byte("<svg")) || !bytes.Contains(data, []byte("</svg>")) {
				t.Fatalf("%s: no <svg> element", path)
			}
			dec := xml.NewDecoder(bytes.NewReader(data))
			for {
				if _, err := dec.Token(); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
			}
		}
		out[name] = data
	}
	return out
}

// TestRunPlot: run --plot creates the directory and writes the figures; a
// second run keeps them and fails unless --force, which replaces them.
func TestRunPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figures", "german") // created by --plot
	args := []string{"run", "--data", germanPath, "--algo", "bogd++,rbp,perceptron", "--budget", "40,30",
		"--runs", "2", "--eta", "0.125", "--gamma", "1", "--plot", dir}
	code, stdout, stderr := bench(t, args...)
	if code != 0 {
		t.Fatalf("run --plot: exit %d\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "bogd++") || !strings.Contains(stderr, "wrote 3 figures (PNG and SVG) of german to "+dir) {
		t.Fatalf("run --plot output:\n%s%s", stdout, stderr)
	}
	first := checkFigures(t, dir, runFigures)
	svg := string(first["german-B30-online.svg"])
	for _, want := range []string{"german, B = 30: online mistake rate", "BOGD++", "RBP", "Perceptron (no budget)", "examples seen"} {
		if !strings.Contains(svg, want) {
			t.Errorf("german-B30-online.svg lacks %q", want)
		}
	}
	if svg := string(first["german-time.svg"]); !strings.Contains(svg, "budgets [30 40]") || !strings.Contains(svg, "seconds per pass") {
		t.Errorf("german-time.svg lacks its title or axis")
	}
	stat := func() map[string]os.FileInfo {
		out := map[string]os.FileInfo{}
		for _, name := range runFigures {
			fi, err := os.Stat(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			out[name] = fi
		}
		return out
	}
	before := stat()

	// Another seed without --force: refused before running, files untouched.
	code, stdout, stderr = bench(t, append(args, "--seed", "2")...)
	if code != 1 || !strings.Contains(stderr, filepath.Join(dir, "german-B30-online.png")) ||
		!strings.Contains(stderr, filepath.Join(dir, "german-time.svg")) ||
		!strings.Contains(stderr, "already exist: pass --force to overwrite them") {
		t.Fatalf("second run: exit %d, stderr %q", code, stderr)
	}
	if stdout != "" {
		t.Errorf("a refused run still ran: %q", stdout)
	}
	after := stat()
	for _, name := range runFigures {
		if !after[name].ModTime().Equal(before[name].ModTime()) || after[name].Size() != before[name].Size() {
			t.Errorf("the refused run touched %s", name)
		}
	}
	if now := checkFigures(t, dir, runFigures); !mapsEqual(now, first) {
		t.Fatal("the refused run changed the figures")
	}

	// --force replaces them (another seed draws other curves).
	code, stdout, stderr = bench(t, append(args, "--seed", "2", "--force")...)
	if code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, stdout, stderr)
	}
	now := checkFigures(t, dir, runFigures) // and no temporary file is left
	if bytes.Equal(now["german-B30-online.svg"], first["german-B30-online.svg"]) {
		t.Fatal("--force did not replace the figures")
	}
}

func mapsEqual(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestRunPlotKeepsUserFiles: one existing file of the run's figures is
// enough to refuse, and nothing else is written; other files in the
// directory do not matter.
func TestRunPlotKeepsUserFiles(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "german-time.svg")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, []byte("notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--data", germanPath, "--algo", "forgetron", "--budget", "20", "--runs", "1", "--plot", dir}
	code, _, stderr := bench(t, args...)
	if code != 1 || !strings.Contains(stderr, mine+" already exists: pass --force to overwrite it") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if data, _ := os.ReadFile(mine); string(data) != "mine" {
		t.Fatal("the refused run changed the user's file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("%d files in the directory, want the user's two", len(entries))
	}

	// One algorithm and one budget: a single point on the time axis.
	if code, stdout, stderr := bench(t, append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d\n%s%s", code, stdout, stderr)
	}
	checkFigures(t, dir, []string{"german-B20-online.png", "german-B20-online.svg", "german-time.png", "german-time.svg", "notes.txt"})
}

func TestRunPlotErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--plot", file}, 1, "--plot " + file + ": not a directory"},
		{[]string{"--plot", filepath.Join(file, "sub")}, 1, filepath.Join(file, "sub")},
		{[]string{"--force"}, 2, "--force needs --save or --plot"},
	} {
		args := append([]string{"run", "--data", germanPath, "--algo", "rbp", "--budget", "20", "--runs", "1"}, c.args...)
		code, stdout, stderr := bench(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout, stderr, c.code, c.want)
		}
	}
}
