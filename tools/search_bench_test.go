package tools

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// searchBenchPattern is found in no file of the tree.
const searchBenchPattern = "never found anywhere"

// BenchmarkSearchFilesBySize searches trees of 1,000, 10,000 and 100,000 source files (about
// 2 KiB each, 50 to a folder) for a pattern found nowhere, side by side with its peers on the
// same tree in the same run: ripgrep (rg) and grep -r, when they are installed (the tool
// depends on neither). search_files must stay within 1.2 times ripgrep's time.
func BenchmarkSearchFilesBySize(b *testing.B) {
	for _, n := range []int{1000, 10_000, 100_000} {
		dir := searchBenchTree(b, n)
		b.Run(fmt.Sprintf("files=%d/search_files", n), func(b *testing.B) {
			w, err := OpenWorkspace(dir, WorkspaceOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			reg := mustRegistry(b, w.Tools()...)
			raw, _ := json.Marshal(map[string]any{"pattern": searchBenchPattern})
			for b.Loop() {
				res := reg.Run(b.Context(), "search_files", "s", raw, nil)
				if res.IsError || !strings.HasPrefix(res.Content, fmt.Sprintf("No matches for %q in %d files", searchBenchPattern, n)) {
					b.Fatalf("%.300s", res.Content)
				}
			}
		})
		for _, peer := range [][]string{
			{"ripgrep", "rg", "-n", "--no-messages", searchBenchPattern, dir},
			{"grep", "grep", "-rn", searchBenchPattern, dir},
		} {
			b.Run(fmt.Sprintf("files=%d/%s", n, peer[0]), func(b *testing.B) {
				if _, err := exec.LookPath(peer[1]); err != nil {
					b.Skipf("%s is not installed", peer[1])
				}
				for b.Loop() {
					err := exec.Command(peer[1], peer[2:]...).Run()
					var ee *exec.ExitError
					if !errors.As(err, &ee) || ee.ExitCode() != 1 { // 1: nothing found
						b.Fatalf("%s: %v", peer[1], err)
					}
				}
			})
		}
	}
}

// searchBenchTree makes (once per test binary) a tree of n source-like files, 50 to a folder,
// folders 20 to a parent.
func searchBenchTree(b *testing.B, n int) string {
	b.Helper()
	if dir, ok := searchBenchTrees[n]; ok {
		return dir
	}
	dir, err := os.MkdirTemp("", "search-bench-")
	if err != nil {
		b.Fatal(err)
	}
	searchBenchCleanup = append(searchBenchCleanup, dir)
	r := rand.New(rand.NewPCG(uint64(n), 1))
	words := strings.Fields("func return if err nil for range var const type struct map string int byte " +
		"package import context error handler request response value index count path file folder")
	var buf []byte
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("m%02d", i/1000), fmt.Sprintf("d%02d", i/50%20), fmt.Sprintf("f%02d.go", i%50))
		if i%50 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		buf = buf[:0]
		for len(buf) < 2048 {
			for range 1 + r.IntN(10) {
				buf = append(buf, words[r.IntN(len(words))]...)
				buf = append(buf, ' ')
			}
			buf = append(buf, '\n')
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	searchBenchTrees[n] = dir
	return dir
}

var (
	searchBenchTrees   = map[int]string{}
	searchBenchCleanup []string
)
