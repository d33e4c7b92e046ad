package engine

import (
	"slices"

	"github.com/bogd-project/bogd/layout"
)

// sparseVectors is sparse storage: only non-zero features are stored, so
// zeros in a given vector are dropped on the way in.
type sparseVectors struct{ *layout.Sparse }

func (sparseVectors) storage() Storage { return SparseStorage }

// add and replace sum the norm themselves: the sparse matrix keeps its own
// by a compensated sum, which is not x.sqSum's.
func (s sparseVectors) add(x *Vector, sc *Scratch) (i int, sqNorm float64) {
	return s.Append(sc.nonZeros(x)), x.sqSum()
}

func (s sparseVectors) replace(i int, x *Vector, sc *Scratch) (sqNorm float64) {
	idx, val := sc.nonZeros(x)
	s.Replace(i, idx, val)
	return x.sqSum()
}

func (s sparseVectors) dense(i int, dst []float32) []float32 {
	idx, val := s.Row(i)
	if cap(dst) < s.Dim() {
		dst = make([]float32, s.Dim())
	}
	x := Sparse(idx, val)
	return x.densify(dst[:s.Dim()])
}

func (s sparseVectors) supportVector(i int, buf Vector) Vector {
	idx, val := s.Row(i)
	return Sparse(append(buf.Index[:0], idx...), append(buf.Value[:0], val...))
}

func (s sparseVectors) sqNorm(i int, _ *Scratch) (float64, bool) {
	x := Sparse(s.Row(i))
	return x.sqNorm()
}

// distances takes the float64 norm expansion when expansionExact allows:
// the query's norm (nnz−1 roundings), the stored norm (at most 3·2⁻⁵³ of
// it, see layout.Sparse.Norms), the dot product (nnz−1 roundings: products
// of float32 values are exact in float64) and the two sums, 2·nnz+3
// roundings in all. The dot products come from the postings of the
// query's features, so vectors sharing no feature with it cost one
// subtraction. Otherwise, with norms too large for the expansion, each
// distance is summed directly over the two vectors' features.
func (s sparseVectors) distances(v *view, buf []float32, x *Vector, sc *Scratch, _ expansion) {
	idx, val := sc.nonZeros(x)
	nz := Sparse(idx, val)
	xnorm, integral := nz.sqNorm()
	n := s.Len()
	if v.expansionExact(xnorm, integral, 2*len(idx)+3, float64Bits) {
		dots := sc.dotBuf(n)
		clear(dots)
		for k, j := range idx {
			xk := float64(val[k])
			for _, p := range s.Postings(j) {
				dots[p.Slot] += xk * float64(p.Value)
			}
		}
		for i, norm := range s.Norms()[:n] {
			buf[i] = float32(max(xnorm+norm-2*dots[i], 0))
		}
	} else {
		for i := range n {
			si, sv := s.Row(i)
			buf[i] = float32(sqDist(idx, val, si, sv))
		}
	}
	// Padding slots hold the zero vector, as dense storage's do.
	for i := n; i < len(buf); i++ {
		buf[i] = float32(xnorm)
	}
}

func (s sparseVectors) sqDists(x *Vector, dst []float64, sc *Scratch) {
	idx, val := sc.nonZeros(x)
	for i := range dst {
		si, sv := s.Row(i)
		dst[i] = sqDist(idx, val, si, sv)
	}
}

func (s sparseVectors) frozen() vectors { return sparseVectors{s.Clone()} }

// sqDist returns ‖x − s‖² of two sparse vectors in float64, summed over the
// union of their features in increasing order: the dense sum of the
// squared differences without its zero terms, so the same bits.
func sqDist(xi []int32, xv []float32, si []int32, sv []float32) float64 {
	var sum float64
	a, b := 0, 0
	for a < len(xi) || b < len(si) {
		var diff float64
		switch {
		case b == len(si) || a < len(xi) && xi[a] < si[b]:
			diff = -float64(xv[a])
			a++
		case a == len(xi) || si[b] < xi[a]:
			diff = float64(sv[b])
			b++
		default:
			diff = float64(sv[b]) - float64(xv[a])
			a++
			b++
		}
		sum += diff * diff
	}
	return sum
}

// nonZeros returns the non-zero features of the valid x: x's own slices
// when x is sparse without explicit zeros, else a copy in sc.
func (sc *Scratch) nonZeros(x *Vector) ([]int32, []float32) {
	if x.isSparse() && !slices.Contains(x.Value, 0) {
		return x.Index, x.Value
	}
	idx, val := sc.idx[:0], sc.val[:0]
	if x.isSparse() {
		for k, v := range x.Value {
			if v != 0 {
				idx, val = append(idx, x.Index[k]), append(val, v)
			}
		}
	} else {
		for j, v := range x.Dense {
			if v != 0 {
				idx, val = append(idx, int32(j)), append(val, v)
			}
		}
	}
	sc.idx, sc.val = idx, val
	return idx, val
}

// dotBuf returns room for n dot products.
func (sc *Scratch) dotBuf(n int) []float64 {
	if len(sc.dots) < n {
		sc.dots = make([]float64, n)
	}
	return sc.dots[:n]
}
