package paper

import "github.com/bogd-project/bogd/bogd"

// The published figures of the paper: Table 2 (Perceptron and OGD without
// a budget) and Table 3 (the budgeted algorithms), copied from
// shared/paper/bogd-paper.md.

// Published is one published figure: mistake rate mean ± std (%), support
// vectors mean ± std (Table 2 only) and seconds per run.
type Published struct {
	Mistake, MistakeStd float64
	SV, SVStd           float64
	Time                float64
}

// Table2 holds Table 2: Perceptron and OGD without a budget.
var Table2 = map[string]map[bogd.Algorithm]Published{
	"german": {
		bogd.Perceptron: {Mistake: 34.805, MistakeStd: 1.017, SV: 348.050, SVStd: 10.175, Time: 0.069},
		bogd.OGD:        {Mistake: 30.115, MistakeStd: 0.618, SV: 583.550, SVStd: 6.613, Time: 0.128},
	},
	"spambase": {
		bogd.Perceptron: {Mistake: 24.957, MistakeStd: 0.460, SV: 1148.250, SVStd: 21.166, Time: 0.486},
		bogd.OGD:        {Mistake: 21.588, MistakeStd: 0.303, SV: 2391.750, SVStd: 13.973, Time: 1.071},
	},
	"w8a": {
		bogd.Perceptron: {Mistake: 3.501, MistakeStd: 0.053, SV: 2264.950, SVStd: 34.092, Time: 17.055},
		bogd.OGD:        {Mistake: 2.343, MistakeStd: 0.020, SV: 3352.900, SVStd: 11.149, Time: 27.795},
	},
	"magic04": {
		bogd.Perceptron: {Mistake: 27.093, MistakeStd: 0.326, SV: 5153.100, SVStd: 62.060, Time: 5.363},
		bogd.OGD:        {Mistake: 20.176, MistakeStd: 0.144, SV: 14333.350, SVStd: 18.368, Time: 25.652},
	},
	"ijcnn1": {
		bogd.Perceptron: {Mistake: 12.361, MistakeStd: 0.120, SV: 17514.400, SVStd: 169.788, Time: 438.169},
		bogd.OGD:        {Mistake: 9.181, MistakeStd: 0.030, SV: 25267.750, SVStd: 39.840, Time: 640.728},
	},
	"codrna": {
		bogd.Perceptron: {Mistake: 14.038, MistakeStd: 0.033, SV: 38128.800, SVStd: 88.755, Time: 1392.621},
		bogd.OGD:        {Mistake: 10.467, MistakeStd: 0.024, SV: 51423.900, SVStd: 74.865, Time: 1782.763},
	},
}

