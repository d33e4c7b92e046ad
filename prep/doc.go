// Package prep turns raw rows into the rows a model learns and predicts.
//
// Feature names are hashed, features scaled, features beyond the model's
// dimension dropped, and a regression's predictions mapped back to the label's
// scale.
//
// An [Input] says how: [Input.HashBits] hashes feature names, as the
// dataset package's reader does for text; [Input.Scaling] maps every
// feature (and a regression label) as the training data were mapped. A
// model keeps its Input in its file (bogd.Learner.SetInput), so that one
// file is the whole predictor: a service turns the features of a request
// — 1-based indices, or names — into a prediction on the label's scale
// exactly as `bogdbench predict` and `bogdbench serve` do
// (bogd.Predictor.PredictRow).
//
// # Rows
//
// [Input.Prepare] takes a raw row as [Feature] values: a key, the 1-based
// index of the feature ("7") or, when the input hashes, its name; and a
// value. [Input.PrepareIndexed] takes a row already indexed, as a data
// set's. Either gives a [Row]: ascending 0-based indices with their
// values, what engine.Sparse takes. In order:
//
//   - A value is rounded to the nearest float32, the precision of a
//     model's features; it must be finite. (Text should be parsed to
//     float32 directly, strconv.ParseFloat(s, 32), as the LIBSVM reader
//     does: rounding to float64 first may round differently.)
//   - Indices: a key is a base-10 integer of at least 1; a zero value is
//     dropped, and an index given twice is an error.
//   - Names (HashBits = k > 0): a name is not empty and holds no space,
//     tab, newline or '#' (it could not stand in a LIBSVM file); it is
//     hashed with 32-bit FNV-1a, and the hash modulo 2^k is its 0-based
//     index. The values of one index (repeats and collisions) are summed
//     in float64, in an order that does not depend on the order of the
//     features; a zero sum is dropped, a sum beyond the float32 range is an
//     error.
//   - Features at or beyond the model's dimension are dropped and listed
//     in [Row.Ignored], as LIBSVM's svm-predict ignores them.
//   - The scaling maps every remaining value; a feature the scaling maps
//     absent zeros of to a non-zero value gets an explicit value, and
//     values that scale to 0 are dropped, so that rows stay as sparse as
//     the scaling allows. A value that leaves the float32 range is an
//     error.
//
// Errors of a row wrap [ErrRow].
//
// # Scalings
//
// A [Scaling] is measured on training data and maps each feature by an
// affine map, x' = (x − shift)/spread (0 when the spread is 0), with the
// float64 arithmetic rounded once to float32. [NewMinMax] makes the
// min-max scaling of the LSOKL toolbox: shift the minimum, spread the
// maximum minus the minimum, so that the training data lie in [0, 1].
// [NewMaxAbs] divides each feature by its largest absolute value (shift
// 0): the data lie in [−1, 1] and zeros stay zeros, so that sparse rows
// stay sparse (bogdbench's default). Either may scale a regression label
// by its minimum and maximum; [Input.Unlabel] maps a prediction back.
// Other scalings are other constructors of the same type.
//
// # Binary form
//
// [Input.AppendBinary] writes, little-endian (the bogd model file holds it
// from format version 4 on):
//
//	hash bits   uint8 (0: features are indices)
//	scaling     uint8: 0 none, 1 min-max, 2 max-abs
//	min-max     the number of features uint64, every feature's minimum
//	            float32, every feature's maximum float32, labels uint8 (1:
//	            the labels are scaled), then, when they are, the labels'
//	            minimum and maximum float64
//	max-abs     the number of features uint64, every feature's largest
//	            absolute value float32, then the labels as for min-max
//
// [Input.UnmarshalBinary] reads exactly that: hash bits of at most
// [MaxHashBits], no NaN or infinite bound, no minimum above its maximum,
// no negative largest absolute value, no byte left over.
//
// # Files beside a model
//
// Before format version 4, the preparation was kept beside the model file,
// in JSON: MODEL.input.json holds {"hash_bits":k,"scaling":S}, both
// optional, and the older MODEL.scaling.json a bare S, where S is
// {"method":"minmax","min":[...],"max":[...],"label":[min,max]} ("label"
// only when labels are scaled). [ReadBeside] reads them for a model file
// that holds no preparation; nothing writes them any more.
package prep
