// Package atomicfile writes whole files, so that a reader or a crash never sees half of one.
//
// Every file the project writes (models, results, tables, figures) goes
// through Write.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Options change how Write puts the file in place.
type Options struct {
	// NoClobber refuses to replace an existing file: Write then fails with
	// an error that satisfies errors.Is(err, fs.ErrExist) and leaves the
	// file alone. The check and the write are one step (a hard link of
	// the finished temporary file), so a file created meanwhile by
	// someone else is never replaced either.
	NoClobber bool
	// FailAt, for tests, runs before each step ("create", "write", "sync",
	// "close", "rename" or, with NoClobber, "link", then "syncdir") and
	// fails that step when it returns an error.
	FailAt func(step string) error
}

// Write writes data to path through a temporary file in the same
// directory: written, synced, closed, renamed over path (linked into place
// with NoClobber), then the directory synced. A new file gets mode 0644,
// an existing one keeps its permission bits. On any failure before the
// file is in place, the temporary file is removed and an existing path is
// left as it was; a failure of the last step (syncing the directory) means
// only that the new file might not survive a crash.
func Write(path string, data []byte, opt Options) error {
	return WriteFunc(path, opt, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc is Write for data that write produces into the temporary file
// (as the "write" step), so that output of any length goes in place whole
// without being held in memory: an error of write leaves path as it was.
func WriteFunc(path string, opt Options, write func(io.Writer) error) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	mode := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		switch {
		case opt.NoClobber:
			return fs.ErrExist
		case !fi.Mode().IsRegular():
			return errors.New("not a regular file")
		}
		mode = fi.Mode().Perm()
	}
	step := func(name string, do func() error) error {
		if opt.FailAt != nil {
			if err := opt.FailAt(name); err != nil {
				return err
			}
		}
		return do()
	}
	var f *os.File
	if err := step("create", func() (err error) {
		f, err = os.CreateTemp(dir, "."+name+".tmp-*")
		return err
	}); err != nil {
		return err
	}
	tmp, placed := f.Name(), false
	defer func() {
		if !placed {
			f.Close() // a second Close only reports an error
			os.Remove(tmp)
		}
	}()
	if err := step("write", func() error {
		if err := f.Chmod(mode); err != nil {
			return err
		}
		return write(f)
	}); err != nil {
		return err
	}
	if err := step("sync", f.Sync); err != nil {
		return err
	}
	if err := step("close", f.Close); err != nil {
		return err
	}
	if opt.NoClobber {
		// A link fails when path exists, whoever made it; the temporary
		// name goes once path holds the data.
		if err := step("link", func() error { return os.Link(tmp, path) }); err != nil {
			return err
		}
		placed = true
		os.Remove(tmp)
	} else {
		if err := step("rename", func() error { return os.Rename(tmp, path) }); err != nil {
			return err
		}
		placed = true
	}
	return step("syncdir", func() error {
		d, err := os.Open(dir)
		if err != nil {
			return err
		}
		defer d.Close()
		return d.Sync()
	})
}
