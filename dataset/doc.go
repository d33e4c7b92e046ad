// Package dataset reads labelled data sets in the LIBSVM sparse text format.
//
// The data are binary, multi-class or regression, in the LIBSVM / SVMlight
// format, plain or gzip-compressed, optionally with named features hashed. The
// package measures their scaling ([MinMax], [MaxAbs]), prepares them for a model
// ([Dataset.Prepare], by the package prep) and reads the permutation-order
// files used to replay them in fixed random orders.
//
// # Data format
//
// One example per line:
//
//	<label> <index>:<value> <index>:<value> ... [# comment]
//
// Fields are separated by spaces or tabs. Accepted details:
//
//   - Line ends may be "\n" or "\r\n"; trailing whitespace is ignored.
//   - Blank lines (only whitespace) are skipped, but for rows without
//     labels (below), and still counted for line numbers in error messages.
//   - "#" starts a comment that runs to the end of the line (SVMlight).
//   - A line holding only a label is an example whose features are all zero.
//   - With [Options.Unlabelled], a line whose first token is a feature
//     ("index:value") is a row without a label (rows to predict): its label
//     is NaN. The rows of one file are all labelled or all not; among rows
//     without labels a blank line is a row whose features are all zero
//     (one line, one row), and one before the first row is an error.
//   - A label is a finite decimal number ("+1", "3", "-0.25", "2.5e3", ...),
//     stored as a float64; which labels are valid depends on the task (see
//     Labels and tasks).
//   - A feature index is a base-10 integer >= 1 (1-based in the file, stored
//     0-based); indices must be strictly increasing within a line and may
//     not exceed 1<<26 (or [Options.Dim] or [Options.MaxIndex] when set:
//     a caller that stores rows densely sets what its storage holds).
//   - A feature value is a finite decimal number representable as a float32
//     ("1", "-0.5", "2.5e-3", ...). Hexadecimal forms, NaN and Inf are
//     rejected. Explicit zeros are dropped.
//   - Lines may be arbitrarily long (up to 256 MiB, a memory guard).
//   - [Read] and [ReadFile] hold every row, at most [Options.MaxRows] of
//     them and [Options.MaxBytes] bytes ([DefaultMaxBytes], 4 GiB, unless
//     set): past either, the line that passes it is an error, so that a
//     gzip bomb ends in an error rather than out of memory. A [Scanner]
//     reads the same rows one at a time, in constant memory, for inputs
//     learnt as they come (an endless stream included).
//   - Gzip input is recognised by its magic bytes (1f 8b), not the file name.
//
// The text must be UTF-8 without NUL bytes; anything else is reported as
// binary data. An input without any example is an error.
//
// # Labels and tasks
//
// [Options.Task] says what the labels are for; [Dataset.Task] holds the
// outcome and [Dataset.Resolve] applies another task to labels already read.
//
//   - [task.Binary]: every label is -1 or +1, or every label is 0 or 1; 0/1
//     labels are mapped 0 -> -1, 1 -> +1 and a warning is sent to
//     [Options.Warn]. Any other label, or 0 and -1 in one file, is an error
//     at the line of the first label that breaks the rule.
//   - [task.Multiclass]: every label is an integer within ±2147483647 (an error
//     at the first line that is not), with 2 to [task.MaxClasses] distinct values
//     (else an error giving the count); [Dataset.Classes] lists them.
//   - [task.Regression]: any label.
//   - [task.Auto], the default, chooses: Binary when the labels all lie in
//     {-1, +1} or all in {0, 1}; Multiclass when they are integers with 2 to
//     [task.MaxClasses] distinct values (so {1, 2} is a 2-class problem);
//     Regression otherwise. A regression file whose targets are few integers
//     (counts, ratings) is thus taken as multi-class: ask for Regression.
//
// Label errors of an explicit task are found as the file is read; the class
// count and the choice of Auto need the whole file.
//
// # Hashed features
//
// With [Options.HashBits] = k (1..30) a feature is a name instead of an
// index, as Vowpal Wabbit hashes text:
//
//	<label> <name>[:<value>] <name>[:<value>] ... [# comment]
//
// The label and the rest of the line are as above. Features:
//
//   - The value follows the last ':' when that is a decimal number (a
//     finite float32, as above); otherwise the whole token is the name and
//     the value is 1 (a word count): "the", "word:3", "re:", "http://x" and
//     "a:b:0.5" (name "a:b") are all features. An empty name is an error.
//   - A name (any bytes but space, tab and '#'; numbers are names too) is
//     hashed with 32-bit FNV-1a, and the hash modulo 2^k is its 0-based
//     index (prep.Hasher, which hashes the raw rows a model predicts too).
//   - Features of one line with the same index (repeats and collisions) are
//     summed, in float64, in an order that does not depend on the order of
//     the tokens; zero sums are dropped; a sum beyond the float32 range is an
//     error.
//   - Dim is 2^k ([Options.Dim], if set, must be at least that).
//
// # Scaling
//
// [MinMax] measures the min-max scaling of every feature (and of a
// regression label) to [0, 1] over a whole dataset, an absent sparse
// feature counting as 0: a prep.Scaling, which a model keeps in its file.
// [Dataset.Scale] applies a scaling to any dataset, and [Dataset.Prepare]
// a model's whole input preparation (prep.Input), row by row as a
// service prepares one row, dropping the features beyond the model's
// dimension.
//
// # Order files
//
// An order file holds one permutation per line: comma-separated 1-based row
// indices into the data file (spaces around commas allowed), plain or gzip.
// See [ReadOrders].
//
// # Errors
//
// Reading never panics on bad input. Every problem of the input is reported
// as a *[ParseError] that names the file, the line (when there is one) and
// the problem; I/O errors are wrapped in it and reachable with errors.Is/As.
// Invalid [Options] are plain errors.
package dataset
