// Package dataset reads binary-classification data sets in the LIBSVM /
// SVMlight sparse text format, plain or gzip-compressed, and the
// permutation-order files used to replay them in fixed random orders.
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
//   - Blank lines (only whitespace) are skipped but still counted for line
//     numbers in error messages.
//   - "#" starts a comment that runs to the end of the line (SVMlight).
//   - A line holding only a label is an example whose features are all zero.
//   - A label is a decimal number that must equal -1 or +1 ("+1", "1",
//     "-1.0", ...). If the labels of the whole file are drawn from {0, 1}
//     with at least one 0 (and no -1), they are mapped 0 -> -1, 1 -> +1 and a
//     warning is sent to [Options.Warn].
//   - A feature index is a base-10 integer >= 1 (1-based in the file, stored
//     0-based); indices must be strictly increasing within a line and may
//     not exceed 1<<26 (or [Options.Dim] when set).
//   - A feature value is a finite decimal number representable as a float32
//     ("1", "-0.5", "2.5e-3", ...). Hexadecimal forms, NaN and Inf are
//     rejected. Explicit zeros are dropped.
//   - Lines may be arbitrarily long (up to 256 MiB, a memory guard).
//   - Gzip input is recognised by its magic bytes (1f 8b), not the file name.
//
// The text must be UTF-8 without NUL bytes; anything else is reported as
// binary data. An input without any example is an error.
//
// # Order files
//
// An order file holds one permutation per line: comma-separated 1-based row
// indices into the data file (spaces around commas allowed), plain or gzip.
// See [ReadOrders].
//
// # Errors
//
// Reading never panics on bad input. Every problem is reported as a
// *[ParseError] that names the file, the line (when there is one) and the
// problem; I/O errors are wrapped in it and reachable with errors.Is/As.
package dataset
