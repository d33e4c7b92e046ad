package simd

import "math"

// The generic kernels are the pure-Go implementations: the fallback on CPUs
// without AVX2 and on other architectures, and the definition that the
// assembly versions are tested against. They walk the tiled layout of package
// layout (Lanes vectors per tile, feature-major inside a tile) 16 lanes at a
// time, which the compiler keeps in bounds-check-free loops.

// lanes mirrors layout.Lanes; simd does not import layout so that the
// kernels only see slices.
const lanes = 16

// Constants of the float32 exp approximation shared by every implementation:
// Cody–Waite reduction x = n·ln2 + r with ln2 split in two (expC1 exact in 9
// bits so n·expC1 is exact), then a degree-5 polynomial for e^r on
// |r| ≤ ln2/2 (Cephes' expf coefficients) and 2ⁿ built in the exponent bits.
const (
	expLog2e = 1.44269504088896341
	expC1    = 0.693359375
	expC2    = -2.12194440e-4
	expP0    = 1.9875691500e-4
	expP1    = 1.3981999507e-3
	expP2    = 8.3334519073e-3
	expP3    = 4.1665795894e-2
	expP4    = 1.6666665459e-1
	expP5    = 5.0000001201e-1
	expShift = 1.5 * (1 << 23)
	// ExpMin and ExpMax bound the argument: below ExpMin the result is 0
	// (e^x would be denormal: slow on x86, and below the kernel's accuracy
	// anyway); above ExpMax it is e^ExpMax (e^x would overflow).
	ExpMin = -87.0
	ExpMax = 88.0
)

// Constants of the float32 sine and cosine shared by every implementation
// (sincos32). The argument is clamped to ±sinMax and reduced to r = p − q·π
// with q = round(p/π) (the rounding by adding and subtracting sinShift, as
// for exp), in two steps: π = sinPi1 + sinPi2 with sinPi1 = float32(π),
// where p − q·sinPi1 is exact in an FMA. sin r = r + r³·S(r²) and
// cos r = 1 − r²/2 + r⁴·C(r²) with S and C of degree 3 (coefficients sinS1
// … sinS4 and sinC2 … sinC5), minimax for the absolute error on
// |r| ≤ 1.7: π/2 plus the rounding of q at |p| ≤ sinMax.
const (
	sinMax           = 1 << 20
	sinInvPi         = 0.318309886183790671 // 1/π
	sinShift         = 1.5 * (1 << 23)
	sinPi1   float32 = math.Pi
	sinPi2           = float32(math.Pi - float64(sinPi1))
	sinS1            = -1.6666649282e-01
	sinS2            = 8.3328289911e-03
	sinS3            = -1.9794024411e-04
	sinS4            = 2.5742326670e-06
	sinC2            = 4.1666645557e-02
	sinC3            = -1.3888378162e-03
	sinC4            = 2.4757542633e-05
	sinC5            = -2.5966829753e-07
)

// exp32 is the scalar float32 exponential all implementations share: 0
// below ExpMin, the argument clamped to ExpMax above, relative error about
// 1 ulp in between; never NaN, Inf or denormal for finite input. Adding and
// subtracting expShift rounds x·log2e to the nearest integer in float32
// arithmetic (the spacing of floats in [2²³, 2²⁴) is 1), which is cheaper
// than a call to math.RoundToEven.
//
// Below ExpMin the result is exactly 0, not e^ExpMin: a sum of many such
// values with weights ±1 is then exactly 0 in any order of additions,
// where sums of e^ExpMin floors would round differently in every
// implementation and could disagree on the sign of a score that is
// rounding noise.
//
// It is written to stay within the compiler's inlining budget (the
// polynomial is one expression: a variable for it would not fit): a call
// per value would cost as much as the arithmetic.
func exp32(x float32) float32 {
	if x < ExpMin {
		return 0
	}
	x = min(x, ExpMax)
	n := x*expLog2e + expShift - expShift
	r := x - n*expC1 - n*expC2 // (x − n·c1) − n·c2
	// e^r = p(r)·r² + r + 1, p of degree 5 (expP0 … expP5)
	return ((((((expP0*r+expP1)*r+expP2)*r+expP3)*r+expP4)*r+expP5)*(r*r) + r + 1) *
		math.Float32frombits(uint32(int32(n)+127)<<23)
}

