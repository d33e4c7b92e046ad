package experiment

import "math"

// MeanStd returns the mean and the sample standard deviation (n−1, as
// MATLAB's std and the paper's tables); NaN for no values, std 0 for one.
func MeanStd(xs []float64) (mean, std float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		std = math.Sqrt(ss / float64(len(xs)-1))
	}
	return mean, std
}

// Summary aggregates the passes of one cell over the same rows.
type Summary struct {
	Runs                              int
	MistakeRate, MistakeRateStd       float64 // percent
	SupportVectors, SupportVectorsStd float64
	Seconds                           float64 // mean per pass
}

// Summarize computes the means and sample standard deviations of passes
// over rows rows each.
func Summarize(passes []Result, rows int) Summary {
	var rates, svs, secs []float64
	for _, p := range passes {
		rates = append(rates, 100*float64(p.Mistakes)/float64(rows))
		svs = append(svs, float64(p.SupportVectors))
		secs = append(secs, p.Seconds)
	}
	s := Summary{Runs: len(passes)}
	s.MistakeRate, s.MistakeRateStd = MeanStd(rates)
	s.SupportVectors, s.SupportVectorsStd = MeanStd(svs)
	s.Seconds, _ = MeanStd(secs)
	return s
}
