package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/bogd-project/bogd/layout"
	"github.com/bogd-project/bogd/simd"
)

// Features is a random Fourier feature map of the Gaussian kernel of width
// σ (Rahimi and Recht, "Random Features for Large-Scale Kernel Machines",
// NIPS 2007): z(x) = [cos(uⱼᵀx)]ⱼ ++ [sin(uⱼᵀx)]ⱼ with D frequencies
// uⱼ ~ N(0, σ⁻²I), so that z(x)ᵀz(y)/D ≈ κ(x, y). FOGD learns a linear model
// on z. The frequencies are stored as the engine stores support vectors
// (tiles of 16, feature-major), so that z(x) is one pass of the projection
// fused with a vectorised sincos (simd.FourierFeatures). It is immutable
// once made, and safe for concurrent use.
type Features struct {
	m     *layout.Matrix
	count int
	sigma float64
}

// MaxFrequencyValues bounds count·dim, the frequencies a Features stores
// (512 MiB of float32): every frequency is dense in the input's dimension,
// so random Fourier features of very wide data (hashed text) cost that
// much memory whatever the data's sparsity.
const MaxFrequencyValues = 1 << 27

// NewFeatures draws count frequencies of dimension dim for width sigma
// from rng.
func NewFeatures(dim, count int, sigma float64, rng *rand.Rand) (*Features, error) {
	if count < 1 {
		return nil, fmt.Errorf("engine: %d Fourier features", count)
	}
	if dim > MaxFrequencyValues/count {
		return nil, fmt.Errorf("engine: %d Fourier frequencies of dimension %d would store %d values, more than %d (%d MiB)",
			count, dim, int64(count)*int64(dim), MaxFrequencyValues, MaxFrequencyValues*4>>20)
	}
	if !(sigma >= 1e-15 && sigma <= 1e15) {
		return nil, fmt.Errorf("engine: kernel width sigma must be in [1e-15, 1e15], got %v", sigma)
	}
	if err := simd.EnvError(); err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	m, err := layout.New(dim, count)
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	u := make([]float32, dim) // one frequency at a time: the matrix holds them all
	for range count {
		for j := range u {
			u[j] = float32(rng.NormFloat64() / sigma)
		}
		m.Append(u)
	}
	return &Features{m: m, count: count, sigma: sigma}, nil
}

// featuresOf stores the frequencies u (each of dimension dim) of width
// sigma.
func featuresOf(dim int, sigma float64, u [][]float32) (*Features, error) {
	m, err := layout.New(dim, len(u))
	if err != nil {
		return nil, fmt.Errorf("engine: %w", err)
	}
	for _, v := range u {
		m.Append(v)
	}
	return &Features{m: m, count: len(u), sigma: sigma}, nil
}

// Frequency copies frequency j into dst (resized to Dim) and returns it.
func (f *Features) Frequency(j int, dst []float32) []float32 { return f.m.Row(j, dst) }

// Count is D, the number of frequencies.
func (f *Features) Count() int { return f.count }

// Dim is the dimension of the inputs.
func (f *Features) Dim() int { return f.m.Dim() }

// Sigma is the kernel width the frequencies were drawn for.
func (f *Features) Sigma() float64 { return f.sigma }

// Len is the length of z(x): 2·D padded to whole tiles, cos(uⱼᵀx) at j and
// sin(uⱼᵀx) at Len/2 + j; the padding entries are 0.
func (f *Features) Len() int { return 2 * f.m.Padded() }

// Map writes z(x) into z (length Len) and returns it.
func (f *Features) Map(x Vector, z []float32) ([]float32, error) {
	if err := x.validate(f.m.Dim()); err != nil {
		return nil, fmt.Errorf("engine: Fourier features: %w", err)
	}
	if cap(z) < f.Len() {
		z = make([]float32, f.Len())
	}
	z = z[:f.Len()]
	if x.IsSparse() {
		simd.FourierFeaturesSparse(z, x.Index, x.Value, f.m.Tiles(), f.m.Dim())
	} else {
		simd.FourierFeatures(z, x.Dense, f.m.Tiles(), f.m.Dim())
	}
	half := f.m.Padded()
	clear(z[f.count:half]) // the padding slots project to 0: cos 1, sin 0
	return z, nil
}

// NewFeatureModel freezes a linear model over the random Fourier features
// f into a Model of outputs outputs: f_o(x) = Σⱼ w[o·f.Len()+j]·zⱼ(x), the
// weights column-major, one column of f.Len() per output (padding entries
// are ignored). Such a Model has no support vectors (Len is 0); it scores
// as the learner that made it (FOGD) does.
func NewFeatureModel(f *Features, outputs int, w []float32) (*Model, error) {
	n := f.Len()
	if outputs < 1 || len(w) != outputs*n {
		return nil, fmt.Errorf("engine: feature model: %d weights for %d outputs of %d features", len(w), outputs, n)
	}
	for i, v := range w {
		if !finite(v) {
			return nil, fmt.Errorf("engine: feature model: weight %d is %v", i, v)
		}
	}
	empty, err := New(f.Dim(), f.sigma, Options{Storage: DenseStorage})
	if err != nil {
		return nil, err
	}
	return &Model{view: empty.view, vs: empty.vs.frozen(), outputs: outputs, stride: n, weights: slices.Clone(w), feat: f}, nil
}

// featureScores writes the outputs of the feature model m at sc's query
// into sums, z(x) in sc.
func (m *Model) featureScores(sc *Scratch, sums []float32) {
	z, _ := m.feat.Map(sc.query, sc.buf[:m.stride]) // the query is valid
	simd.DotColumns(sums, z, m.weights, m.stride)
}
