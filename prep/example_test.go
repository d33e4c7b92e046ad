package prep_test

import (
	"fmt"

	"github.com/bogd-project/bogd/prep"
)

// A raw row by feature index, prepared for a model of 3 features whose
// training data lay in [0, 10] on every feature: the values are scaled,
// feature 5 is beyond the model.
func ExampleInput_Prepare() {
	scaling, err := prep.NewMinMax([]float32{0, 0, 0}, []float32{10, 10, 10}, nil)
	if err != nil {
		panic(err)
	}
	in := prep.Input{Scaling: scaling}
	var row prep.Row
	if err := in.Prepare(&row, []prep.Feature{{Key: "3", Value: 2.5}, {Key: "1", Value: 5}, {Key: "5", Value: 1}}, 3); err != nil {
		panic(err)
	}
	fmt.Println(row.Index, row.Value, "ignored:", row.Ignored)
	// Output: [0 2] [0.5 0.25] ignored: [4]
}

// Feature names hashed into 2^10 dimensions, repeats summed.
func ExampleInput_Prepare_hashed() {
	in := prep.Input{HashBits: 10}
	var row prep.Row
	if err := in.Prepare(&row, []prep.Feature{{Key: "the", Value: 1}, {Key: "cat", Value: 1}, {Key: "the", Value: 1}}, 1<<10); err != nil {
		panic(err)
	}
	fmt.Println(len(row.Index), "features, values", row.Value)
	// Output: 2 features, values [1 2]
}
