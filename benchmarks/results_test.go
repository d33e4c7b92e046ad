// Package benchmarks holds no code: its tests check that the results
// committed under results/ are what this build computes.
package benchmarks

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/experiment"
)

// resultsFiles returns every results file committed under results/: the
// *-runs.jsonl files that the studies (paper, lsokl, autotable) keep their
// records in. results/kol holds timing rounds of two tools in another
// schema, without rule versions, and a study's *.jsonl summary is written
// from its runs file.
func resultsFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("results", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && path == filepath.Join("results", "kol"):
			return fs.SkipDir
		case !d.IsDir() && strings.HasSuffix(path, "-runs.jsonl"):
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no results files (*-runs.jsonl) under benchmarks/results")
	}
	return files
}

// TestResultsAreThisBuildsRules fails when a committed results file holds
// records of a rule version other than the build's: the tables written
// from it are then not what the build computes, and `--resume` would set
// those records aside and run them again. A change of a learner's rule
// (bogd ruleVersions) thus cannot land without the rerun of its results.
// The file is read as every study reads it (experiment.ResultSet.Load),
// whose warnings name the file, the algorithm and both versions; any other
// warning (a torn last line) is as wrong in a committed file.
func TestResultsAreThisBuildsRules(t *testing.T) {
	for _, path := range resultsFiles(t) {
		var warnings []string
		n, err := load(path, &warnings)
		switch {
		case err != nil:
			t.Errorf("benchmarks/%s: %v", path, err)
		case len(warnings) > 0:
			t.Errorf("benchmarks/%s holds results this build does not compute (it keeps %d records); rerun them:\n\t%s",
				path, n, strings.Join(warnings, "\n\t"))
		default:
			t.Logf("benchmarks/%s: %d records, all of this build's rules", path, n)
		}
	}
}

// load reads the results file at path as the studies do, collecting its
// warnings, and returns the number of records kept.
func load(path string, warnings *[]string) (int, error) {
	set := experiment.NewResultSet()
	_, err := set.Load(path, func(msg string) { *warnings = append(*warnings, msg) })
	return set.Len(), err
}

// TestREADMEShowsARecord: the record that README.md shows as the results
// file format is one of results/quick/paper-runs.jsonl, field for field but
// its time, its SIMD implementation and its checkpoints (elided there), so
// that a new field or a rerun that changes it shows in the document.
func TestREADMEShowsARecord(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "### Results file format")
	if ok {
		_, after, ok = strings.Cut(after, "```json\n")
	}
	shownText, _, closed := strings.Cut(after, "```")
	if !ok || !closed {
		t.Fatal(`README.md has no "### Results file format" section with a json block`)
	}
	var shown map[string]any
	if err := json.Unmarshal([]byte(strings.Replace(shownText, "[...]", "null", 1)), &shown); err != nil {
		t.Fatalf("README.md's record: %v\n%s", err, shownText)
	}
	const path = "results/quick/paper-runs.jsonl"
	records, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	elided := map[string]bool{"seconds": true, "simd": true, "checkpoints": true}
	same := func(r map[string]any) bool { // the same fields, with the same values but the elided
		if len(r) != len(shown) {
			return false
		}
		for k, v := range shown {
			if w, ok := r[k]; !ok || !elided[k] && !reflect.DeepEqual(v, w) {
				return false
			}
		}
		return true
	}
	var near []string
	for line := range strings.Lines(string(records)) {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if same(r) {
			return
		}
		if !slices.ContainsFunc([]string{"dataset", "algorithm", "budget", "stream", "run"}, func(k string) bool { return r[k] != shown[k] }) {
			near = append(near, line)
		}
	}
	t.Errorf("README.md's record is not in %s:\n%s\nthe records of its dataset, algorithm, budget, stream and run:\n%s", path, shownText, strings.Join(near, ""))
}
