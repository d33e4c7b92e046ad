package experiment

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/internal/atomicfile"
	"github.com/bogd-project/bogd/task"
)

// Record is one finished job, stored as one JSON object per line of a
// results file. The fields up to AbsLambda identify the job (Key); Rule
// and SIMD say what computed it; the rest is its outcome.
//
// The format grows without breaking stored files: the fields of the
// tasks and rules that came after binary classification are left out when
// zero, so that binary records keep their form (and their keys), and
// records of older rule versions stay readable (and are set aside, see
// ResultSet.Load).
type Record struct {
	Dataset    string  `json:"dataset"`   // the experiment's dataset name
	Algorithm  string  `json:"algorithm"` // as bogd.Algorithm.String
	Rule       int     `json:"rule"`      // bogd.Algorithm.RuleVersion of the arithmetic that ran; 1 when absent
	Budget     int     `json:"budget"`    // 0 for algorithms without a budget
	Eta        float64 `json:"eta"`       // 0 when the algorithm has no η
	LambdaT2   float64 `json:"lambda_t2"` // λ·T² (λ = lambda_t2/T², T = rows); 0 when unused or given directly
	Gamma      float64 `json:"gamma"`     // 0 when unused
	Stream     string  `json:"stream"`    // "select" or "report"
	Run        int     `json:"run"`       // permutation index within the stream
	Seed       uint64  `json:"seed"`      // the stream's seed: Permutation(seed, run), LearnerSeed(seed, run)
	Sigma      float64 `json:"sigma"`
	Projection string  `json:"projection,omitempty"` // BOGD and BOGD++: clip or rescale

	Task      string  `json:"task,omitempty"`       // TaskName: absent for binary
	Scaling   string  `json:"scaling,omitempty"`    // ScalingMinMax or ScalingMaxAbs when the data were scaled so
	Epsilon   float64 `json:"epsilon,omitempty"`    // regression: ε
	Nu        float64 `json:"nu,omitempty"`         // NORMA: ν
	C         float64 `json:"c,omitempty"`          // BPA-S: C
	Rank      int     `json:"rank,omitempty"`       // NOGD: k
	Features  int     `json:"features,omitempty"`   // FOGD: D
	AbsLambda float64 `json:"abs_lambda,omitempty"` // λ as the grid gave it, when it gives λ rather than λ·T²

	Rows   int     `json:"rows"`
	Lambda float64 `json:"lambda"` // the λ of the pass
	Result
	SIMD string `json:"simd"` // the simd implementation that ran the pass
}

// Key is the job the record belongs to.
func (r *Record) Key() Key {
	return Key{
		Dataset: r.Dataset, Algorithm: r.Algorithm, Budget: r.Budget,
		Eta: r.Eta, LambdaT2: r.LambdaT2, Gamma: r.Gamma,
		Stream: r.Stream, Run: r.Run, Seed: r.Seed, Sigma: r.Sigma, Projection: r.Projection,
		Task: r.Task, Scaling: r.Scaling, Epsilon: r.Epsilon, Nu: r.Nu, C: r.C,
		Rank: r.Rank, Features: r.Features, AbsLambda: r.AbsLambda,
	}
}

// Metric is the figure the record's pass is judged by (Result.Metric):
// what selection minimises and tables show.
func (r *Record) Metric() float64 {
	tk, _ := ParseTaskName(r.Task) // validated when read
	return r.Result.Metric(r.Rows, tk)
}

// TaskName is the name of task t in records and keys: "" for binary, so
// that binary records keep the form they had before tasks (and for Auto,
// the Task of a Plan that sets none: a binary plan's).
func TaskName(t task.Task) string {
	if t == task.Binary || t == task.Auto {
		return ""
	}
	return t.String()
}

// ParseTaskName reads a TaskName.
func ParseTaskName(s string) (task.Task, error) {
	if s == "" {
		return task.Binary, nil
	}
	t, err := task.Parse(s)
	if err != nil || t == task.Binary {
		return 0, fmt.Errorf("task %q is neither multiclass nor regression (binary is written as no task)", s)
	}
	return t, nil
}

// ScalingMinMax names data min-max scaled to [0, 1] per column over the
// whole file (dataset.MinMax), a regression label included;
// ScalingMaxAbs data whose every column is divided by its largest
// absolute value (dataset.MaxAbs), a regression label min-max scaled.
const (
	ScalingMinMax = "minmax"
	ScalingMaxAbs = "maxabs"
)

// sameOutcome reports whether two records of one job agree on everything
// deterministic: time and the SIMD implementation may differ.
func sameOutcome(a, b *Record) bool {
	return a.Rule == b.Rule && a.Rows == b.Rows && a.Lambda == b.Lambda && a.Mistakes == b.Mistakes &&
		a.SquaredError == b.SquaredError && a.DivergedAt == b.DivergedAt && a.SupportVectors == b.SupportVectors &&
		slices.Equal(a.Checkpoints, b.Checkpoints) && slices.Equal(a.ErrorCheckpoints, b.ErrorCheckpoints)
}

