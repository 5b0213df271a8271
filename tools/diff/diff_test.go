package diff

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// apply replays a unified diff on oldText; the tests use it to prove that a
// diff really turns the old text into the new one.
func apply(t *testing.T, oldText, d string) string {
	t.Helper()
	a := splitLines(oldText)
	var out []string
	pos := 0
	lines := strings.SplitAfter(d, "\n")
	for i := 2; i < len(lines); i++ {
		l := lines[i]
		if l == "" {
			continue
		}
		if !strings.HasPrefix(l, "@@ ") {
			t.Fatalf("expected a hunk header, got %q in\n%s", l, d)
		}
		var start int
		fmt.Sscanf(l, "@@ -%d", &start)
		minus := strings.Fields(l)[1][1:]
		if !strings.Contains(minus, ",") || !strings.HasSuffix(minus, ",0") {
			start-- // 1-based first line; an empty range names the line before
		}
		out = append(out, a[pos:start]...)
		pos = start
		for i+1 < len(lines) && lines[i+1] != "" && !strings.HasPrefix(lines[i+1], "@@ ") {
			i++
			l := lines[i]
			noNL := i+1 < len(lines) && strings.HasPrefix(lines[i+1], `\ No newline`)
			text := l[1:]
			if noNL {
				text = strings.TrimSuffix(text, "\n")
				i++
			}
			switch l[0] {
			case ' ':
				if a[pos] != text {
					t.Fatalf("context %q does not match old line %q", text, a[pos])
				}
				out = append(out, text)
				pos++
			case '-':
				if a[pos] != text {
					t.Fatalf("removed %q does not match old line %q", text, a[pos])
				}
				pos++
			case '+':
				out = append(out, text)
			}
		}
	}
	out = append(out, a[pos:]...)
	return strings.Join(out, "")
}

func TestUnifiedDiffTurnsOldIntoNew(t *testing.T) {
	cases := []struct{ name, old, new string }{
		{"created file", "", "a\nb\n"},
		{"deleted content", "a\nb\n", ""},
		{"one line changed in the middle", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n"},
		{"newline added at end", "a\nb", "a\nb\n"},
		{"newline removed at end", "a\nb\n", "a\nb"},
		{"two distant changes make two hunks", strings.Repeat("x\n", 5) + "a\n" + strings.Repeat("y\n", 20) + "b\n", strings.Repeat("x\n", 5) + "A\n" + strings.Repeat("y\n", 20) + "B\n"},
		{"lines inserted at start", "a\n", "z\ny\na\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Unified("a/f", "b/f", c.old, c.new, Options{})
			if got := apply(t, c.old, d); got != c.new {
				t.Fatalf("applying the diff gave %q, want %q\n%s", got, c.new, d)
			}
		})
	}
}

func TestUnifiedDiffOfRandomEditsAppliesExactly(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e"}
	gen := func() string {
		var sb strings.Builder
		for range r.IntN(30) {
			sb.WriteString(words[r.IntN(len(words))])
		}
		return sb.String()
	}
	for i := range 2000 {
		old, new := gen(), gen()
		for _, maxEdits := range []int{2000, 3} { // 3 forces the whole-middle fallback
			d := Unified("a", "b", old, new, Options{MaxEdits: maxEdits, Context: 1 + i%4})
			if got := apply(t, old, d); got != new {
				t.Fatalf("case %d: got %q want %q\n%s", i, got, new, d)
			}
		}
	}
}

func TestUnifiedDiffMatchesDiffUtilityHeaders(t *testing.T) {
	tool, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("diff(1) is not installed; the round-trip tests still cover correctness")
	}
	old := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	new := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n12\n13\n"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte(old), 0o644)
	os.WriteFile(filepath.Join(dir, "b"), []byte(new), 0o644)
	out, _ := exec.Command(tool, "-u", "--label", "a", "--label", "b", filepath.Join(dir, "a"), filepath.Join(dir, "b")).Output()
	if got := Unified("a", "b", old, new, Options{}); got != string(out) {
		t.Fatalf("got\n%s\nwant (diff -u)\n%s", got, out)
	}
}

func TestUnifiedDiffIsCutAtMaxBytes(t *testing.T) {
	var old, new strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&old, "line %d\n", i)
		fmt.Fprintf(&new, "LINE %d\n", i)
	}
	d := Unified("a", "b", old.String(), new.String(), Options{MaxBytes: 4096})
	if len(d) > 4096+len(Truncated) || !strings.HasSuffix(d, Truncated) {
		t.Fatalf("diff of %d bytes does not end with the truncation mark", len(d))
	}
}

func TestEqualTextsHaveNoDiff(t *testing.T) {
	if d := Unified("a", "b", "same\n", "same\n", Options{}); d != "" {
		t.Fatalf("got %q", d)
	}
}

func BenchmarkUnifiedDiffOneLineChangedIn10kLines(b *testing.B) {
	var old strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&old, "line %d\n", i)
	}
	o := old.String()
	n := strings.Replace(o, "line 5000\n", "changed\n", 1)
	b.ReportAllocs()
	for b.Loop() {
		Unified("a", "b", o, n, Options{})
	}
}
