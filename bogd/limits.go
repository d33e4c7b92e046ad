package bogd

import (
	"io"
	"math"
	"strconv"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/task"
)

// DefaultMaxMemory is the memory, in bytes, that a model file may make its
// learner claim (Memory) unless LoadOptions says otherwise: 4 GiB. A model
// file is small beside what it can ask for (a budget of 2²⁰ and a thousand
// classes is a 12 GB BPA-S in 48 KB), so every load is checked against it
// before anything is allocated.
const DefaultMaxMemory = engine.DefaultMaxMemory

// LoadOptions bound what loading a model costs; the zero value holds the
// defaults, which Load and LoadFile use.
type LoadOptions struct {
	// MaxMemory caps the bytes of memory the loaded learner may claim
	// (Memory, its support vectors counted as the file stores them), and
	// so also the length of the model read. 0 means DefaultMaxMemory.
	MaxMemory int64
}

func (o LoadOptions) maxMemory() int64 {
	if o.MaxMemory <= 0 {
		return DefaultMaxMemory
	}
	return o.MaxMemory
}

// Load reads one learner as the package's Load does, within o's limits.
func (o LoadOptions) Load(r io.Reader) (*Learner, error) {
	return load(r, o.maxMemory())
}

// LoadFile reads the learner in the model file at path as the package's
// LoadFile does, within o's limits.
func (o LoadOptions) LoadFile(path string) (*Learner, error) {
	return loadFile(path, o.maxMemory())
}

// Sizes, in bytes, of what the learners keep per support vector or slot.
const (
	slotPadding     = 16 // the engine stores vectors in tiles of 16 slots
	sparseSlotBytes = 104
	// sparseEntryBytes is the memory of one stored non-zero of a sparse
	// vector: its index and value, and its posting in the feature's list.
	sparseEntryBytes = 64
)

// Memory estimates the bytes of memory that a learner of algorithm a with
// configuration cfg (zero fields as New fills them) holds once it stores
// vectors support vectors: the vectors (Dim float32 each when stored
// densely; a sparse vector's slot only, its non-zeros taking about 64
// bytes each on top), the weight columns, and the per-slot arrays of its
// rule, including the matrices Projectron (Budget² float64) and NOGD's
// transition (two Budget² float64) build and FOGD's frequencies
// (Features·Dim float32) and weights. A budgeted learner reserves its
// budget from the start: fewer vectors count as its budget. The estimate
// is within a factor of 2 of what the arrays take, and saturates at
// math.MaxInt64.
func Memory(a Algorithm, cfg Config, vectors int) int64 {
	return memory(a, cfg.withDefaults(a), vectors, 0)
}

// memory is Memory with the non-zeros of sparse vectors counted (nnz in
// all), computed in float64 so that no product of hostile sizes overflows.
func memory(a Algorithm, c Config, vectors, nnz int) int64 {
	k := 1.0
	if c.Task == task.Multiclass {
		k = float64(len(c.Classes))
	}
	budget, dim := float64(max(c.Budget, 0)), float64(max(c.Dim, 0))
	slots := float64(max(vectors, 0))
	if a.Budgeted() {
		slots = math.Max(slots, budget)
	}
	switch a {
	case BSGDMerge:
		slots++ // a new vector joins before two merge
	case FOGD:
		slots = 0
	}
	padded := math.Ceil(slots/slotPadding) * slotPadding
	bytes := 4 * padded * float64(columnsOf(a, c)) // weight columns
	if storageOf(c) == engine.SparseStorage {
		bytes += padded*sparseSlotBytes + float64(max(nnz, 0))*sparseEntryBytes
	} else {
		bytes += 4 * padded * (dim + 1) // the vectors and their norms
	}
	bytes += 8 * slots // patterns
	switch a {
	case BOGD:
		bytes += 4 * budget // the free weights' keys
	case BOGDpp:
		bytes += 12 * budget // members, their positions, individuals
	case BOGDOldest:
		bytes += 16 * budget // the ring of ages and its inverse
	case Forgetron:
		bytes += 20 * budget // ages and labels
	case BPAS:
		bytes += 8 * budget * (k + 1) // coefficients and costs
	case Projectron, ProjectronPP:
		bytes += 8*budget*(budget+1)/2 + 8*budget*(k+2) // K⁻¹, coefficients, scratch
	case NOGD:
		bytes += 8*k*float64(max(c.Rank, 0)) + 2*8*budget*budget // its linear model; the transition's Gram matrix and eigenvectors
	case BSGDMerge:
		bytes += 40 * (budget + 1) // norms, losses, kernel values, merge scratch
	case FOGD:
		d := math.Ceil(float64(max(c.Features, 0))/slotPadding) * slotPadding
		bytes += 4*d*(dim+1) + 4*2*d*(k+1) // frequencies; weights and z(x) over cos and sin
	}
	if bytes >= math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(bytes)
}

// byteSize formats a number of bytes for messages, in binary units.
func byteSize(n int64) string {
	const unit = 1 << 10
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, prefix := float64(n), 0
	for v >= unit && prefix < len("KMGTPE") {
		v /= unit
		prefix++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + "KMGTPE"[prefix-1:prefix] + "iB"
}
