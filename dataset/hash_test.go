package dataset

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// fnv1a is the documented hash, written out independently of hash/fnv.
func fnv1a(name string) uint32 {
	h := uint32(2166136261)
	for i := range len(name) {
		h ^= uint32(name[i])
		h *= 16777619
	}
	return h
}

func readHashed(t *testing.T, in string, bits int) *Dataset {
	t.Helper()
	d, err := Read(strings.NewReader(in), "h.txt", Options{HashBits: bits})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkInvariants(d); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestHashIndexAndDim(t *testing.T) {
	if fnv1a("a") != 0xe40c292c { // the published FNV-1a test vector
		t.Fatalf("fnv1a(a) = %#x", fnv1a("a"))
	}
	for _, bits := range []int{1, 7, 18, 30} {
		d := readHashed(t, "+1 hello\n", bits)
		mask := uint32(1)<<bits - 1
		want := []int32{int32(fnv1a("hello") & mask)}
		if d.Dim != 1<<bits || !reflect.DeepEqual(d.Index, want) || d.Value[0] != 1 {
			t.Errorf("bits %d: Dim %d, row %v %v; want %d, %v [1]", bits, d.Dim, d.Index, d.Value, 1<<bits, want)
		}
	}
	d, err := Read(strings.NewReader("+1 hello\n"), "h.txt", Options{HashBits: 4, Dim: 100})
	if err != nil || d.Dim != 100 {
		t.Errorf("HashBits 4, Dim 100: Dim %v, %v", d.Dim, err)
	}
}

func TestHashValues(t *testing.T) {
	const bits = 30 // no collisions among these names
	tests := []struct {
		token, name string
		value       float32
	}{
		{"word", "word", 1},
		{"word:3", "word", 3},
		{"word:-0.25", "word", -0.25},
		{"word:2e1", "word", 20},
		{"re:", "re:", 1},
		{"http://x.org/a", "http://x.org/a", 1},
		{"a:b:0.5", "a:b", 0.5},
		{"w:nan", "w:nan", 1},
		{"12:7", "12", 7},
		{"π:2", "π", 2},
	}
	for _, tc := range tests {
		d := readHashed(t, "-1 "+tc.token+"\n", bits)
		want := []int32{int32(fnv1a(tc.name) & (1<<bits - 1))}
		if !reflect.DeepEqual(d.Index, want) || !reflect.DeepEqual(d.Value, []float32{tc.value}) {
			t.Errorf("%q: row %v %v, want name %q (%v) value %v", tc.token, d.Index, d.Value, tc.name, want, tc.value)
		}
	}
}

// collidingNames returns two different names with one index in 2^bits.
func collidingNames(bits int) (string, string) {
	seen := map[uint32]string{}
	for i := 0; ; i++ {
		name := fmt.Sprintf("w%d", i)
		h := fnv1a(name) & (1<<bits - 1)
		if other, ok := seen[h]; ok {
			return other, name
		}
		seen[h] = name
	}
}

func TestHashSums(t *testing.T) {
	a, b := collidingNames(8)
	tests := []struct {
		name string
		line string
		want float32 // the value at a's index; 0: no feature
	}{
		{"repeats add", a + " " + a + ":2 " + a, 4},
		{"collisions add", a + ":1.5 " + b + ":2", 3.5},
		{"a zero sum is dropped", a + ":1 " + b + ":-1", 0},
		{"a zero value is dropped", a + ":0", 0},
	}
	for _, tc := range tests {
		d := readHashed(t, "+1 "+tc.line+" other\n", 8)
		idx, val := d.Row(0)
		got := float32(0)
		for k, j := range idx {
			if uint32(j) == fnv1a(a)&255 {
				got = val[k]
			}
		}
		if got != tc.want || len(idx) != 1+btoi(tc.want != 0) {
			t.Errorf("%s: row %v %v; want %v at %d and one other feature", tc.name, idx, val, tc.want, fnv1a(a)&255)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestHashOrderIndependent: every order of the tokens gives the same row,
// even where a float64 sum in token order would not (1e30 + 1 − 1e30).
func TestHashOrderIndependent(t *testing.T) {
	a, b := collidingNames(3)
	tokens := []string{"w:1e30", "w:1", "w:-1e30", a + ":0.1", b + ":0.2", "x"}
	var first *Dataset
	for _, perm := range permutations(len(tokens)) {
		words := make([]string, len(perm))
		for i, p := range perm {
			words[i] = tokens[p]
		}
		d := readHashed(t, "3 "+strings.Join(words, " ")+"\n", 3)
		if first == nil {
			first = d
			continue
		}
		if !reflect.DeepEqual(d.Index, first.Index) || !reflect.DeepEqual(d.Value, first.Value) {
			t.Fatalf("order %v: row %v %v; first order %v %v", words, d.Index, d.Value, first.Index, first.Value)
		}
	}
	if first.Labels[0] != 3 {
		t.Errorf("label %v, want 3", first.Labels[0])
	}
}

// permutations returns every order of 0..n-1 (Heap's algorithm).
func permutations(n int) [][]int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	var out [][]int
	var gen func(k int)
	gen = func(k int) {
		if k == 1 {
			out = append(out, append([]int(nil), p...))
			return
		}
		for i := 0; i < k; i++ {
			gen(k - 1)
			if k%2 == 0 {
				p[i], p[k-1] = p[k-1], p[i]
			} else {
				p[0], p[k-1] = p[k-1], p[0]
			}
		}
	}
	gen(n)
	return out
}
