package bogd

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// hostileModels are model files with valid checksums whose sizes ask for
// far more memory than they hold, each a few hundred bytes to 50 KB: an
// unbudgeted learner's unused Budget (which loading once took as a slice
// capacity: 1e9 and 2⁴⁰ ran out of memory, 2⁶² panicked), and products of
// sizes each within its own limit: budget × classes (BPA-S, 12 GB),
// budget × rank (NOGD), features × classes (FOGD), budget × dimension
// (dense storage).
func hostileModels(t testing.TB) map[string][]byte {
	classes := make([]int, 1000)
	for i := range classes {
		classes[i] = i
	}
	saved := func(a Algorithm, cfg Config) []byte {
		cfg.Seed = 1
		return mustSave(t, mustNew(t, a, cfg))
	}
	budget := func(data []byte, b uint64) []byte {
		data = bytes.Clone(data)
		binary.LittleEndian.PutUint64(data[offBudget:], b)
		return rechecksum(data)
	}
	perceptron := saved(Perceptron, Config{Dim: 4})
	out := map[string][]byte{
		"perceptron_budget_1e9":   budget(perceptron, 1e9),
		"perceptron_budget_2_40":  budget(perceptron, 1<<40),
		"perceptron_budget_2_62":  budget(perceptron, 1<<62),
		"ogd_budget_2_62":         budget(saved(OGD, Config{Dim: 4}), 1<<62),
		"norma_budget_2_62":       budget(saved(NORMA, Config{Dim: 4, Task: task.Regression}), 1<<62),
		"bpas_1000_classes_2_20":  budget(saved(BPAS, Config{Dim: 1, Budget: 2, Classes: classes}), 1<<20),
		"bogd_dense_2_24_by_2_20": budget(saved(BOGD, Config{Dim: 1 << 10, Budget: 2, Storage: engine.DenseStorage}), 1<<20),
	}
	// NOGD at a budget of 2²⁰ with the rank as large: Budget·(1+Rank)
	// float32 weights. FOGD with 2²⁰ features and 1000 classes: 8 GB of
	// weights.
	offRank := offTask + 1 + 3*8
	offFeatures := offRank + 8
	nogd := saved(NOGD, Config{Dim: 1, Budget: 2, Rank: 2})
	binary.LittleEndian.PutUint64(nogd[offRank:], 1<<20)
	binary.LittleEndian.PutUint32(nogd[offColumns:], 1+1<<20)
	out["nogd_rank_2_20"] = budget(nogd, 1<<20)
	fogd := saved(FOGD, Config{Dim: 1, Classes: classes, Features: 16})
	binary.LittleEndian.PutUint64(fogd[offFeatures:], 1<<20)
	out["fogd_1000_classes_2_20"] = rechecksum(fogd)
	return out
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestLoadBoundedBeforeAllocating: every hostile model loads in a few
// megabytes, or is refused with ErrTooLarge before anything is allocated
// for it; an unbudgeted learner's budget costs nothing.
func TestLoadBoundedBeforeAllocating(t *testing.T) {
	for name, data := range hostileModels(t) {
		var l *Learner
		var err error
		bytesAllocated := allocated(func() { l, err = Load(bytes.NewReader(data)) })
		if bytesAllocated > 8<<20 {
			t.Errorf("%s (%d bytes): loading allocated %d bytes", name, len(data), bytesAllocated)
		}
		unbudgeted := strings.HasPrefix(name, "perceptron") || strings.HasPrefix(name, "ogd") || strings.HasPrefix(name, "norma")
		switch {
		case unbudgeted && err != nil:
			t.Errorf("%s: %v, want the learner (its budget is unused)", name, err)
		case unbudgeted:
			if again := mustSave(t, l); !bytes.Equal(again, data) {
				t.Errorf("%s: saves differently", name)
			}
		case !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the limit is 4.0 GiB"):
			t.Errorf("%s: %v, want ErrTooLarge naming the limit", name, err)
		}
	}
}

// TestLoadOptionsMaxMemory: the limit is the caller's to raise or lower,
// and LoadFile checks it too.
func TestLoadOptionsMaxMemory(t *testing.T) {
	data := mustSave(t, mustNew(t, BOGD, Config{Dim: 1000, Budget: 100, Seed: 1}))
	claim := Memory(BOGD, Config{Dim: 1000, Budget: 100}, 0)
	if claim < 100*1000*4 || claim > 2*112*1001*4+100*100 {
		t.Fatalf("BOGD at budget 100, dimension 1000: a claim of %d bytes", claim)
	}
	if _, err := (LoadOptions{MaxMemory: claim}).Load(bytes.NewReader(data)); err != nil {
		t.Errorf("at its claim: %v", err)
	}
	if _, err := (LoadOptions{MaxMemory: claim - 1}).Load(bytes.NewReader(data)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a byte below its claim: %v", err)
	}
	path := filepath.Join(t.TempDir(), "m.bogd")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := (LoadOptions{MaxMemory: claim - 1}).LoadFile(path); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadFile a byte below its claim: %v", err)
	}
	if _, err := (LoadOptions{MaxMemory: int64(len(data)) - 1}).LoadFile(path); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a file longer than the limit: %v", err)
	}
	if big := (LoadOptions{MaxMemory: 1 << 50}); big.maxMemory() != 1<<50 || (LoadOptions{}).maxMemory() != DefaultMaxMemory {
		t.Error("MaxMemory not taken")
	}
}

// TestLoadFileNotRegular: a device or a directory as a model file is an
// error before it is read (LoadFile once read /dev/zero without end).
func TestLoadFileNotRegular(t *testing.T) {
	for _, path := range []string{"/dev/zero", t.TempDir()} {
		if _, err := LoadFile(path); err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// TestMemoryGrowsWithEverySize: the claim follows each size it names, so
// that none of them escapes the check.
func TestMemoryGrowsWithEverySize(t *testing.T) {
	base := func(a Algorithm) Config {
		c := Config{Dim: 8, Budget: 64, Rank: 8, Features: 64}
		if a == NORMA {
			c.Task = task.Regression
		}
		return c
	}
	for _, a := range Algorithms() {
		c := base(a)
		const vectors = 64 // the unbudgeted learners' support vectors
		m := Memory(a, c, vectors)
		grow := map[string]Config{}
		wider := c
		wider.Dim *= 2
		grow["Dim"] = wider
		if a.Budgeted() && a != FOGD {
			larger := c
			larger.Budget *= 2
			grow["Budget"] = larger
		}
		if a.Supports(task.Multiclass) {
			classes := c
			classes.Classes = []int{1, 2, 3, 4}
			grow["Classes"] = classes
		}
		switch a {
		case NOGD:
			r := c
			r.Rank *= 2
			grow["Rank"] = r
		case FOGD:
			f := c
			f.Features *= 2
			grow["Features"] = f
		}
		for field, g := range grow {
			if Memory(a, g, vectors) <= m {
				t.Errorf("%v: doubling %s leaves the claim at %d bytes", a, field, m)
			}
		}
		if !a.Budgeted() && Memory(a, c, 1000) <= Memory(a, c, 10) {
			t.Errorf("%v: the claim does not grow with its support vectors", a)
		}
	}
	if got := Memory(BPAS, Config{Dim: 1, Budget: math.MaxInt, Classes: []int{1, 2}}, 0); got != math.MaxInt64 {
		t.Errorf("a claim beyond int64: %d", got)
	}
}
