package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/bogd-project/bogd/bogd"
)

// Streams of permutations: parameter selection and reported runs draw their
// permutations from different seeds, so that no reported permutation is ever
// used to choose parameters.
const (
	streamSelect = "select"
	streamReport = "report"
)

// record is one finished job of `bogdbench paper`: one online pass of one
// algorithm with one parameter setting over one permutation. It is stored as
// one JSON object per line in the results file. The fields up to Projection
// identify the job (jobKey); the rest is its outcome.
type record struct {
	Dataset    string  `json:"dataset"`   // the paper's name (w8a is the file w7a.svm.gz)
	Algorithm  string  `json:"algorithm"` // as bogd.Algorithm.String
	Budget     int     `json:"budget"`    // 0 for Perceptron and OGD
	Eta        float64 `json:"eta"`       // 0 when the algorithm has no η
	LambdaT2   float64 `json:"lambda_t2"` // λ·T² (λ = lambda_t2/T², T = rows); 0 when unused
	Gamma      float64 `json:"gamma"`     // 0 when unused
	Stream     string  `json:"stream"`    // "select" or "report"
	Run        int     `json:"run"`       // permutation index within the stream
	Seed       uint64  `json:"seed"`      // the stream's seed: permutation(seed, run), learnerSeed(seed, run)
	Sigma      float64 `json:"sigma"`
	Projection string  `json:"projection,omitempty"` // BOGD and BOGD++: clip or rescale

	Rows           int     `json:"rows"`
	Lambda         float64 `json:"lambda"`
	Mistakes       int     `json:"mistakes"`
	SupportVectors int     `json:"support_vectors"`
	Seconds        float64 `json:"seconds"`
	// Checkpoints (reported runs only) holds the cumulative mistakes after
	// the first ⌈k·rows/K⌉ examples, k = 1..K, K = len(Checkpoints).
	Checkpoints []int  `json:"checkpoints,omitempty"`
	SIMD        string `json:"simd"`
}

// jobKey identifies a job; two records with the same key must have the same
// outcome (apart from time and the SIMD implementation).
type jobKey struct {
	Dataset, Algorithm   string
	Budget               int
	Eta, LambdaT2, Gamma float64
	Stream               string
	Run                  int
	Seed                 uint64
	Sigma                float64
	Projection           string
}

func (r *record) key() jobKey {
	return jobKey{r.Dataset, r.Algorithm, r.Budget, r.Eta, r.LambdaT2, r.Gamma, r.Stream, r.Run, r.Seed, r.Sigma, r.Projection}
}

// String names a job for messages.
func (k jobKey) String() string {
	s := fmt.Sprintf("%s/%s", k.Dataset, k.Algorithm)
	if k.Budget > 0 {
		s += fmt.Sprintf("/B=%d", k.Budget)
	}
	return s + fmt.Sprintf(" eta=%g lambda*T^2=%g gamma=%g sigma=%g %s run %d seed %d", k.Eta, k.LambdaT2, k.Gamma, k.Sigma, k.Stream, k.Run, k.Seed)
}

// compareKeys orders jobs stably: paper dataset order, algorithm, budget,
// parameters, stream, run, seed. Shards are slices of this order.
func compareKeys(a, b jobKey) int {
	return cmp.Or(
		cmp.Compare(datasetIndex(a.Dataset), datasetIndex(b.Dataset)),
		cmp.Compare(a.Dataset, b.Dataset),
		cmp.Compare(a.Algorithm, b.Algorithm),
		cmp.Compare(a.Budget, b.Budget),
		cmp.Compare(a.LambdaT2, b.LambdaT2),
		cmp.Compare(a.Eta, b.Eta),
		cmp.Compare(a.Gamma, b.Gamma),
		cmp.Compare(a.Sigma, b.Sigma),
		cmp.Compare(a.Projection, b.Projection),
		cmp.Compare(a.Stream, b.Stream),
		cmp.Compare(a.Seed, b.Seed),
		cmp.Compare(a.Run, b.Run),
	)
}

func datasetIndex(name string) int {
	for i, d := range paperDatasets {
		if d.Name == name {
			return i
		}
	}
	return len(paperDatasets)
}

// sameOutcome reports whether two records of one job agree on everything
// deterministic: time and the SIMD implementation may differ.
func sameOutcome(a, b *record) bool {
	return a.Rows == b.Rows && a.Lambda == b.Lambda && a.Mistakes == b.Mistakes &&
		a.SupportVectors == b.SupportVectors && slices.Equal(a.Checkpoints, b.Checkpoints)
}

