package tools

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestSearchFilesSkipsWhatGitignoreIgnoresAndSaysSo(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, ".gitignore", "build/\n*.log\n!keep.log\n")
	tw.write(t, "src/.gitignore", "gen/\n!debug.log\n")
	for _, p := range []string{"main.go", "build/out.go", "a.log", "keep.log", "src/x.go", "src/gen/y.go", "src/debug.log", "src/deep/z.log"} {
		tw.write(t, p, "needle\n")
	}
	res := tw.run(t, "search_files", map[string]any{"pattern": "needle"})
	want := "keep.log:1: needle\nmain.go:1: needle\nsrc/debug.log:1: needle\nsrc/x.go:1: needle\n" +
		"[skipped 4 files and folders that .gitignore ignores]"
	if res.IsError || res.Content != want {
		t.Fatalf("got\n%s\nwant\n%s", res.Content, want)
	}
	// the rules of the folders above hold in a folder searched alone
	res = tw.run(t, "search_files", map[string]any{"pattern": "needle", "path": "src/deep"})
	if !strings.HasPrefix(res.Content, "No matches") || !strings.Contains(res.Content, "[skipped 1 files and folders that .gitignore ignores]") {
		t.Fatalf("a folder searched alone: %q", res.Content)
	}
	// a folder asked for by name is searched, ignored or not
	res = tw.run(t, "search_files", map[string]any{"pattern": "needle", "path": "build"})
	if res.Content != "build/out.go:1: needle" {
		t.Fatalf("an ignored folder searched by name: %q", res.Content)
	}
}

func TestSearchFilesCappedSaysWhereItStopped(t *testing.T) {
	tw := newTestWorkspace(t)
	for i := range 30 {
		tw.write(t, fmt.Sprintf("d%02d/f.txt", i), "one hit\nnone\nanother hit\n")
	}
	res := tw.run(t, "search_files", map[string]any{"pattern": "hit", "max_results": 5})
	lines := strings.Split(res.Content, "\n")
	if len(lines) != 6 {
		t.Fatalf("a capped search gave %d lines:\n%s", len(lines), res.Content)
	}
	last := strings.SplitN(lines[4], ": ", 2)[0]
	if !strings.HasPrefix(lines[5], "[stopped after 5 matches, at "+last+", with ") {
		t.Errorf("the cap's note does not say where it stopped: %q (last match %s)", lines[5], last)
	}
}

// TestSearchFilesFindsWhatALineByLineWalkFinds compares the parallel search with the plainest
// one, over a tree of many folders and files (a folder of more files than one job holds, long
// lines, CRLF, a last line without a break), with a literal pattern and a regular expression.
func TestSearchFilesFindsWhatALineByLineWalkFinds(t *testing.T) {
	tw := newTestWorkspaceWith(t, WorkspaceOptions{MaxSearchResults: 1 << 20})
	for i := range 400 {
		dir := fmt.Sprintf("p%d/q%d", i%7, i%3)
		if i%5 == 0 {
			dir = "flat"
		}
		var b strings.Builder
		for l := range 1 + i%40 {
			switch {
			case (i+l)%11 == 0:
				fmt.Fprintf(&b, "x := find%d(me) // %s\r\n", l, strings.Repeat("long ", i%90))
			case (i+l)%13 == 0:
				fmt.Fprintf(&b, "Find me %d", l)
			default:
				fmt.Fprintf(&b, "line %d of %d\n", l, i)
			}
			if (i+l)%13 == 0 {
				b.WriteString("\n")
			}
		}
		tw.write(t, fmt.Sprintf("%s/f%03d.txt", dir, i), b.String())
	}
	for _, pattern := range []string{"me", `[Ff]ind\d* ?\(?me`} {
		res := tw.run(t, "search_files", map[string]any{"pattern": pattern})
		if want := lineByLine(t, tw.ws, regexp.MustCompile(pattern)); res.Content != want {
			t.Errorf("pattern %q: got\n%.2000s\nwant\n%.2000s", pattern, res.Content, want)
		}
	}
}

// lineByLine is what a search finds, walking the folder in name order and trying each line.
func lineByLine(t *testing.T, dir string, re *regexp.Regexp) string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		for n, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if re.MatchString(line) {
				out = append(out, fmt.Sprintf("%s:%d: %s", rel, n+1, shownLine([]byte(line))))
			}
		}
		return nil
	})
	return strings.Join(out, "\n")
}

func TestSearchFilesReadsOnlyTheFirstBlockOfABinaryFile(t *testing.T) {
	tw := newTestWorkspace(t)
	s := newSearch(t.Context(), tw.w, regexp.MustCompile("x"), "", 10, func(any) {})
	content := append([]byte("\x00binary"), make([]byte, 1<<20)...)
	read := 0
	data, binary, err := s.readOpen(func(b []byte) (int, error) {
		n := copy(b, content[read:])
		read += n
		return n, nil
	}, int64(len(content)), nil)
	if err != nil || !binary {
		t.Fatalf("binary = %v, err = %v", binary, err)
	}
	if read > firstBlock || len(data) > firstBlock {
		t.Errorf("read %d bytes of a binary file of %d, want at most its first block (%d)", read, len(content), firstBlock)
	}
}

func TestIndexFromFindsWhatBytesIndexFinds(t *testing.T) {
	data := []byte(strings.Repeat("the quick brown fox, never found; jumps over zz the lazy dog\n", 50) + "at the end: zzq")
	for _, lit := range []string{"never found", "zz", "zzq", "q", "dog\nthe", "the lazy", "absent", "x", "\n"} {
		rare := rarestByte([]byte(lit))
		for from := 0; from < len(data); from += 7 {
			want := bytes.Index(data[from:], []byte(lit))
			if want >= 0 {
				want += from
			}
			if got := indexFrom(data, from, []byte(lit), rare); got != want {
				t.Fatalf("indexFrom(%d, %q) = %d, want %d", from, lit, got, want)
			}
		}
	}
}
