package bogd

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// readmeSnippetHeader opens the package the README's embedding snippets
// are compiled in: each ```go block becomes the body of a function whose
// parameters are the inputs the snippets name without declaring.
const readmeSnippetHeader = `package snippet

import (
	"context"
	"fmt"

	"github.com/bogd-project/bogd/bogd"
	"github.com/bogd-project/bogd/engine"
	"github.com/bogd-project/bogd/prep"
	"github.com/bogd-project/bogd/task"
)

var (
	_ = bogd.New
	_ = engine.New
	_ prep.Input
	_ = task.Auto
	_ = fmt.Println
	_ context.Context
)
`

// TestReadmeEmbeddingCompiles extracts the ```go blocks of the README's
// "Embedding" section and builds and vets them, each wrapped in a function,
// in a temporary package inside the module: the snippets compile exactly as
// shown. A failure names the README line.
func TestReadmeEmbeddingCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a package with the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	readme := filepath.Join("..", "README.md")
	blocks, err := readmeGoBlocks(readme, "## Embedding")
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) < 2 {
		t.Fatalf("%s: %d go blocks in the Embedding section, want the learner's and the engine's", readme, len(blocks))
	}
	var src strings.Builder
	src.WriteString(readmeSnippetHeader)
	lineOf := map[int]int{} // line of snippet.go → line of README.md
	line := strings.Count(readmeSnippetHeader, "\n") + 1
	for i, b := range blocks {
		fmt.Fprintf(&src, "\nfunc snippet%d(ctx context.Context, xs []engine.Vector, ys []float64, dim int, sv, x []float32) error {\n", i)
		line += 2
		for k, l := range b.lines {
			src.WriteString(l + "\n")
			lineOf[line] = b.first + k
			line++
		}
		src.WriteString("\treturn nil\n}\n")
		line += 2
	}
	dir, err := os.MkdirTemp("..", ".readme-snippet-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "snippet.go"), []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"build", "-o", os.DevNull, "."}, {"vet", "."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err == nil {
			continue
		}
		located := false
		for _, m := range regexp.MustCompile(`snippet\.go:(\d+):(\d+: )?(.*)`).FindAllStringSubmatch(string(out), -1) {
			n, _ := strconv.Atoi(m[1])
			if r, ok := lineOf[n]; ok {
				t.Errorf("%s:%d: go %s: %s", readme, r, args[0], m[3])
				located = true
			}
		}
		if !located {
			t.Errorf("go %s of the README's snippets: %v\n%s", args[0], err, out)
		}
	}
}

// readmeBlock is one ```go block: its lines and the README line of the
// first.
type readmeBlock struct {
	first int
	lines []string
}

// readmeGoBlocks returns the ```go blocks of the section that starts with
// the line heading (up to the next "## ").
func readmeGoBlocks(path, heading string) ([]readmeBlock, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []readmeBlock
	in, code := false, false
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == heading
		case in && !code && l == "```go":
			code = true
			blocks = append(blocks, readmeBlock{first: n + 1})
		case code && l == "```":
			code = false
		case code:
			blocks[len(blocks)-1].lines = append(blocks[len(blocks)-1].lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if code {
		return nil, fmt.Errorf("%s: a ```go block of %q is not closed", path, heading)
	}
	return blocks, nil
}
