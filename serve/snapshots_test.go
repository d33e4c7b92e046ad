package serve

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestSnapshotList: only the model's own snapshot files count, not other
// files whose names end in digits and .bogd (a model named 7.bogd is no
// snapshot), nor what a crash left while writing one, which New removes.
func TestSnapshotList(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"german.snapshot-000002.bogd", "german.snapshot-000010.bogd", "000005.bogd", "7.bogd",
		"other.snapshot-000007.bogd", "german.snapshot-x.bogd", ".german.snapshot-000011.bogd.tmp-123",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	snaps := snapshots{model: filepath.Join(dir, "german.bogd"), dir: dir}
	files, err := snaps.list()
	if err != nil || len(files) != 2 || files[0].pos != 2 || files[1].pos != 10 {
		t.Fatalf("snapshots %v (%v), want at positions 2 and 10", files, err)
	}
	removed, err := snaps.removeTemporary()
	if err != nil || !slices.Equal(removed, []string{".german.snapshot-000011.bogd.tmp-123"}) {
		t.Fatalf("removed %v (%v)", removed, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "7.bogd")); err != nil {
		t.Error("a model named 7.bogd was touched")
	}
}