func expGeneric(dst, src []float32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = exp32(v)
	}
}

// sincos32 is the scalar float32 sine and cosine all implementations
// share: p is clamped to ±sinMax (2²⁰, where float32's spacing is 1/8: the
// phase of p is no longer represented), reduced to r = p − q·π, |r| ≤ π/2
// up to the rounding of q, and sin p = (−1)^q·sin r, cos p = (−1)^q·cos r.
// The absolute error is a few 2⁻²⁴ (see FourierFeatures); the results are
// finite for every non-NaN p.
//
// The reduction runs in math.FMA, as the assembly's FMAs: the product
// q·sinPi1 must not be rounded before the subtraction (q·sinPi1 is exact
// in float64, and so is p − q·sinPi1; only the second step rounds, twice,
// which differs from one float32 rounding only in ties).
func sincos32(p float32) (sin, cos float32) {
	p = max(min(p, sinMax), -sinMax)
	q := p*sinInvPi + sinShift - sinShift
	r := float32(math.FMA(float64(-q), float64(sinPi1), float64(p)))
	r = float32(math.FMA(float64(-q), float64(sinPi2), float64(r)))
	z := r * r
	sin = (((sinS4*z+sinS3)*z+sinS2)*z+sinS1)*z*r + r
	cos = ((((sinC5*z+sinC4)*z+sinC3)*z+sinC2)*z-0.5)*z + 1
	sign := uint32(int32(q)) << 31 // the parity of q
	return math.Float32frombits(math.Float32bits(sin) ^ sign), math.Float32frombits(math.Float32bits(cos) ^ sign)
}

// fourierGeneric writes into cos[t*16+l] and sin[t*16+l] the cosine and
// sine of the projection Σⱼ x[j]·tiles[(t·dim+j)·16+l] of x on the vector
// in lane l of tile t. The 16 projections of a tile are summed in lanes.
func fourierGeneric(cos, sin, x, tiles []float32, dim int) {
	x = x[:dim]
	row := dim * lanes
	for t := 0; t < len(tiles)/row; t++ {
		tile := tiles[t*row : (t+1)*row]
		var acc [lanes]float32
		for j, xj := range x {
			s := tile[j*lanes : (j+1)*lanes : (j+1)*lanes]
			for l := range acc {
				acc[l] += xj * s[l]
			}
		}
		sinCosLanes(cos[t*lanes:(t+1)*lanes], sin[t*lanes:(t+1)*lanes], &acc)
	}
}

// fourierSparseGeneric is fourierGeneric for the sparse x with non-zeros
// val at the feature indices idx.
func fourierSparseGeneric(cos, sin []float32, idx []int32, val []float32, tiles []float32, dim int) {
	row := dim * lanes
	for t := 0; t < len(tiles)/row; t++ {
		var acc [lanes]float32
		addRows(&acc, tiles[t*row:(t+1)*row], idx, val, 1)
		sinCosLanes(cos[t*lanes:(t+1)*lanes], sin[t*lanes:(t+1)*lanes], &acc)
	}
}

// sinCosLanes writes the cosine and sine of the 16 values of p into cos
// and sin.
func sinCosLanes(cos, sin []float32, p *[lanes]float32) {
	cos, sin = cos[:lanes], sin[:lanes]
	for l, v := range p {
		sin[l], cos[l] = sincos32(v)
	}
}

// addRows adds (f·val[k])·tile[idx[k]·16+l] to acc[l] for every non-zero k
// of a sparse vector, in order: the rows of its features in one tile,
// scaled (f·val[k] must be exact: f a power of 2).
func addRows(acc *[lanes]float32, tile []float32, idx []int32, val []float32, f float32) {
	val = val[:len(idx)]
	for k, j := range idx {
		c := f * val[k]
		s := tile[int(j)*lanes : int(j+1)*lanes : int(j+1)*lanes]
		for l := range acc {
			acc[l] += c * s[l]
		}
	}
}

