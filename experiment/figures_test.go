package experiment

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/task"
)

// TestMeanCurve: the mean rate over the runs at the positions of
// Checkpoints(n); runs with another number of checkpoints are left out.
func TestMeanCurve(t *testing.T) {
	n := 250
	at := Checkpoints(n)
	a, b := make([]int, len(at)), make([]int, len(at))
	for i, pos := range at {
		a[i], b[i] = pos/5, pos/2 // 20% and 50%
	}
	xys := MeanCurve(n, []Result{{Checkpoints: a}, {Checkpoints: b}, {Checkpoints: []int{1, 2}}}, task.Multiclass)
	if len(xys) != len(at) {
		t.Fatalf("%d points, want %d", len(xys), len(at))
	}
	for i, xy := range xys {
		want := 50 * (float64(a[i]) + float64(b[i])) / float64(at[i])
		if xy.X != float64(at[i]) || math.Abs(xy.Y-want) > 1e-12 {
			t.Fatalf("point %d: %v, want (%d, %v)", i, xy, at[i], want)
		}
	}
	if MeanCurve(n, nil, task.Binary) != nil || MeanCurve(n, []Result{{}}, task.Binary) != nil {
		t.Fatal("a curve without checkpoints")
	}
	// Regression: the mean of the cumulative MSEs, not in percent.
	errs := make([]float64, len(at))
	for i, pos := range at {
		errs[i] = 0.5 * float64(pos)
	}
	for _, xy := range MeanCurve(n, []Result{{ErrorCheckpoints: errs}, {Checkpoints: a}}, task.Regression) {
		if xy.Y != 0.5 {
			t.Fatalf("regression curve point %v, want 0.5", xy)
		}
	}
}

// DrawFigures without overwrite writes nothing when one of its files is
// there, and names it.
func TestDrawFiguresRefusesOverwrite(t *testing.T) {
	dir := t.TempDir()
	set := FigureSet{Name: "d", Budgets: []int{10}, Algorithms: []bogd.Algorithm{bogd.RBP},
		Cells: map[FigureKey]FigureData{{bogd.RBP, 10}: {Curve: MeanCurve(4, []Result{{Checkpoints: []int{1, 2, 2, 3}}}, task.Binary), Metric: 75, Seconds: 0.5}}}
	files, err := DrawFigures(dir, []FigureSet{set}, false)
	if err != nil || len(files) != 2 {
		t.Fatalf("%d figures, %v", len(files), err)
	}
	mine := filepath.Join(dir, "d-time.svg")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "d-B10-online.png"))
	_, err = DrawFigures(dir, []FigureSet{set}, false)
	var ee *ExistsError
	if !errors.Is(err, fs.ErrExist) || !errors.As(err, &ee) || len(ee.Paths) != 3 || ee.Paths[2] != mine {
		t.Fatalf("refused draw: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "d-B10-online.png")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a refused draw wrote a figure")
	}
	if _, err := DrawFigures(dir, []FigureSet{set}, true); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(mine); string(data) == "mine" {
		t.Fatal("overwrite kept the old figure")
	}
}
