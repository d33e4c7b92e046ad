// Package bogd implements budgeted kernel online learners with a Gaussian kernel.
//
// Fifteen algorithms, each for the tasks listed (task.Binary, task.Multiclass,
// task.Regression):
//
//   - BOGD and BOGD++ (Zhao, Wang, Wu, Jin, Hoi, "Fast Bounded Online
//     Gradient Descent Algorithms for Scalable Kernel-Based Online
//     Learning", ICML 2012): uniform or weight-driven random removal with
//     unbiased rescaling; every task.
//   - The baselines of that paper: Perceptron and OGD (no budget), RBP
//     (random budget perceptron), Forgetron and Projectron, every task;
//     Projectron++, binary and multi-class.
//   - NORMA, kernel regression with an adaptive ε: regression.
//   - BOGDOldest, BOGD removing the oldest vector (the LSOKL toolbox's
//     multi-class and regression "BOGD"); every task.
//   - BPAS, the budgeted passive-aggressive BPA-S (Wang, Vucetic, 2010);
//     every task.
//   - NOGD and FOGD, Nyström and Fourier online gradient descent (Lu, Hoi,
//     Wang, Zhao, Liu, "Large Scale Online Kernel Learning", JMLR 2016);
//     every task.
//   - BSGDMerge, budgeted stochastic gradient descent with merging (Wang,
//     Crammer, Vucetic, JMLR 2012); every task.
//   - Auto, the learner with nothing to tune: random-feature models of six
//     Gaussian kernel widths around Config.Sigma and a linear model, four
//     step sizes each, and the trivial predictor, combined online by
//     exponential weights (Raker, Shen, Chen, Giannakis, JMLR 2019; OMKC's
//     vote in classification); every task.
//
// New makes a Learner of any algorithm and task from a Config (Defaults
// shows what zero fields become); Learn predicts an example and then learns
// it, Predict only predicts, Save and Load keep a learner in a file from
// which it continues bit for bit, and a Predictor is a frozen copy that
// serves predictions on any number of goroutines while the learner goes on.
// A Config with Calibrate fits probabilities online (Calibration).
// Learner.SetInput records how raw rows are prepared for a learner
// (package prep: feature names hashed, features scaled); the model file
// keeps it, and Predictor.PredictRow predicts raw rows with it, on the
// label's scale.
//
// Every learner follows the online protocol: it predicts the label of an
// example, counts a mistake (classification) or the error (regression), and
// then updates, computing the scores once and reusing the kernel values
// where the update needs them. Each algorithm's file states its exact rule
// in every task and where it deliberately differs from the paper authors'
// group's MATLAB toolbox (GitHub jingcoco/Online-Kernel-Learning, folders
// binary/, multiclass/ and regression/). Algorithm.RuleVersion numbers each
// rule's arithmetic, so that results of different rules are never mixed.
//
// # Model files
//
// Save writes a learner as a versioned little-endian binary file that Load
// turns back into a learner continuing exactly where the saved one stood:
// the same support vectors and float32 weight bits, scale factors, random
// state and algorithm state, so that training resumes with bit-identical
// scores. The layout of format version 4, in order:
//
//	header   magic "BOGDMDL\x00" (8 bytes), version uint32 (= 4, or 3),
//	         total file length uint64 (header and checksum included)
//	learner  algorithm uint8; Config: Dim int64, Budget int64, Sigma, Eta,
//	         Lambda, Gamma float64, Seed uint64, Projection uint8,
//	         ProjectronThreshold float64, task uint8 (0 binary, 1 multi-class,
//	         2 regression), Epsilon, Nu, C float64, Rank, Features int64,
//	         Calibrate uint8, Storage uint8, the number of classes int64,
//	         then each class label int64
//	set      dimension int64 (= Dim), count int64, weight columns uint32,
//	         norm bound float64 and integral uint8 (engine.Set.Bounds),
//	         sparse uint8 (the set stores its vectors sparsely), then count
//	         vectors: dense, Dim float32 values each; sparse, the number of
//	         non-zeros uint32, then each 0-based index uint32 and value
//	         float32; then each weight column: count float32
//	base     scale float64, group float64, PCG state (length int64, then
//	         the bytes of rand.PCG.MarshalBinary), then, for every learner
//	         whose coefficients are a scalar times a pattern, each support
//	         vector's pattern: its positive and negative output as int32
//	         each (−1: none); then, with Calibrate, the calibration: A and
//	         its AdaGrad sum, then each B and its sum (float64)
//	state    the algorithm's own state (state.go documents each; Auto's
//	         is in auto.go: the examples learnt, the experts' losses and
//	         retirements, the trivial predictor's counts or mean, the
//	         experts' weights)
//	input    (version 4) the input preparation: prep.Input's binary form
//	         (the prep package documents it), never the zero Input
//	trailer  CRC-32C (Castagnoli) uint32 of every byte before it
//
// Save writes version 4 for a learner with an input preparation and
// version 3 for one without: version 3 is version 4 without the input, so
// such a file keeps the bytes it had before version 4 and older programs
// still read it.
//
// Versions 1 and 2 held binary learners only: no task fields and no
// patterns (a pattern is the sign of the vector's weight), a one-byte
// column count, and state.go says where their algorithm states differ.
// Load reads every version.
//
// Floats are stored as their IEEE 754 bits. Load checks, in this order, the
// magic, the version, the length (a short input is a truncated file, unless
// the checksum shows the length field corrupted), the checksum, then every
// field: counts non-negative, within the limits below and within the bytes
// that remain, the dimension equal to Dim, no NaN or infinite value, the
// configuration valid for the algorithm and every algorithm invariant the
// state must satisfy. The limits: a dimension of at most 2²⁴ with dense
// storage (2³¹−1 sparse), a budget of at most 2²⁰, and of 2¹² for the
// Projectrons, whose K⁻¹ is a Budget×Budget float64 matrix; Save refuses a
// learner beyond them. Their products are bounded too: before anything is
// allocated for the learner, Load estimates the memory it claims (Memory:
// its budget's vectors, weight columns and per-slot state, including
// budget × classes × dimension, Projectron's Budget², NOGD's Budget·Rank
// and its transition, FOGD's Features·Dim) and refuses, with ErrTooLarge,
// a claim above DefaultMaxMemory (4 GiB; LoadOptions sets another). An
// unbudgeted learner's Budget is stored but never used: it claims memory
// for the vectors it holds. LoadFile reads regular files only (never a
// device or a pipe), of at most that many bytes; Load reads no more from
// its reader.
package bogd