// axpyGeneric adds a·x[i] to y[i] for i < len(x). The compiler may fuse
// a*x[i] + y[i] into one FMA, as the assembly does, or round the product
// first.
func axpyGeneric(y, x []float32, a float32) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// axpyRowsGeneric is AxpyRows row by row: axpyGeneric of each row whose
// coefficient is not ±0.
func axpyRowsGeneric(y, coef, rows []float32, stride int) {
	for i, c := range coef {
		if c != 0 {
			axpyGeneric(y, rows[i*stride:i*stride+len(y)], c)
		}
	}
}

// Constants of MergeSearch: the golden ratio γ = (√5 − 1)/2, the offset
// 2γ − 1 = γ − γ² of a new interior point from the end kept, and the
// number of steps: the width of a bracket shrinks by γ per step, and
// mergeSteps takes the widest interval (5) below BudgetedSVM's stopping
// width 2·10⁻⁴ (5·γ²² = 1.24e-4; 21 steps leave 2.03e-4).
const (
	mergeGamma = 0.618033988749894848
	mergeInner = 2*mergeGamma - 1
	mergeSteps = 22
)

// mergeSearchGeneric is the golden-section search of MergeSearch for
// every candidate i.
func mergeSearchGeneric(h, a1, a2, lk []float32) {
	a1, a2, lk = a1[:len(h)], a2[:len(h)], lk[:len(h)]
	for i := range h {
		h[i] = mergeSearch32(a1[i], a2[i], lk[i])
	}
}

// mergeSearch32 maximises f(x) = a1·e^((1−x)²·lk) + a2·e^(x²·lk) by
// golden-section search over [0, 1] (a1·a2 > 0), [1, 6] (a1 > 0) or
// [−5, 0], in mergeSteps steps, and returns the middle of the last
// bracket; 1 if |a1| ≥ |a2| else 0 when lk = −Inf, NaN when an input is.
//
// The bracket [lo, hi] holds the interior points p = hi − γ·w and
// q = lo + γ·w (w = hi − lo), whose values are kept (each step evaluates
// f at one new point). When f(p) ≥ f(q) the bracket becomes [lo, q] and
// its new interior point is lo + (2γ−1)·w, otherwise [p, hi] with
// hi − (2γ−1)·w: base ± γ·w and base ± (2γ−1)·w from the end kept.
//
// f is kept scaled (mergeValue): a value e^M·v with M the larger exponent
// at its point, so that neither term underflows before it is negligible,
// and mergeAtLeast compares two of them exactly where e^(M_p − M_q)
// underflows.
func mergeSearch32(a1, a2, lk float32) float32 {
	if a1 != a1 || a2 != a2 || lk != lk {
		return float32(math.NaN())
	}
	if math.IsInf(float64(lk), -1) {
		// Orthogonal points: z can only keep one of them whole.
		if abs32(a1) >= abs32(a2) {
			return 1
		}
		return 0
	}
	lo, hi := float32(-5), float32(0)
	switch {
	case a1*a2 > 0:
		lo, hi = 0, 1
	case a1 > 0:
		lo, hi = 1, 6
	}
	w := hi - lo
	mp, vp := mergeValue(a1, a2, lk, hi-mergeGamma*w)
	mq, vq := mergeValue(a1, a2, lk, lo+mergeGamma*w)
	for range mergeSteps {
		w := hi - lo
		if mergeAtLeast(mp, vp, mq, vq) { // f(p) ≥ f(q): keep [lo, q]
			hi = lo + mergeGamma*w
			mq, vq = mp, vp
			mp, vp = mergeValue(a1, a2, lk, lo+mergeInner*w)
		} else { // keep [p, hi]
			lo = hi - mergeGamma*w
			mp, vp = mq, vq
			mq, vq = mergeValue(a1, a2, lk, hi-mergeInner*w)
		}
	}
	return (lo + hi) * 0.5
}

// mergeValue returns f(x) = a1·e^A + a2·e^B, A = (x−1)²·lk, B = x²·lk, as
// e^M·v: M = max(A, B) and v = a1 + a2·e^(B−A) when B ≤ A, else
// a1·e^(A−B) + a2. One exponential, of −|B − A|.
func mergeValue(a1, a2, lk, x float32) (m, v float32) {
	d := x - 1
	a := d * d * lk
	b := x * x * lk
	e := exp32(-abs32(b - a))
	if b-a <= 0 {
		return a, a2*e + a1
	}
	return b, a1*e + a2
}

