package serve

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// snapshots names the snapshot files of a model: NAME.snapshot-POSITION.bogd
// in dir, NAME the model's file name without its extension, POSITION the
// log position the snapshot holds the model at (at least six digits).
// When something else holds that name (a directory, a device), the
// snapshot takes the next free one, NAME.snapshot-POSITION.N.bogd, N = 1,
// 2, ….
type snapshots struct{ model, dir string }

// snapshotFile is a snapshot on disk.
type snapshotFile struct {
	path string
	pos  uint64
	n    int // the N of NAME.snapshot-POSITION.N.bogd, 0 without
}

func (s snapshots) prefix() string {
	base := filepath.Base(s.model)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ".snapshot-"
}

func (s snapshots) path(pos uint64) string { return s.nth(pos, 0) }

func (s snapshots) nth(pos uint64, n int) string {
	if n == 0 {
		return filepath.Join(s.dir, fmt.Sprintf("%s%06d.bogd", s.prefix(), pos))
	}
	return filepath.Join(s.dir, fmt.Sprintf("%s%06d.%d.bogd", s.prefix(), pos, n))
}

// free returns the name a snapshot at pos is written to: the first of its
// names that is free or a regular file (an earlier snapshot at pos, which
// it replaces).
func (s snapshots) free(pos uint64) (string, error) {
	const tries = 100
	for n := range tries {
		path := s.nth(pos, n)
		fi, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && fi.Mode().IsRegular() {
			return path, nil
		}
	}
	return "", fmt.Errorf("the %d names of a snapshot at position %d in %s are all held by something that is not a snapshot file", tries, pos, s.dir)
}

// list returns the snapshot files, by position and N ascending. Only
// regular files count: a directory that holds a snapshot's name is none.
func (s snapshots) list() ([]snapshotFile, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var files []snapshotFile
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), s.prefix())
		if !ok {
			continue
		}
		if rest, ok = strings.CutSuffix(rest, ".bogd"); !ok {
			continue
		}
		digits, nth, hasN := strings.Cut(rest, ".")
		pos, err := strconv.ParseUint(digits, 10, 64)
		if err != nil || pos == 0 {
			continue
		}
		n := 0
		if hasN {
			if n, err = strconv.Atoi(nth); err != nil || n < 1 || s.nth(pos, n) != filepath.Join(s.dir, e.Name()) {
				continue
			}
		}
		path := filepath.Join(s.dir, e.Name())
		if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		files = append(files, snapshotFile{path: path, pos: pos, n: n})
	}
	slices.SortFunc(files, func(a, b snapshotFile) int {
		return cmp.Or(cmp.Compare(a.pos, b.pos), cmp.Compare(a.n, b.n))
	})
	return files, nil
}

// removeTemporary removes what a crash while writing a snapshot left: the
// temporary files atomicfile writes a snapshot through (.NAME.snapshot-….tmp-…).
// It returns the names removed.
func (s snapshots) removeTemporary() ([]string, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, e := range entries {
		if name := e.Name(); strings.HasPrefix(name, "."+s.prefix()) && strings.Contains(name, ".tmp-") {
			if err := os.Remove(filepath.Join(s.dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
			removed = append(removed, name)
		}
	}
	return removed, nil
}

// start is where a server starts: the file to load and the log position
// it holds the model at.
type start struct {
	path string
	pos  uint64
	// newer: the model file is newer than its newest snapshot (it was
	// trained again since): it starts at the log's end, and the snapshots
	// and the log before are of the model it replaces.
	newer bool
}

// starts returns where the server may start, the best first: the model at
// position 0 when there is no snapshot; the model when it is newer than
// the newest snapshot; else the snapshots, newest first.
func (s snapshots) starts() ([]start, error) {
	files, err := s.list()
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return []start{{path: s.model}}, nil
	}
	newest := files[len(files)-1]
	model, err := os.Stat(s.model)
	if err != nil {
		return nil, err
	}
	snap, err := os.Stat(newest.path)
	if err != nil {
		return nil, err
	}
	if model.ModTime().After(snap.ModTime()) {
		return []start{{path: s.model, pos: newest.pos, newer: true}}, nil
	}
	var starts []start
	for _, f := range slices.Backward(files) {
		starts = append(starts, start{path: f.path, pos: f.pos})
	}
	return starts, nil
}