// outcome describes a record's result for messages.
func (r *Record) outcome() string {
	if r.Task == TaskName(task.Regression) {
		if r.DivergedAt > 0 {
			return fmt.Sprintf("diverged at row %d, %d support vectors", r.DivergedAt, r.SupportVectors)
		}
		return fmt.Sprintf("squared error %g, %d support vectors", r.SquaredError, r.SupportVectors)
	}
	return fmt.Sprintf("%d mistakes, %d support vectors", r.Mistakes, r.SupportVectors)
}

// validate checks a record read from a file.
func (r *Record) validate() error {
	if _, err := bogd.ParseAlgorithm(r.Algorithm); err != nil {
		return err
	}
	tk, err := ParseTaskName(r.Task)
	if err != nil {
		return err
	}
	switch {
	case r.Dataset == "":
		return errors.New("no dataset")
	case r.Stream != StreamSelect && r.Stream != StreamReport:
		return fmt.Errorf("stream %q is neither %q nor %q", r.Stream, StreamSelect, StreamReport)
	case r.Scaling != "" && r.Scaling != ScalingMinMax && r.Scaling != ScalingMaxAbs:
		return fmt.Errorf("scaling %q is neither %q nor %q", r.Scaling, ScalingMinMax, ScalingMaxAbs)
	case r.Rule < 0 || r.Run < 0 || r.Rows <= 0 || r.Mistakes < 0 || r.Mistakes > r.Rows || r.Budget < 0 || r.Rank < 0 || r.Features < 0 ||
		r.DivergedAt < 0 || r.DivergedAt > r.Rows:
		return errors.New("negative or inconsistent counts")
	case !(r.SquaredError >= 0):
		return fmt.Errorf("squared error %v is negative", r.SquaredError)
	case tk == task.Regression && (r.Mistakes > 0 || len(r.Checkpoints) > 0):
		return errors.New("a regression pass with mistakes")
	case tk != task.Regression && (r.SquaredError > 0 || len(r.ErrorCheckpoints) > 0 || r.DivergedAt > 0):
		return fmt.Errorf("a %v pass with squared errors", tk)
	}
	return nil
}

// ResultSet holds records by job, refusing conflicting duplicates.
type ResultSet struct {
	recs map[Key]*Record
}

// NewResultSet returns an empty set.
func NewResultSet() *ResultSet { return &ResultSet{recs: map[Key]*Record{}} }

// Add stores r and reports whether it was new; a record of the same job
// with a different outcome is an error naming both records' SIMD
// implementations.
func (s *ResultSet) Add(r *Record) (bool, error) {
	k := r.Key()
	if old, ok := s.recs[k]; ok {
		if !sameOutcome(old, r) {
			return false, fmt.Errorf("conflicting results for %v: %s (rule %d, simd %s) vs %s (rule %d, simd %s)",
				k, old.outcome(), old.Rule, old.SIMD, r.outcome(), r.Rule, r.SIMD)
		}
		return false, nil
	}
	s.recs[k] = r
	return true, nil
}

// Get returns the record of job k.
func (s *ResultSet) Get(k Key) (*Record, bool) {
	r, ok := s.recs[k]
	return r, ok
}

// All yields every record, in no particular order.
func (s *ResultSet) All() iter.Seq[*Record] { return maps.Values(s.recs) }

// Len is the number of jobs with a record.
func (s *ResultSet) Len() int { return len(s.recs) }

// Sorted returns the records in the order of o.
func (s *ResultSet) Sorted(o Ranking) []*Record {
	out := make([]*Record, 0, len(s.recs))
	for _, r := range s.recs {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *Record) int { return o.Compare(a.Key(), b.Key()) })
	return out
}

// Load adds the records of the results file at path, which must exist.
// Records of another rule version than this build's are set aside, and
// counted per algorithm and version through warn: their arithmetic is not
// today's, so they neither count as done nor mix with today's figures. A
// torn last line is reported through warn and skipped. It returns how
// many records were already in the set.
func (s *ResultSet) Load(path string, warn func(string)) (dups int, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	recs, _, _, err := parseRecords(path, data, warn)
	if err != nil {
		return 0, err
	}
	return s.addCurrent(path, recs, warn)
}

