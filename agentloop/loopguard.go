package agentloop

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxLoopPeriod is the longest cycle of calls the guard recognises (A B A B … is 2).
const maxLoopPeriod = 4

// loopGuard watches the calls of one run for a model that repeats itself: the same call
// (tool and arguments, compared canonically) several times in a row, or a cycle of calls
// whose results never change (A B A B A B with every A and every B answered the same). The
// model is told once, in place of the result of the call that makes the repetition one short
// of the limit; the call that reaches the limit stops the run (stop reason loop). A message
// from the user starts the count again.
type loopGuard struct {
	limit  int
	calls  []guardedCall
	warned map[string]bool // patterns the model was told about
}

// guardedCall is one call as the guard saw it.
type guardedCall struct {
	sig    string // name + canonical arguments
	label  string // the call as a sentence names it
	result [sha256.Size]byte
	known  bool   // result is set
	output string // the result, cut, for the notice
}

// loopVerdict is what the guard says of a call about to be planned.
type loopVerdict int

const (
	loopNone loopVerdict = iota
	// loopWarn: the call is not run; the model reads loopNoticeText instead of its result.
	loopWarn
	// loopStop: the call is not run, and the run stops as a loop.
	loopStop
)

func newLoopGuard(limit int) *loopGuard {
	return &loopGuard{limit: limit, warned: map[string]bool{}}
}

// reset forgets the calls so far (the user said something: repeating may be what they want).
func (g *loopGuard) reset() { g.calls = g.calls[:0] }

// check records a call about to be planned and says whether it repeats the run's latest
// calls; seen is the call's position for settle (1-based), note the text the model reads
// (loopWarn) or the sentence that ends the run (loopStop).
func (g *loopGuard) check(name string, args json.RawMessage) (v loopVerdict, seen int, note string) {
	canon := canonicalArgs(args)
	c := guardedCall{sig: callSignature(name, args), label: callSentenceLabel(name, canon)}
	g.calls = append(g.calls, c)
	k := len(g.calls) - 1
	for p := 1; p <= maxLoopPeriod && p <= k; p++ {
		streak := 0
		for i := k; i-p >= 0; i-- {
			a, b := g.calls[i], g.calls[i-p]
			if a.sig != b.sig {
				break
			}
			// a cycle repeats only while nothing changes: every result the same as the last time
			if p > 1 && i != k && (!a.known || !b.known || a.result != b.result) {
				break
			}
			streak++
		}
		// the same call again: at once; a call of a cycle: once the cycle went round once
		// unchanged, so that the call's own last result predicts this one
		if streak < p || (p > 1 && streak < p+1) {
			continue
		}
		copies := (streak + p) / p
		pattern := g.pattern(k-p+1, k)
		switch {
		case copies >= g.limit:
			return loopStop, k + 1, g.stopSentence(k-p+1, k, copies)
		case copies == g.limit-1 && !g.warned[pattern]:
			g.warned[pattern] = true
			prev := g.calls[k-p]
			// told instead of run: counted as the same result, so that a cycle stays whole
			g.calls[k].result, g.calls[k].known, g.calls[k].output = prev.result, prev.known, prev.output
			return loopWarn, k + 1, loopNoticeText(c.label, prev.output, prev.known)
		}
	}
	return loopNone, k + 1, ""
}

// settle records the result of the call check numbered seen.
func (g *loopGuard) settle(seen int, output string) {
	if seen <= 0 || seen > len(g.calls) || g.calls[seen-1].known {
		return
	}
	c := &g.calls[seen-1]
	c.result, c.known = sha256.Sum256([]byte(output)), true
	c.output = cut(output, 2000)
}

func (g *loopGuard) pattern(from, to int) string {
	var b strings.Builder
	for _, c := range g.calls[from : to+1] {
		b.WriteString(c.sig)
		b.WriteByte('\n')
	}
	return b.String()
}

// stopSentence says which call (or cycle of calls) the run repeated, and what the user can do.
func (g *loopGuard) stopSentence(from, to, copies int) string {
	const advice = "; the run was stopped as a loop. Send a message to steer the model, or try another model."
	if from == to {
		return fmt.Sprintf("The model called %s %d times in a row with the same arguments%s", g.calls[to].label, copies, advice)
	}
	labels := make([]string, 0, to-from+1)
	for _, c := range g.calls[from : to+1] {
		labels = append(labels, c.label)
	}
	return fmt.Sprintf("The model repeated the calls %s %d times, with the same results each time%s",
		strings.Join(labels, ", then "), copies, advice)
}

// loopNoticeText is what the model reads in place of the result of a call it already made
// with the same arguments.
func loopNoticeText(label, previous string, known bool) string {
	was := "its result was:\n" + previous
	if !known {
		was = "its result is above"
	}
	return fmt.Sprintf("not run again: you already called %s with the same arguments; %s\n"+
		"Do not call it again with these arguments: use that result, do something else, or answer. "+
		"Calling it again the same way stops the run.", label, was)
}

// callSignature is what makes two calls the same call: the tool and its canonical arguments.
func callSignature(name string, args json.RawMessage) string {
	return name + "\x00" + canonicalArgs(args)
}

// canonicalArgs is a call's arguments in one spelling: keys sorted, no spaces, numbers as
// written. Arguments that are no JSON are compared as they are.
func canonicalArgs(args json.RawMessage) string {
	if len(bytes.TrimSpace(args)) == 0 {
		return "{}"
	}
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return string(args)
	}
	b, err := json.Marshal(v) // maps marshal with sorted keys
	if err != nil {
		return string(args)
	}
	return string(b)
}

// callSentenceLabel names a call in a sentence: the tool and its arguments, cut.
func callSentenceLabel(name, canon string) string {
	if canon == "{}" {
		return name
	}
	return name + " " + cut(canon, 120)
}

// cut shortens s to at most n bytes (whole runes), marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