// Table3 holds Table 3: dataset → algorithm → one cell per budget of
// Dataset.Budgets.
var Table3 = map[string]map[bogd.Algorithm][3]Published{
	"german": {
		bogd.RBP:          {{Mistake: 38.060, MistakeStd: 1.254, Time: 0.032}, {Mistake: 37.040, MistakeStd: 0.658, Time: 0.044}, {Mistake: 35.740, MistakeStd: 1.566, Time: 0.056}},
		bogd.Forgetron:    {{Mistake: 37.320, MistakeStd: 1.040, Time: 0.037}, {Mistake: 36.780, MistakeStd: 1.894, Time: 0.041}, {Mistake: 36.280, MistakeStd: 0.726, Time: 0.038}},
		bogd.Projectron:   {{Mistake: 35.240, MistakeStd: 0.635, Time: 0.041}, {Mistake: 35.100, MistakeStd: 0.539, Time: 0.062}, {Mistake: 34.960, MistakeStd: 0.853, Time: 0.097}},
		bogd.ProjectronPP: {{Mistake: 34.500, MistakeStd: 1.355, Time: 0.059}, {Mistake: 35.240, MistakeStd: 0.814, Time: 0.109}, {Mistake: 34.600, MistakeStd: 0.671, Time: 0.153}},
		bogd.BOGD:         {{Mistake: 30.440, MistakeStd: 0.991, Time: 0.025}, {Mistake: 30.760, MistakeStd: 1.029, Time: 0.037}, {Mistake: 30.540, MistakeStd: 0.559, Time: 0.040}},
		bogd.BOGDpp:       {{Mistake: 31.080, MistakeStd: 0.963, Time: 0.028}, {Mistake: 30.580, MistakeStd: 0.963, Time: 0.050}, {Mistake: 30.200, MistakeStd: 1.054, Time: 0.062}},
	},
	"spambase": {
		bogd.RBP:          {{Mistake: 34.153, MistakeStd: 0.657, Time: 0.065}, {Mistake: 32.236, MistakeStd: 0.241, Time: 0.132}, {Mistake: 30.585, MistakeStd: 0.943, Time: 0.193}},
		bogd.Forgetron:    {{Mistake: 34.658, MistakeStd: 0.463, Time: 0.117}, {Mistake: 32.436, MistakeStd: 0.715, Time: 0.231}, {Mistake: 30.785, MistakeStd: 0.888, Time: 0.320}},
		bogd.Projectron:   {{Mistake: 31.841, MistakeStd: 0.398, Time: 0.147}, {Mistake: 30.467, MistakeStd: 4.524, Time: 0.426}, {Mistake: 29.302, MistakeStd: 4.831, Time: 0.847}},
		bogd.ProjectronPP: {{Mistake: 31.302, MistakeStd: 0.293, Time: 0.495}, {Mistake: 28.468, MistakeStd: 0.702, Time: 1.752}, {Mistake: 29.359, MistakeStd: 4.959, Time: 4.013}},
		bogd.BOGD:         {{Mistake: 31.158, MistakeStd: 0.500, Time: 0.089}, {Mistake: 29.572, MistakeStd: 0.437, Time: 0.180}, {Mistake: 28.472, MistakeStd: 0.785, Time: 0.267}},
		bogd.BOGDpp:       {{Mistake: 31.128, MistakeStd: 0.357, Time: 0.096}, {Mistake: 28.732, MistakeStd: 0.929, Time: 0.193}, {Mistake: 28.329, MistakeStd: 0.280, Time: 0.282}},
	},
	"w8a": {
		bogd.RBP:          {{Mistake: 4.793, MistakeStd: 0.069, Time: 2.566}, {Mistake: 4.200, MistakeStd: 0.072, Time: 4.868}, {Mistake: 3.906, MistakeStd: 0.099, Time: 7.134}},
		bogd.Forgetron:    {{Mistake: 4.868, MistakeStd: 0.073, Time: 2.656}, {Mistake: 4.203, MistakeStd: 0.024, Time: 5.976}, {Mistake: 3.888, MistakeStd: 0.037, Time: 8.206}},
		bogd.Projectron:   {{Mistake: 3.103, MistakeStd: 0.019, Time: 3.044}, {Mistake: 3.214, MistakeStd: 0.087, Time: 7.748}, {Mistake: 3.202, MistakeStd: 0.061, Time: 14.546}},
		bogd.ProjectronPP: {{Mistake: 3.103, MistakeStd: 0.014, Time: 3.670}, {Mistake: 2.934, MistakeStd: 0.078, Time: 12.398}, {Mistake: 2.783, MistakeStd: 0.046, Time: 23.728}},
		bogd.BOGD:         {{Mistake: 3.038, MistakeStd: 0.016, Time: 2.710}, {Mistake: 3.627, MistakeStd: 0.108, Time: 6.108}, {Mistake: 3.339, MistakeStd: 0.141, Time: 8.974}},
		bogd.BOGDpp:       {{Mistake: 3.037, MistakeStd: 0.007, Time: 2.938}, {Mistake: 2.724, MistakeStd: 0.144, Time: 6.850}, {Mistake: 2.701, MistakeStd: 0.047, Time: 9.478}},
	},
	"magic04": {
		bogd.RBP:          {{Mistake: 31.682, MistakeStd: 0.363, Time: 0.740}, {Mistake: 30.268, MistakeStd: 0.341, Time: 1.557}, {Mistake: 29.402, MistakeStd: 0.325, Time: 2.421}},
		bogd.Forgetron:    {{Mistake: 31.891, MistakeStd: 0.243, Time: 0.980}, {Mistake: 30.521, MistakeStd: 0.288, Time: 1.968}, {Mistake: 29.831, MistakeStd: 0.400, Time: 2.905}},
		bogd.Projectron:   {{Mistake: 28.076, MistakeStd: 0.590, Time: 8.280}, {Mistake: 27.361, MistakeStd: 0.424, Time: 28.419}, {Mistake: 27.089, MistakeStd: 0.339, Time: 61.797}},
		bogd.ProjectronPP: {{Mistake: 28.073, MistakeStd: 0.552, Time: 50.108}, {Mistake: 27.357, MistakeStd: 0.421, Time: 173.576}, {Mistake: 27.089, MistakeStd: 0.310, Time: 366.590}},
		bogd.BOGD:         {{Mistake: 28.019, MistakeStd: 0.450, Time: 0.803}, {Mistake: 25.724, MistakeStd: 0.477, Time: 1.697}, {Mistake: 24.957, MistakeStd: 0.348, Time: 2.723}},
		bogd.BOGDpp:       {{Mistake: 27.255, MistakeStd: 0.714, Time: 1.009}, {Mistake: 25.211, MistakeStd: 0.422, Time: 2.079}, {Mistake: 24.368, MistakeStd: 0.423, Time: 3.312}},
	},
	"ijcnn1": {
		bogd.RBP:          {{Mistake: 15.621, MistakeStd: 0.162, Time: 7.654}, {Mistake: 15.401, MistakeStd: 0.173, Time: 18.463}, {Mistake: 15.270, MistakeStd: 0.139, Time: 34.046}},
		bogd.Forgetron:    {{Mistake: 16.723, MistakeStd: 0.541, Time: 9.657}, {Mistake: 16.006, MistakeStd: 0.308, Time: 22.411}, {Mistake: 15.273, MistakeStd: 0.134, Time: 41.723}},
		bogd.Projectron:   {{Mistake: 16.103, MistakeStd: 0.686, Time: 32.490}, {Mistake: 15.103, MistakeStd: 0.666, Time: 75.250}, {Mistake: 13.203, MistakeStd: 0.581, Time: 219.310}},
		bogd.ProjectronPP: {{Mistake: 15.373, MistakeStd: 0.037, Time: 35.070}, {Mistake: 14.074, MistakeStd: 0.042, Time: 109.270}, {Mistake: 12.223, MistakeStd: 0.258, Time: 363.520}},
		bogd.BOGD:         {{Mistake: 16.505, MistakeStd: 0.652, Time: 8.441}, {Mistake: 16.176, MistakeStd: 0.554, Time: 19.875}, {Mistake: 13.614, MistakeStd: 0.320, Time: 38.787}},
		bogd.BOGDpp:       {{Mistake: 15.225, MistakeStd: 0.488, Time: 8.833}, {Mistake: 13.238, MistakeStd: 0.550, Time: 20.321}, {Mistake: 12.117, MistakeStd: 0.238, Time: 39.086}},
	},
	"codrna": {
		bogd.RBP:          {{Mistake: 17.130, MistakeStd: 0.078, Time: 11.519}, {Mistake: 16.139, MistakeStd: 0.046, Time: 26.736}, {Mistake: 15.532, MistakeStd: 0.051, Time: 58.715}},
		bogd.Forgetron:    {{Mistake: 16.773, MistakeStd: 0.069, Time: 13.275}, {Mistake: 15.962, MistakeStd: 0.120, Time: 30.298}, {Mistake: 15.316, MistakeStd: 0.052, Time: 65.292}},
		bogd.Projectron:   {{Mistake: 16.883, MistakeStd: 0.606, Time: 58.718}, {Mistake: 16.375, MistakeStd: 0.666, Time: 312.179}, {Mistake: 15.333, MistakeStd: 0.540, Time: 1287.570}},
		bogd.ProjectronPP: {{Mistake: 15.967, MistakeStd: 0.721, Time: 208.015}, {Mistake: 15.025, MistakeStd: 0.743, Time: 851.189}, {Mistake: 14.636, MistakeStd: 0.815, Time: 1926.070}},
		bogd.BOGD:         {{Mistake: 18.504, MistakeStd: 0.236, Time: 11.601}, {Mistake: 18.465, MistakeStd: 0.225, Time: 27.471}, {Mistake: 15.274, MistakeStd: 0.660, Time: 56.439}},
		bogd.BOGDpp:       {{Mistake: 15.634, MistakeStd: 0.603, Time: 12.313}, {Mistake: 14.418, MistakeStd: 0.206, Time: 28.552}, {Mistake: 13.439, MistakeStd: 0.220, Time: 61.181}},
	},
}

// Table3Cell returns the published Table 3 cell of (dataset, algorithm,
// budget), if the paper has one.
func Table3Cell(ds string, a bogd.Algorithm, budget int) (Published, bool) {
	d, ok := Lookup(ds)
	if !ok {
		return Published{}, false
	}
	for i, b := range d.Budgets {
		if b == budget {
			c, ok := Table3[ds][a]
			return c[i], ok
		}
	}
	return Published{}, false
}
