package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bogd-project/bogd/bogd"
)

func TestRenderDifferences(t *testing.T) {
	near := cell{"codrna", bogd.RBP, 500}
	far := cell{"codrna", bogd.BOGDpp, 1000}
	untuned := cell{"spambase", bogd.Projectron, 300}
	tab := &paperTables{
		Order: []cell{near, far, untuned},
		Cells: map[cell]*cellResult{
			near: {Cell: near, Mistake: 17.5, HasPaper: true, Paper: paperCell{Mistake: 17.13}},
			far: {Cell: far, Mistake: 11.571, MistakeStd: 0.024, HasPaper: true, Paper: paperCell{Mistake: 14.418},
				Grid: []gridMean{
					{Params: params{Eta: 0.25, LambdaT2: 0.125, Gamma: 1}, Mean: 11.556, Complete: true},
					{Params: params{Eta: 1, LambdaT2: 4, Gamma: 4}, Mean: 14.414, Complete: true},
					{Params: params{Eta: 8, LambdaT2: 2, Gamma: 8}, Mean: 16.249, Complete: true},
					{Params: params{Eta: 4, LambdaT2: 2, Gamma: 8}, Mean: 14.418}, // incomplete: ignored
				}},
			untuned: {Cell: untuned, Mistake: 26.677, HasPaper: true, Paper: paperCell{Mistake: 29.302}},
		},
	}
	var b bytes.Buffer
	tab.renderDifferences(&b)
	out := b.String()
	for _, want := range []string{
		"1 of 3 cells are within 1.5 points",
		"of the other 2, 2 are lower (better)",
		"for 1 of the 1 with parameters the paper's figure lies within the span",
		"| codrna/bogd++/B=1000 | 11.571 ± 0.024 | 14.418 | -2.847 | 11.556 … 16.249 | 14.414 at η=1, λT²=4, γ=4 | 33.333 |",
		"| spambase/projectron/B=300 | 26.677 ± 0.000 | 29.302 | -2.625 | no parameters | - | 39.404 |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "rbp") {
		t.Errorf("a cell within the threshold is listed:\n%s", out)
	}
}
