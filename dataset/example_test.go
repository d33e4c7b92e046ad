package dataset_test

import (
	"fmt"
	"strings"

	"github.com/bogd-project/bogd/dataset"
)

// A LIBSVM file's rows, labels and 1-based feature indices; the dataset
// holds them 0-based, in compressed sparse rows.
func ExampleRead() {
	file := "+1 1:0.5 3:2\n-1 2:1\n+1 3:-1 4:0.25\n"
	d, err := dataset.Read(strings.NewReader(file), "example.svm", dataset.Options{})
	if err != nil {
		panic(err)
	}
	idx, val := d.Row(0)
	fmt.Println(d.Len(), "rows,", d.Dim, "features,", d.Task)
	fmt.Println("row 1:", d.Labels[0], idx, val)
	// Output:
	// 3 rows, 4 features, binary
	// row 1: 1 [0 2] [0.5 2]
}

// Errors name the file, the line and the problem.
func ExampleRead_error() {
	_, err := dataset.Read(strings.NewReader("+1 1:0.5\n-1 2:x\n"), "bad.svm", dataset.Options{})
	fmt.Println(err)
	// Output: bad.svm:2: invalid value in feature "2:x": not a decimal number
}

// Words hashed into 2^10 dimensions, as Vowpal Wabbit does: a token is
// name[:value], repeats add up.
func ExampleRead_hashed() {
	d, err := dataset.Read(strings.NewReader("1 the cat sat on the mat\n-1 dogs:2 bark\n"), "text", dataset.Options{HashBits: 10})
	if err != nil {
		panic(err)
	}
	idx, val := d.Row(0)
	sum := float32(0)
	for _, v := range val {
		sum += v
	}
	fmt.Println(d.Dim, "dimensions;", len(idx), "distinct hashed words in row 1, counts adding up to", sum)
	// Output: 1024 dimensions; 5 distinct hashed words in row 1, counts adding up to 6
}
