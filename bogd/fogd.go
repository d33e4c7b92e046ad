package bogd

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/simd"
)

// fogd is FOGD, Fourier online gradient descent (Lu, Hoi, Wang, Zhao, Liu,
// "Large Scale Online Kernel Learning", JMLR 17, 2016), as the LSOKL
// toolbox's FouGD.m runs it in every task: D random Fourier features
// z(x) = [cos(uⱼᵀx), sin(uⱼᵀx)], uⱼ ~ N(0, σ⁻²I) (Config.Features = D,
// 4·Budget by default, as the toolbox's binary and multi-class drivers),
// without the 1/√D normalisation, and linear online gradient descent on
// them: f_c(x) = w_cᵀz(x), and when the loss has a gradient (as OGD's, see
// ogd: y·f < 1, the multi-class hinge loss > 0, |y − f| > ε)
// w_c ← w_c + η·g·z(x) along the update direction. No regularisation, no
// clipping, no support vectors.
//
// The frequencies come from their own PCG stream of Config.Seed, so a
// loaded learner draws them again rather than storing D·d numbers; z(x) is
// one pass of simd.FourierFeatures, the scores one simd.DotColumns over the
// weight columns and an update one simd.Axpy per touched output.
type fogd struct {
	base
	feat   *engine.Features
	stride int       // length of z and of each weight column
	w      []float32 // column-major: output c at [c·stride, (c+1)·stride)
	z      []float32 // z(x) of the last observe
	sums   []float32
	zs     sync.Pool // of *[]float32: z for concurrent predictions
}

// fourierStream is the second PCG seed word of FOGD's frequencies.
const fourierStream = 0x66_6f_67_64

func newFOGD(b base) (*fogd, error) {
	feat, err := engine.NewFeatures(b.cfg.Dim, b.cfg.Features, b.cfg.Sigma, rand.New(rand.NewPCG(b.cfg.Seed, fourierStream)))
	if err != nil {
		return nil, fmt.Errorf("%v: %w", b.algo, err)
	}
	n := feat.Len()
	return &fogd{
		base: b, feat: feat, stride: n,
		w: make([]float32, b.outputs*n), z: make([]float32, n), sums: make([]float32, b.outputs),
	}, nil
}

func (l *fogd) learn(x *engine.Vector, t target) (updated bool, err error) {
	j, err := l.observe(x, t)
	if err != nil || !l.labels.violated(j, false) {
		return false, err
	}
	step := l.cfg.Eta * l.labels.gradient(j)
	for c := range l.outputs {
		if s := j.dir.sign(c); s != 0 {
			simd.Axpy(l.w[c*l.stride:(c+1)*l.stride], l.z, float32(step*s))
		}
	}
	return true, nil
}

// customScores maps x to z(x) and takes every output's dot product with
// it. On the learner's own scratch (observe) z stays in l.z for the update;
// readers use a z of their own.
func (l *fogd) customScores(sc *engine.Scratch, x engine.Vector, f, _ []float64) error {
	z, sums := l.z, l.sums
	if sc != &l.scratch {
		p, _ := l.zs.Get().(*[]float32)
		if p == nil {
			p = new([]float32)
		}
		defer l.zs.Put(p)
		if cap(*p) < l.stride+l.outputs {
			*p = make([]float32, l.stride+l.outputs)
		}
		z, sums = (*p)[:l.stride], (*p)[l.stride:l.stride+l.outputs]
	}
	if _, err := l.feat.Map(x, z); err != nil {
		return fmt.Errorf("%v: %w", l.algo, err)
	}
	simd.DotColumns(sums, z, l.w, l.stride)
	for c, v := range sums {
		f[c] = float64(v)
	}
	return nil
}
