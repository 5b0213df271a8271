package openai

import "strings"

const (
	openThink  = "<think>"
	closeThink = "</think>"
)

// thinkSplitter separates thinking a server left in the content — <think>…</think> at the
// start of the answer — from the answer, across deltas that cut the tags anywhere. Text that
// might be the start of a tag is held until the next delta says.
type thinkSplitter struct {
	state   thinkState
	pending string // held text: a possible tag, or leading space
}

// maxLeadingSpace is the most space held before the answer is known not to open with
// <think>: held text is copied with every delta, and a server could send space for ever.
const maxLeadingSpace = 4 << 10

type thinkState uint8

const (
	thinkUndecided thinkState = iota // nothing but space so far
	thinkInside                      // inside <think>
	thinkAfter                       // after </think>: its trailing space is dropped
	thinkAnswer                      // the answer
)

// feed takes the next piece of content and returns the thinking and the answer it completes.
func (t *thinkSplitter) feed(text string) (thinking, content string) {
	s := t.pending + text
	t.pending = ""
	for s != "" {
		switch t.state {
		case thinkUndecided:
			trimmed := strings.TrimLeft(s, " \t\r\n")
			switch {
			case strings.HasPrefix(trimmed, openThink):
				t.state, s = thinkInside, trimmed[len(openThink):]
			case strings.HasPrefix(openThink, trimmed) && len(s) <= maxLeadingSpace: // "", "<", "<th", …: wait
				t.pending = s
				return thinking, content
			default:
				t.state = thinkAnswer
			}
		case thinkInside:
			if i := strings.Index(s, closeThink); i >= 0 {
				thinking += s[:i]
				t.state, s = thinkAfter, s[i+len(closeThink):]
				continue
			}
			keep := partialSuffix(s, closeThink)
			thinking += s[:len(s)-keep]
			t.pending = s[len(s)-keep:]
			return thinking, content
		case thinkAfter:
			s = strings.TrimLeft(s, " \t\r\n")
			if s != "" {
				t.state = thinkAnswer
			}
		case thinkAnswer:
			return thinking, content + s
		}
	}
	return thinking, content
}

// flush returns what is held at the end of the answer.
func (t *thinkSplitter) flush() (thinking, content string) {
	s := t.pending
	t.pending = ""
	if t.state == thinkInside {
		return s, ""
	}
	if t.state == thinkUndecided && strings.TrimSpace(s) == "" {
		return "", ""
	}
	return "", s
}

// partialSuffix is the length of the longest end of s that begins tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasPrefix(tag, s[len(s)-n:]) {
			return n
		}
	}
	return 0
}
