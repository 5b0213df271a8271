// Package diff writes unified diffs of text, line by line, for the tool
// cards of the UI. It uses Myers' O(ND) algorithm on the lines left after the
// common prefix and suffix are trimmed, with a bound on the edit distance so a
// huge rewrite costs little: beyond the bound the differing middle is shown
// as removed and added whole, which is still a correct diff, only a longer one.
package diff

import (
	"fmt"
	"strings"
)

// Options bound the work and the output.
type Options struct {
	Context  int // lines of context around a change; 0 means 3
	MaxEdits int // bound on the edit distance searched; 0 means 2000
	MaxBytes int // the diff is cut after this many bytes; 0 means 64 KiB
}

// Truncated is the last line of a diff that was cut at Options.MaxBytes.
const Truncated = "\\ diff truncated\n"

// Unified returns the unified diff from oldText to newText, with oldName and
// newName in its header ("/dev/null" for a created or deleted file). It
// returns "" when the texts are equal.
func Unified(oldName, newName, oldText, newText string, opts Options) string {
	if oldText == newText {
		return ""
	}
	if opts.Context <= 0 {
		opts.Context = 3
	}
	if opts.MaxEdits <= 0 {
		opts.MaxEdits = 2000
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = 64 << 10
	}
	a, b := splitLines(oldText), splitLines(newText)
	ops := lineOps(a, b, opts.MaxEdits)

	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for _, h := range hunks(ops, opts.Context) {
		fmt.Fprintf(&sb, "@@ -%s +%s @@\n", span(h.aStart, h.aLen), span(h.bStart, h.bLen))
		for _, o := range ops[h.from:h.to] {
			var line string
			switch o.kind {
			case equal:
				sb.WriteByte(' ')
				line = a[o.a]
			case del:
				sb.WriteByte('-')
				line = a[o.a]
			case ins:
				sb.WriteByte('+')
				line = b[o.b]
			}
			sb.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
			if sb.Len() > opts.MaxBytes {
				return cut(sb.String(), opts.MaxBytes)
			}
		}
	}
	return sb.String()
}

func cut(s string, max int) string {
	if i := strings.LastIndexByte(s[:max], '\n'); i >= 0 {
		s = s[:i+1]
	} else {
		s = ""
	}
	return s + Truncated
}

func span(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start) // the line before the empty range
	}
	if n == 1 {
		return fmt.Sprintf("%d", start+1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// splitLines keeps each line's "\n", so a last line without one differs
// from the same line with one, as in diff(1).
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type opKind uint8

const (
	equal opKind = iota
	del
	ins
)

// op is one line of the edit script: a[a] kept or deleted, or b[b] inserted.
type op struct {
	kind opKind
	a, b int
}

// lineOps returns an edit script turning a into b.
func lineOps(a, b []string, maxEdits int) []op {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	ops := make([]op, 0, len(a)+len(b)-pre-suf)
	for i := 0; i < pre; i++ {
		ops = append(ops, op{equal, i, i})
	}
	ma, mb := a[pre:len(a)-suf], b[pre:len(b)-suf]
	mid, ok := myers(ma, mb, maxEdits)
	if !ok { // too different: the whole middle goes out and in
		mid = mid[:0]
		for i := range ma {
			mid = append(mid, op{del, i, 0})
		}
		for j := range mb {
			mid = append(mid, op{ins, 0, j})
		}
	}
	for _, o := range mid {
		o.a += pre
		o.b += pre
		ops = append(ops, o)
	}
	for i := 0; i < suf; i++ {
		ops = append(ops, op{equal, len(a) - suf + i, len(b) - suf + i})
	}
	return ops
}

// myers is the greedy O(ND) algorithm. trace[d] holds the furthest x on the
// diagonals -d-1..d+1 before step d, which is all the backtrack needs.
func myers(a, b []string, maxEdits int) ([]op, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		ops := make([]op, 0, n+m)
		for i := range a {
			ops = append(ops, op{del, i, 0})
		}
		for j := range b {
			ops = append(ops, op{ins, 0, j})
		}
		return ops, true
	}
	maxD := min(maxEdits, n+m)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m), true
			}
		}
	}
	return nil, false
}

func backtrack(trace [][]int, n, m int) []op {
	var ops []op
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vd := trace[d]
		at := func(k int) int { return vd[k+d+1] }
		k := x - y
		var prevK int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			prevK = k + 1
		} else {
			prevK = k - 1
		}
		prevX := at(prevK)
		prevY := prevX - prevK
		for x > prevX && y > prevY {
			x--
			y--
			ops = append(ops, op{equal, x, y})
		}
		if x == prevX {
			ops = append(ops, op{ins, 0, prevY})
		} else {
			ops = append(ops, op{del, prevX, 0})
		}
		x, y = prevX, prevY
	}
	for x > 0 && y > 0 {
		x--
		y--
		ops = append(ops, op{equal, x, y})
	}
	for i, j := 0, len(ops)-1; i < j; i, j = i+1, j-1 {
		ops[i], ops[j] = ops[j], ops[i]
	}
	return ops
}

type hunk struct {
	from, to     int // range in ops
	aStart, aLen int
	bStart, bLen int
}

// hunks groups changes that are at most 2*context lines apart.
func hunks(ops []op, context int) []hunk {
	var out []hunk
	aPos, bPos, scanned := 0, 0, 0 // line numbers before ops[scanned]
	advance := func(to int) {
		for ; scanned < to; scanned++ {
			if ops[scanned].kind != ins {
				aPos++
			}
			if ops[scanned].kind != del {
				bPos++
			}
		}
	}
	i := 0
	for i < len(ops) {
		for i < len(ops) && ops[i].kind == equal {
			i++
		}
		if i == len(ops) {
			break
		}
		from := max(0, i-context)
		end := i // one past the last change of the hunk
		for j := i; j < len(ops); j++ {
			if ops[j].kind != equal {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		to := min(len(ops), end+context)
		advance(from)
		h := hunk{from: from, to: to, aStart: aPos, bStart: bPos}
		advance(to)
		h.aLen, h.bLen = aPos-h.aStart, bPos-h.bStart
		out = append(out, h)
		i = to
	}
	return out
}
