package dataset

import (
	"bytes"
	"io"
)

// ReadOrders reads a permutation-order file (plain or gzip, detected by the
// magic bytes): one permutation per line, comma-separated 1-based row
// indices (spaces around commas allowed; blank lines skipped). n is the
// number of rows of the data file; every line must be a permutation of
// 1..n. If maxLines > 0 only the first maxLines permutations are read and
// the rest of the file is not looked at. The result is 0-based.
// An empty file is an error.
func ReadOrders(path string, n int, maxLines int) ([][]int, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseOrders(f, path, n, maxLines)
}

// ParseOrders is ReadOrders on a stream; name is used in error messages.
func ParseOrders(r io.Reader, name string, n int, maxLines int) ([][]int, error) {
	if name == "" {
		name = "<input>"
	}
	if n < 1 {
		return nil, errAt(name, 0, "invalid number of rows n=%d (must be >= 1)", n)
	}
	lr, err := newLineReader(r, name)
	if err != nil {
		return nil, err
	}
	var perms [][]int
	var seen []int32 // seen[k] = 1-based position of index k+1 on the current line, 0 if absent
	for maxLines <= 0 || len(perms) < maxLines {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line = trimSpace(line)
		if len(line) == 0 {
			continue
		}
		ln := lr.line
		if got := bytes.Count(line, []byte{','}) + 1; got != n {
			return nil, errAt(name, ln, "wrong length: expected %d indices (a permutation of 1..%d), got %d", n, n, got)
		}
		if seen == nil {
			seen = make([]int32, n)
		} else {
			clear(seen)
		}
		perm := make([]int, n)
		for pos := 1; pos <= n; pos++ {
			tok := line
			if c := bytes.IndexByte(line, ','); c >= 0 {
				tok, line = line[:c], line[c+1:]
			}
			tok = trimSpace(tok)
			v, ok := parseOrderIndex(tok)
			switch {
			case len(tok) == 0:
				return nil, errAt(name, ln, "empty index at position %d", pos)
			case !ok:
				return nil, errAt(name, ln, "token %s at position %d is not an integer", quote(tok), pos)
			case v < 1 || v > n:
				return nil, errAt(name, ln, "index %s at position %d out of range 1..%d", quote(tok), pos, n)
			case seen[v-1] != 0:
				return nil, errAt(name, ln, "duplicate index %d at position %d (already at position %d)", v, pos, seen[v-1])
			}
			seen[v-1] = int32(pos)
			perm[pos-1] = v - 1
		}
		perms = append(perms, perm)
	}
	if len(perms) == 0 {
		return nil, errAt(name, 0, "no permutations (empty file)")
	}
	return perms, nil
}

// parseOrderIndex parses an optionally signed base-10 integer. Values of
// huge magnitude saturate (they are out of range anyway).
func parseOrderIndex(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	v := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if v < 1<<40 {
			v = v*10 + int(c-'0')
		}
	}
	if neg {
		v = -v
	}
	return v, true
}