// mergeAtLeast reports whether e^mp·vp ≥ e^mq·vq: the value of the
// smaller exponent is scaled by e^(−|mp − mq|) (0 when that underflows:
// the other value is then larger in magnitude by over e^87).
func mergeAtLeast(mp, vp, mq, vq float32) bool {
	d := mp - mq
	e := exp32(-abs32(d))
	if d <= 0 {
		return vp*e >= vq
	}
	return vp >= vq*e
}

// abs32 is |x| (math.Abs in float32).
func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// sqdistGeneric writes into dst[t*16+l] the squared distance from x to the
// vector in lane l of tile t: Σⱼ (x[j] − tiles[(t·dim+j)·16+l])². Four lanes
// at a time keep their sums in registers.
func sqdistGeneric(dst, x, tiles []float32, dim int) {
	x = x[:dim]
	row := dim * lanes
	for t := 0; t < len(tiles)/row; t++ {
		tile := tiles[t*row : (t+1)*row]
		out := dst[t*lanes : (t+1)*lanes]
		for l := 0; l < lanes; l += 4 {
			var a0, a1, a2, a3 float32
			for j, xj := range x {
				s := tile[j*lanes+l : j*lanes+l+4 : j*lanes+l+4]
				d0, d1, d2, d3 := xj-s[0], xj-s[1], xj-s[2], xj-s[3]
				a0 += d0 * d0
				a1 += d1 * d1
				a2 += d2 * d2
				a3 += d3 * d3
			}
			out[l], out[l+1], out[l+2], out[l+3] = a0, a1, a2, a3
		}
	}
}

// sqdist64Generic writes into dst[t*16+l] the squared distance from x to
// the vector in lane l of tile t in float64, as SqDist64 defines it: each
// float32 converted exactly, the difference, its square and each addition
// rounded once, in feature order. The conversion float64(d*d) keeps the
// compiler from fusing the square into the addition (an FMA, which it
// emits on arm64 and with GOAMD64=v3) and so from changing the bits. Four
// lanes at a time keep their sums in registers, as sqdistGeneric's.
func sqdist64Generic(dst []float64, x, tiles []float32, dim int) {
	x = x[:dim]
	row := dim * lanes
	for t := 0; t < len(tiles)/row; t++ {
		tile := tiles[t*row : (t+1)*row]
		out := dst[t*lanes : (t+1)*lanes]
		for l := 0; l < lanes; l += 4 {
			var a0, a1, a2, a3 float64
			for j, xj := range x {
				s := tile[j*lanes+l : j*lanes+l+4 : j*lanes+l+4]
				v := float64(xj)
				d0, d1, d2, d3 := float64(s[0])-v, float64(s[1])-v, float64(s[2])-v, float64(s[3])-v
				a0 += float64(d0 * d0)
				a1 += float64(d1 * d1)
				a2 += float64(d2 * d2)
				a3 += float64(d3 * d3)
			}
			out[l], out[l+1], out[l+2], out[l+3] = a0, a1, a2, a3
		}
	}
}

// sqdistSparseGeneric writes into dst the squared distances from the sparse
// query (idx, val) to every stored vector through the norm expansion
// ‖x−s‖² = ‖s‖² + ‖x‖² − 2·x·s, touching only the query's non-zero features:
// dst[t*16+l] = max(0, norms[t*16+l] + xnorm + Σₖ (−2·val[k])·s[idx[k]]).
// It is exact for small-integer data (binary features) and otherwise loses
// accuracy to cancellation when ‖s‖² is large: package engine decides when
// it may be used.
func sqdistSparseGeneric(dst, norms []float32, idx []int32, val []float32, xnorm float32, tiles []float32, dim int) {
	row := dim * lanes
	for t := 0; t < len(tiles)/row; t++ {
		var acc [lanes]float32
		copy(acc[:], norms[t*lanes:(t+1)*lanes])
		for l := range acc {
			acc[l] += xnorm
		}
		addRows(&acc, tiles[t*row:(t+1)*row], idx, val, -2)
		out := dst[t*lanes : (t+1)*lanes : (t+1)*lanes]
		for l, a := range acc {
			out[l] = max(a, 0)
		}
	}
}

