package experiment

import (
	"math"
	"slices"

	"github.com/bogd-project/bogd/task"
)

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
	Metric, MetricStd                 float64 // mistake rate (%) or mean squared error: Result.Metric
	SupportVectors, SupportVectorsStd float64
	Seconds                           float64 // mean per pass
	MaxSeconds                        float64 // the slowest pass
	CPUSeconds                        float64 // mean per pass: Result.CPUSeconds
}

// Summarize computes the means and sample standard deviations of passes
// of a task over rows rows each.
func Summarize(passes []Result, rows int, tk task.Task) Summary {
	var metrics, svs, secs, cpu []float64
	for _, p := range passes {
		metrics = append(metrics, p.Metric(rows, tk))
		svs = append(svs, float64(p.SupportVectors))
		secs = append(secs, p.Seconds)
		cpu = append(cpu, p.CPUSeconds)
	}
	s := Summary{Runs: len(passes)}
	s.Metric, s.MetricStd = MeanStd(metrics)
	s.SupportVectors, s.SupportVectorsStd = MeanStd(svs)
	s.Seconds, _ = MeanStd(secs)
	s.CPUSeconds, _ = MeanStd(cpu)
	if len(secs) > 0 {
		s.MaxSeconds = slices.Max(secs)
	}
	return s
}