// validate checks a record read from a file.
func (r *record) validate() error {
	if _, err := bogd.ParseAlgorithm(r.Algorithm); err != nil {
		return err
	}
	switch {
	case r.Dataset == "":
		return errors.New("no dataset")
	case r.Stream != streamSelect && r.Stream != streamReport:
		return fmt.Errorf("stream %q is neither %q nor %q", r.Stream, streamSelect, streamReport)
	case r.Run < 0 || r.Rows <= 0 || r.Mistakes < 0 || r.Mistakes > r.Rows || r.Budget < 0:
		return errors.New("negative or inconsistent counts")
	}
	return nil
}

// resultSet holds records by job, refusing conflicting duplicates.
type resultSet struct {
	recs map[jobKey]*record
}

func newResultSet() *resultSet { return &resultSet{recs: map[jobKey]*record{}} }

// add stores r and reports whether it was new; a record of the same job
// with a different outcome is an error.
func (s *resultSet) add(r *record) (bool, error) {
	k := r.key()
	if old, ok := s.recs[k]; ok {
		if !sameOutcome(old, r) {
			return false, fmt.Errorf("conflicting results for %v: %d mistakes, %d support vectors (simd %s) vs %d mistakes, %d support vectors (simd %s)",
				k, old.Mistakes, old.SupportVectors, old.SIMD, r.Mistakes, r.SupportVectors, r.SIMD)
		}
		return false, nil
	}
	s.recs[k] = r
	return true, nil
}

func (s *resultSet) get(k jobKey) (*record, bool) {
	r, ok := s.recs[k]
	return r, ok
}

// sorted returns the records in compareKeys order.
func (s *resultSet) sorted() []*record {
	out := make([]*record, 0, len(s.recs))
	for _, r := range s.recs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return compareKeys(a.key(), b.key()) })
	return out
}

// readRecords reads a results file. A missing file is empty. A last line
// without its newline that does not parse is a write cut short (a crash or
// a full disk): it is reported through warn and its offset returned as
// torn (else torn is -1), so that a writer can cut it off; any other bad
// line is an error naming file and line. unterminated reports a last line
// that parsed but lacks its newline.
func readRecords(path string, warn func(string)) (recs []*record, torn int64, unterminated bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, -1, false, nil
	}
	if err != nil {
		return nil, -1, false, err
	}
	var off int64
	for line := 1; len(data) > 0; line++ {
		text, rest, complete := bytes.Cut(data, []byte("\n"))
		start := off
		off += int64(len(text)) + 1
		data = rest
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		r := new(record)
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		err := dec.Decode(r)
		if err == nil {
			err = r.validate()
		}
		if err != nil {
			if !complete {
				warn(fmt.Sprintf("%s:%d: ignoring an incomplete last line (an interrupted write)", path, line))
				return recs, start, false, nil
			}
			return nil, -1, false, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		recs = append(recs, r)
		unterminated = !complete
	}
	return recs, -1, unterminated, nil
}

// resultStore is the results of a `paper` run: every record read from the
// results file and the read-only extra files, and the results file opened
// for appending one line per finished job.
type resultStore struct {
	*resultSet
	path string
	mu   sync.Mutex
	f    *os.File
}

// openStore loads path (created if missing) and the read-only files extra,
// and opens path for appending. A torn last line of path is cut off.
func openStore(path string, extra []string, warn func(string)) (*resultStore, error) {
	st := &resultStore{resultSet: newResultSet(), path: path}
	unterminated := false
	for _, p := range extra {
		if _, err := os.Stat(p); err != nil {
			return nil, err // unlike the results file, an extra file must exist
		}
	}
	for _, p := range append([]string{path}, extra...) {
		recs, torn, unterm, err := readRecords(p, warn)
		if err != nil {
			return nil, err
		}
		if p == path {
			unterminated = unterm
			if torn >= 0 {
				if err := os.Truncate(p, torn); err != nil {
					return nil, err
				}
			}
		}
		for _, r := range recs {
			if _, err := st.add(r); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if unterminated {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, err
		}
	}
	st.f = f
	return st, nil
}

// save appends r as one line, written with a single call so that the file
// holds every finished job even if the process dies right after, and adds
// it to the set.
func (st *resultStore) save(r *record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, err := st.add(r); err != nil {
		return err
	}
	if _, err := st.f.Write(line); err != nil {
		return fmt.Errorf("%s: %w", st.path, err)
	}
	return nil
}

func (st *resultStore) close() error { return st.f.Close() }

// writeRecords writes records as JSON lines to path through a temporary
// file, so that an existing path is replaced only once all is written.
func writeRecords(path string, recs []*record) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".merge-*.jsonl")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	w := bufio.NewWriter(tmp)
	if err := encodeLines(w, recs); err != nil {
		tmp.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func encodeLines(w io.Writer, recs []*record) error {
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if _, err := w.Write(append(line, '\n')); err != nil {
			return err
		}
	}
	return nil
}