// gaussianSumGeneric replaces each squared distance buf[i] by the kernel
// value exp(scale·buf[i] + offset) and returns Σᵢ w[i]·buf[i] (after
// replacement). The compiler may fuse scale*b + offset into one FMA, as the
// assembly does, or round the product first (amd64 before GOAMD64=v3); with
// offset 0 both give the rounded product.
func gaussianSumGeneric(buf, w []float32, scale, offset float32) float32 {
	w = w[:len(buf)]
	var acc [lanes]float32
	i := 0
	for ; i+lanes <= len(buf); i += lanes {
		b := buf[i : i+lanes : i+lanes]
		ww := w[i : i+lanes : i+lanes]
		for l := range acc {
			k := exp32(scale*b[l] + offset)
			b[l] = k
			acc[l] += ww[l] * k
		}
	}
	var sum float32
	for ; i < len(buf); i++ {
		k := exp32(scale*buf[i] + offset)
		buf[i] = k
		sum += w[i] * k
	}
	return sum + sumLanes(&acc)
}

// gaussianSumColumnsGeneric is gaussianSumGeneric with the weights of
// column 0, then dotColumnsGeneric of the kernel values with the other
// columns (stride apart). len(dst) must be at least 1.
func gaussianSumColumnsGeneric(dst, buf, w []float32, stride int, scale, offset float32) {
	dst[0] = gaussianSumGeneric(buf, w[:len(buf)], scale, offset)
	if len(dst) > 1 {
		dotColumnsGeneric(dst[1:], buf, w[stride:], stride)
	}
}

// kernelValues replaces each squared distance buf[i] by the kernel value
// exp(scale·buf[i] + offset).
func kernelValues(buf []float32, scale, offset float32) {
	for i, b := range buf {
		buf[i] = exp32(scale*b + offset)
	}
}

// dotGeneric returns Σᵢ a[i]·b[i].
func dotGeneric(a, b []float32) float32 {
	b = b[:len(a)]
	var acc [lanes]float32
	i := 0
	for ; i+lanes <= len(a); i += lanes {
		aa := a[i : i+lanes : i+lanes]
		bb := b[i : i+lanes : i+lanes]
		for l := range acc {
			acc[l] += aa[l] * bb[l]
		}
	}
	var sum float32
	for ; i < len(a); i++ {
		sum += a[i] * b[i]
	}
	return sum + sumLanes(&acc)
}

// dotColumnsGeneric writes into dst[c] the dot product of k with column c
// of w, whose columns start stride values apart.
func dotColumnsGeneric(dst, k, w []float32, stride int) {
	for c := range dst {
		dst[c] = dotGeneric(k, w[c*stride:c*stride+len(k)])
	}
}