// addCurrent adds the records of today's rule versions (see Load).
func (s *ResultSet) addCurrent(path string, recs []*Record, warn func(string)) (dups int, err error) {
	type version struct {
		algo string
		rule int
	}
	other := map[version]int{}
	for _, r := range recs {
		a, _ := bogd.ParseAlgorithm(r.Algorithm) // validated by parseRecords
		if r.Rule != a.RuleVersion() {
			other[version{r.Algorithm, r.Rule}]++
			continue
		}
		added, err := s.Add(r)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", path, err)
		}
		if !added {
			dups++
		}
	}
	versions := slices.SortedFunc(maps.Keys(other), func(a, b version) int {
		return cmp.Or(strings.Compare(a.algo, b.algo), cmp.Compare(a.rule, b.rule))
	})
	for _, v := range versions {
		a, _ := bogd.ParseAlgorithm(v.algo)
		warn(fmt.Sprintf("%s: ignoring %d records of %s rule version %d (this build computes version %d)",
			path, other[v], v.algo, v.rule, a.RuleVersion()))
	}
	return dups, nil
}

// parseRecords reads the lines of a results file. A last line without its
// newline that does not parse is a write cut short (a crash or a full
// disk): it is reported through warn and its offset returned as torn (else
// torn is -1), so that a writer can cut it off; any other bad line is an
// error naming file and line. unterminated reports a last line that parsed
// but lacks its newline.
func parseRecords(path string, data []byte, warn func(string)) (recs []*Record, torn int64, unterminated bool, err error) {
	var off int64
	for line := 1; len(data) > 0; line++ {
		text, rest, complete := bytes.Cut(data, []byte("\n"))
		start := off
		off += int64(len(text)) + 1
		data = rest
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		r := new(Record)
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
			return nil, -1, false, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		if r.Rule == 0 {
			r.Rule = 1 // written before records carried their rule version
		}
		recs = append(recs, r)
		unterminated = !complete
	}
	return recs, -1, unterminated, nil
}

// Store is the results of a run: every record of the results file and of
// read-only extra files, and the results file open for appending one line
// per finished job, so that an interrupted run loses no finished job.
type Store struct {
	*ResultSet
	path string
	mu   sync.Mutex
	f    *os.File
}

// OpenStore opens the results file at path for appending. Without resume
// the file must not exist (it is created, never appended to by surprise:
// the error is an *ExistsError); with resume its records are loaded (a
// missing file is an empty one) and a torn last line is cut off.
func OpenStore(path string, resume bool, warn func(string)) (*Store, error) {
	st := &Store{ResultSet: NewResultSet(), path: path}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	unterminated := false
	if resume {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		recs, torn, unterm, err := parseRecords(path, data, warn)
		if err != nil {
			return nil, err
		}
		if torn >= 0 {
			if err := os.Truncate(path, torn); err != nil {
				return nil, err
			}
		}
		unterminated = unterm
		if _, err := st.addCurrent(path, recs, warn); err != nil {
			return nil, err
		}
	} else {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, &ExistsError{Paths: []string{path}}
	} else if err != nil {
		return nil, err
	}
	if unterminated {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	st.f = f
	return st, nil
}

// Path is the results file.
func (st *Store) Path() string { return st.path }

// Save appends r as one line, written with a single call so that the file
// holds every finished job even if the process dies right after, and adds
// it to the set.
func (st *Store) Save(r *Record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, err := st.Add(r); err != nil {
		return err
	}
	if _, err := st.f.Write(line); err != nil {
		return fmt.Errorf("%s: %w", st.path, err)
	}
	return nil
}

// Close closes the results file; its error is the last word on whether
// every line reached it.
func (st *Store) Close() error {
	if err := st.f.Close(); err != nil {
		return fmt.Errorf("%s: %w", st.path, err)
	}
	return nil
}

// WriteRecords writes records as JSON lines to path atomically: an
// existing file is replaced only once all is written.
func WriteRecords(path string, recs []*Record) error {
	var b bytes.Buffer
	for _, r := range recs {
		line, err := json.Marshal(r)
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	}
	return atomicfile.Write(path, b.Bytes(), atomicfile.Options{})
}

// Merge reads results files (each must exist) into one set, dropping
// identical duplicates and counting them; conflicting records of one job
// are an error. Records of other rule versions are left out (see Load).
func Merge(paths []string, warn func(string)) (*ResultSet, int, error) {
	merged := NewResultSet()
	total := 0
	for _, p := range paths {
		dups, err := merged.Load(p, warn)
		if err != nil {
			return nil, 0, err
		}
		total += dups
	}
	return merged, total, nil
}

// ExistsError names files that a write refusing to replace files found in
// its way.
type ExistsError struct{ Paths []string }

func (e *ExistsError) Error() string {
	if len(e.Paths) == 1 {
		return e.Paths[0] + " already exists"
	}
	return strings.Join(e.Paths, ", ") + " already exist"
}

// Is makes errors.Is(err, fs.ErrExist) hold.
func (e *ExistsError) Is(target error) bool { return target == fs.ErrExist }
