package serve

import (
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
type snapshots struct{ model, dir string }

func (s snapshots) prefix() string {
	base := filepath.Base(s.model)
	return strings.TrimSuffix(base, filepath.Ext(base)) + ".snapshot-"
}

func (s snapshots) path(pos uint64) string {
	return filepath.Join(s.dir, fmt.Sprintf("%s%06d.bogd", s.prefix(), pos))
}

// list returns the positions of the snapshot files, ascending.
func (s snapshots) list() ([]uint64, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, err
	}
	var positions []uint64
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), s.prefix())
		if !ok {
			continue
		}
		if digits, ok = strings.CutSuffix(digits, ".bogd"); !ok {
			continue
		}
		if n, err := strconv.ParseUint(digits, 10, 64); err == nil && n > 0 {
			positions = append(positions, n)
		}
	}
	slices.Sort(positions)
	return positions, nil
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

// newest returns where to start: the newest snapshot, unless the model
// file is newer; the model at position 0 when there is no snapshot.
func (s snapshots) newest() (start, error) {
	positions, err := s.list()
	if err != nil {
		return start{}, err
	}
	if len(positions) == 0 {
		return start{path: s.model}, nil
	}
	last := positions[len(positions)-1]
	model, err := os.Stat(s.model)
	if err != nil {
		return start{}, err
	}
	snap, err := os.Stat(s.path(last))
	if err != nil {
		return start{}, err
	}
	if model.ModTime().After(snap.ModTime()) {
		return start{path: s.model, pos: last, newer: true}, nil
	}
	return start{path: s.path(last), pos: last}, nil
}
