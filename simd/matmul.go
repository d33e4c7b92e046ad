package simd

import "fmt"

// MatMul64 sets the m×n matrix C to the product A·B of the m×k matrix A and
// the k×n matrix B, all float64 and row-major: C[i][j] is c[i*ldc+j] and
// B[l][j] is b[l*ldb+j]; A[i][l] is a[i*lda+l], or a[l*lda+i] when aTrans
// (A is then the transpose of the k×m matrix stored in a).
//
// Every element is summed as gonum's Dgemm sums it (blas64.Gemm with
// α = 1 and β = 0, either op of A, B not transposed): from +0, adding
// A[i][l]·B[l][j] for l = 0, 1, …, k−1, each product and each sum rounded
// once. So for finite inputs C has Dgemm's bits. (Dgemm skips the terms
// whose A[i][l] is 0: adding ±0 leaves a sum that starts at +0 unchanged.)
// NOGD's transition multiplies its B×B landmark kernel matrix this way,
// several times faster than Dgemm's vectors of two, with the same results.
//
// The vector code keeps blocks of 6×8 (or 6×4) elements of C in registers
// over matMulDepth terms at a time (their rows of A and B stay in the
// caches) and leaves the rows and columns beyond whole blocks to the
// generic loop.
// Out-of-range dimensions panic; c must not overlap a or b.
func MatMul64(c []float64, ldc int, a []float64, lda int, aTrans bool, b []float64, ldb int, m, n, k int) {
	aRow, aCol := lda, 1
	aRows, aCols := m, k // of the matrix stored in a
	if aTrans {
		aRow, aCol = 1, lda
		aRows, aCols = k, m
	}
	checkMatrix("C", len(c), ldc, m, n)
	checkMatrix("A", len(a), lda, aRows, aCols)
	checkMatrix("B", len(b), ldb, k, n)
	if m == 0 || n == 0 {
		return
	}
	for i := range m {
		clear(c[i*ldc : i*ldc+n])
	}
	for l0 := 0; l0 < k; l0 += matMulDepth {
		depth := min(matMulDepth, k-l0)
		al, bl := a[l0*aCol:], b[l0*ldb:]
		i := 0
		for ; i+mulAddRows <= m; i += mulAddRows {
			j := 0
			for ; j+mulAddCols <= n; j += mulAddCols {
				mulAdd64(c[i*ldc+j:], ldc, al[i*aRow:], aRow, aCol, bl[j:], ldb, depth)
			}
			if j+mulAddCols/2 <= n {
				mulAdd64Half(c[i*ldc+j:], ldc, al[i*aRow:], aRow, aCol, bl[j:], ldb, depth)
				j += mulAddCols / 2
			}
			if j < n {
				mulAddGeneric(c[i*ldc+j:], ldc, al[i*aRow:], aRow, aCol, bl[j:], ldb, mulAddRows, n-j, depth)
			}
		}
		if i < m {
			mulAddGeneric(c[i*ldc:], ldc, al[i*aRow:], aRow, aCol, bl, ldb, m-i, n, depth)
		}
	}
}

// matMulDepth is the number of terms MatMul64 adds to a block of C per
// call of the kernel: the rows of A of a block and matMulDepth rows of B
// (at a width of 300, 150 KB) stay in a core's L2 cache while every block
// reads them. 64 multiplied NOGD's 1000×1000 kernel matrix by 300 columns
// about 10% faster than 256, and at 512 the block's rows of B left L2
// (BenchmarkMatMul64).
const matMulDepth = 64

// MatMulRows is the height of MatMul64's blocks: a caller that shares a
// product among goroutines by rows gives each part but the last a multiple
// of it, so that only the last has rows beyond whole blocks.
const MatMulRows = mulAddRows

// mulAddRows and mulAddCols are the height and width of mulAdd64's block
// (as asm/gen generates it).
const (
	mulAddRows = 6
	mulAddCols = 8
)

// checkMatrix panics unless a row-major rows×cols matrix with rows stride
// apart fits in size elements: stride ≥ cols, and the last row ends within.
func checkMatrix(name string, size, stride, rows, cols int) {
	if rows < 0 || cols < 0 || stride < cols || rows > 0 && cols > 0 && (size < cols || !productAtMost(rows-1, stride, size-cols)) {
		panic(fmt.Sprintf("simd: a %d×%d matrix %s with stride %d in %d elements", rows, cols, name, stride, size))
	}
}
