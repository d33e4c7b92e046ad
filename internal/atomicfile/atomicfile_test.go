package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// onlyFiles fails unless dir holds exactly the files names: no temporary
// file is left behind.
func onlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !slices.Equal(got, names) {
		t.Fatalf("%s holds %v, want %v", dir, got, names)
	}
}

func content(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestWriteNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	if err := Write(path, []byte("one"), Options{}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v, %v", fi.Mode(), err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two"), Options{}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, path); string(got) != "two" {
		t.Fatalf("content %q after replacing", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after replacing a 0600 file", fi.Mode())
	}
	onlyFiles(t, dir, "f.txt")
}

// A failure at any step before the file is in place leaves the old file
// whole and no temporary file behind; a failure after it (syncing the
// directory) is reported with the new file in place.
func TestWriteFailures(t *testing.T) {
	for _, noClobber := range []bool{false, true} {
		place := "rename"
		if noClobber {
			place = "link"
		}
		for _, step := range []string{"create", "write", "sync", "close", place, "syncdir"} {
			dir := t.TempDir()
			path := filepath.Join(dir, "f")
			if !noClobber {
				if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
					t.Fatal(err)
				}
			}
			seen := false
			err := Write(path, []byte("new"), Options{NoClobber: noClobber, FailAt: func(s string) error {
				seen = seen || s == step
				if s == step {
					return errors.New("injected failure")
				}
				return nil
			}})
			if !seen || err == nil || !strings.Contains(err.Error(), "injected failure") || !strings.Contains(err.Error(), path) {
				t.Fatalf("noClobber %v, %s: %v (step seen: %v)", noClobber, step, err, seen)
			}
			switch {
			case step == "syncdir":
				onlyFiles(t, dir, "f")
				if got := content(t, path); string(got) != "new" {
					t.Fatalf("noClobber %v: after syncdir failed, %q", noClobber, got)
				}
			case noClobber:
				onlyFiles(t, dir)
			default:
				onlyFiles(t, dir, "f")
				if got := content(t, path); string(got) != "old" {
					t.Fatalf("%s failed: the file is now %q", step, got)
				}
				if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
					t.Fatalf("%s failed: mode %v", step, fi.Mode())
				}
			}
		}
	}
}

func TestNoClobber(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	if err := Write(path, []byte("first"), Options{NoClobber: true}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", fi.Mode())
	}
	err := Write(path, []byte("second"), Options{NoClobber: true})
	if !errors.Is(err, fs.ErrExist) || !strings.Contains(err.Error(), path) {
		t.Fatalf("second write: %v", err)
	}
	if got := content(t, path); string(got) != "first" {
		t.Fatalf("refused write changed the file to %q", got)
	}
	onlyFiles(t, dir, "f")

	// A file that appears between the check and the placing is kept too.
	late := filepath.Join(dir, "late")
	err = Write(late, []byte("ours"), Options{NoClobber: true, FailAt: func(step string) error {
		if step == "link" {
			return os.WriteFile(late, []byte("theirs"), 0o644)
		}
		return nil
	}})
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("a file created during the write: %v", err)
	}
	if got := content(t, late); string(got) != "theirs" {
		t.Fatalf("the file created during the write became %q", got)
	}
	onlyFiles(t, dir, "f", "late")
}

func TestWriteErrors(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, []byte("x"), Options{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("writing over a directory: %v", err)
	}
	if err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("writing into a missing directory: %v", err)
	}
	if os.Geteuid() == 0 {
		return // root writes into read-only directories anyway
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ro, "f")
	if err := Write(path, []byte("old"), Options{}); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(ro, 0o755)
	if err := Write(path, []byte("new"), Options{}); err == nil {
		t.Error("writing into a read-only directory succeeded")
	}
	if got := content(t, path); string(got) != "old" {
		t.Errorf("a failed write into a read-only directory changed the file to %q", got)
	}
}
