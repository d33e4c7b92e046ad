package dataset

// builder accumulates a long slice in chunks so that growing it never
// copies earlier elements; slice assembles the exact-size result once.
type builder[T any] struct {
	chunks [][]T
	cur    []T
	n      int // elements in chunks
}

func (b *builder[T]) add(v T) {
	if len(b.cur) == cap(b.cur) {
		b.grow()
	}
	b.cur = append(b.cur, v)
}

func (b *builder[T]) grow() {
	if len(b.cur) > 0 {
		b.chunks = append(b.chunks, b.cur)
		b.n += len(b.cur)
	}
	size := min(max(b.n/2, 1<<10), 1<<20)
	b.cur = make([]T, 0, size)
}

func (b *builder[T]) len() int { return b.n + len(b.cur) }

// slice returns all elements in one newly allocated slice of exact length.
func (b *builder[T]) slice() []T {
	out := make([]T, 0, b.len())
	for _, c := range b.chunks {
		out = append(out, c...)
	}
	return append(out, b.cur...)
}