// dotAxpyGeneric returns Σᵢ a[i]·b[i] and adds c·a[i] to y[i], for
// i < len(a). Four interleaved partial sums keep the additions from waiting
// on each other; the compiler may fuse c*a[i] + y[i] into one FMA, as the
// assembly does, or round the product first.
func dotAxpyGeneric(a, b, y []float64, c float64) float64 {
	b, y = b[:len(a)], y[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		// Locals: y may alias a as far as the compiler knows, so
		// a[i] read after a store to y would be loaded again.
		aa := a[i : i+4 : i+4]
		a0, a1, a2, a3 := aa[0], aa[1], aa[2], aa[3]
		bb := b[i : i+4 : i+4]
		yy := y[i : i+4 : i+4]
		s0 += a0 * bb[0]
		s1 += a1 * bb[1]
		s2 += a2 * bb[2]
		s3 += a3 * bb[3]
		yy[0] += c * a0
		yy[1] += c * a1
		yy[2] += c * a2
		yy[3] += c * a3
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
		y[i] += c * a[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// minGeneric returns the smallest element of a, +Inf if a is empty. NaN
// elements are skipped here; the contract (Min) leaves them unspecified.
func minGeneric(a []float32) float32 {
	m := float32(math.Inf(1))
	for _, v := range a {
		if v < m {
			m = v
		}
	}
	return m
}

// sumLanes adds the 16 partial sums pairwise, the order a vector
// horizontal sum takes.
func sumLanes(acc *[lanes]float32) float32 {
	var h [8]float32
	for l := range h {
		h[l] = acc[l] + acc[l+8]
	}
	for l := 0; l < 4; l++ {
		h[l] += h[l+4]
	}
	return (h[0] + h[2]) + (h[1] + h[3])
}

// fmaFlopsGeneric is the number of flops of one iteration of
// fmaLoopGeneric: 8 chains of one multiply-add.
const fmaFlopsGeneric = 16

// fmaLoopGeneric is the pure-Go form of the peak-throughput loop: 8
// independent multiply-add chains, chain i starting at seed + i·add, each
// updated n times as acc·mul + add; it returns the sum of the chains. Eight
// chains hide the latency of a multiply and an add or of one FMA, and fit
// the 16 SSE registers.
func fmaLoopGeneric(n int, mul, add, seed float32) float32 {
	a0 := seed
	a1 := a0 + add
	a2 := a1 + add
	a3 := a2 + add
	a4 := a3 + add
	a5 := a4 + add
	a6 := a5 + add
	a7 := a6 + add
	for range n {
		a0 = a0*mul + add
		a1 = a1*mul + add
		a2 = a2*mul + add
		a3 = a3*mul + add
		a4 = a4*mul + add
		a5 = a5*mul + add
		a6 = a6*mul + add
		a7 = a7*mul + add
	}
	return ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))
}

// prefetchGeneric does nothing: Go has no prefetch instruction, and a hint
// changes no result.
func prefetchGeneric(*byte) {}

func fullRowGeneric(idx []int32, val []float32) bool { return fullRowFrom(idx, val, 0) }

// fullRowFrom is fullRowGeneric for indices counted from first: FullRow's
// tail after the kernel's whole registers.
func fullRowFrom(idx []int32, val []float32, first int) bool {
	val = val[:len(idx)]
	for k, j := range idx {
		if int(j) != first+k || math.Float32bits(val[k])&0x7f800000 == 0x7f800000 {
			return false
		}
	}
	return true
}

// paCostsGeneric is the reference loop of paCosts (see its doc in the
// generated declarations). The float64 conversions round every product
// once, so that no compiler fuses it into a multiply-add: the assembly's
// bits.
func paCostsGeneric(q []float64, kernels []float32, alpha []float64, factor, step, f, o, s, eps, c float64, mask uint64) (best int, least float64) {
	best, least = -1, math.Inf(1)
	alpha = alpha[:len(q)]
	kernels = kernels[:len(q)]
	for r := range q {
		kr := factor * float64(kernels[r])
		a := alpha[r]
		akr := float64(a * kr)
		beta := akr + step
		fr := f - akr + beta
		loss := math.Float64frombits(math.Float64bits(o+float64(s*fr))&mask) - eps
		if loss < 0 {
			loss = 0
		}
		q[r] = (float64(a*a)+float64(beta*beta)-float64(2*kr*float64(a*beta)))/2 + float64(c*loss)
		if q[r] < least {
			best, least = r, q[r]
		}
	}
	return best, least
}

// mulAdd64Generic is the reference loop of mulAdd64 (see its doc in the
// generated declarations): the block of mulAddRows×mulAddCols elements.
func mulAdd64Generic(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int) {
	mulAddGeneric(c, ldc, a, aRow, aCol, b, ldb, mulAddRows, mulAddCols, k)
}

// mulAdd64HalfGeneric is mulAdd64Generic for a block half as wide.
func mulAdd64HalfGeneric(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, k int) {
	mulAddGeneric(c, ldc, a, aRow, aCol, b, ldb, mulAddRows, mulAddCols/2, k)
}

// mulAddGeneric adds to each of rows×cols elements of C (ldc apart) the k
// products a(r, l)·B[l][j], a(r, l) = a[r*aRow+l*aCol], in the order of l:
// the float64 conversion rounds each product, so that no compiler fuses it
// into the sum.
func mulAddGeneric(c []float64, ldc int, a []float64, aRow, aCol int, b []float64, ldb int, rows, cols, k int) {
	for r := range rows {
		cr := c[r*ldc : r*ldc+cols]
		for l := range k {
			v := a[r*aRow+l*aCol]
			for j, x := range b[l*ldb : l*ldb+cols] {
				cr[j] += float64(v * x)
			}
		}
	}
}
