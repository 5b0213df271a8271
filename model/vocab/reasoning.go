package vocab

import "strings"

// reasoningTag is one way models write their reasoning inline in the answer's text: between
// open and close.
type reasoningTag struct{ open, close string }

// reasoningTags are the inline reasoning blocks the loop recognises in content. Models write
// them whether thinking was asked or not (a template that does not split them out, thinking
// off, a model fine-tuned on them).
var reasoningTags = []reasoningTag{
	{"<think>", "</think>"},
	{"<thinking>", "</thinking>"},
	{"<reasoning>", "</reasoning>"},
	{"<thought>", "</thought>"},
	{"<|channel|>analysis<|message|>", "<|end|>"}, // the analysis channel of gpt-oss's format
}

// droppedMarkers are markers that carry no text of their own: a close tag with no open one
// (the template opened the block in the prompt), and the final channel's header.
var droppedMarkers = func() []string {
	out := []string{"<|channel|>final<|message|>", "<|start|>assistant"}
	for _, t := range reasoningTags {
		if t.close != "<|end|>" {
			out = append(out, t.close)
		}
	}
	return out
}()

// ReasoningSplitter takes the content of a streamed answer, chunk by chunk, and separates
// the reasoning written inline in it (<think>…</think> and its variants, anywhere) from the
// text. A tag split across chunks is held back until it is whole: nothing of a tag ever
// reaches the text. The zero value is ready.
//
// With Leading set it reads only a <think>…</think> block that opens the answer (after
// space), the way an OpenAI-compatible server leaves a model's thinking in the content: text
// before any tag is the answer, tags and all.
type ReasoningSplitter struct {
	Leading bool

	inside   string // the close tag awaited, when inside a block
	held     string // the end of the last chunk, which may begin a tag
	trimNext bool   // drop the whitespace that follows a block, before the text goes on
	wrote    bool   // some text came out
}

// Push takes the next chunk of content and returns what of it is reasoning and what is text.
func (s *ReasoningSplitter) Push(chunk string) (thinking, text string) {
	if s.Leading {
		return s.pushLeading(chunk)
	}
	buf := s.held + chunk
	s.held = ""
	var th, tx strings.Builder
	for buf != "" {
		if s.inside != "" {
			if i := strings.Index(buf, s.inside); i >= 0 {
				th.WriteString(buf[:i])
				buf = buf[i+len(s.inside):]
				s.inside, s.trimNext = "", true
				continue
			}
			keep := partialSuffix(buf, []string{s.inside})
			th.WriteString(buf[:len(buf)-keep])
			s.held = buf[len(buf)-keep:]
			break
		}
		if s.trimNext {
			buf = strings.TrimLeft(buf, " \t\r\n")
			if buf == "" {
				break
			}
			s.trimNext = false
		}
		at, tag, open := firstMarker(buf)
		if at < 0 {
			keep := partialSuffix(buf, allMarkers)
			tx.WriteString(buf[:len(buf)-keep])
			s.held = buf[len(buf)-keep:]
			break
		}
		tx.WriteString(buf[:at])
		buf = buf[at+len(tag):]
		if open != "" {
			s.inside = open
		} else {
			s.trimNext = !s.wrote && tx.Len() == 0 // a dropped marker before any text: the text starts after it
		}
	}
	s.wrote = s.wrote || tx.Len() > 0
	return th.String(), tx.String()
}

// Flush returns what was held back at the end of the stream: an unfinished tag is text (or
// reasoning, inside a block) after all.
func (s *ReasoningSplitter) Flush() (thinking, text string) {
	h := s.held
	s.held = ""
	if s.inside != "" {
		return h, ""
	}
	if s.Leading && !s.wrote && strings.TrimSpace(h) == "" { // nothing but space: no answer yet
		return "", ""
	}
	if s.trimNext {
		h = strings.TrimLeft(h, " \t\r\n")
	}
	return "", h
}

// allMarkers is every text the splitter acts on.
var allMarkers = func() []string {
	out := append([]string{}, droppedMarkers...)
	for _, t := range reasoningTags {
		out = append(out, t.open)
	}
	return out
}()

// firstMarker finds the earliest marker in s: its position (-1 when none), its text, and
// for an open tag the close tag it awaits ("" for a dropped marker). At one position the
// longest marker wins.
func firstMarker(s string) (at int, marker, close string) {
	at = -1
	consider := func(i int, m, c string) {
		if i >= 0 && (at < 0 || i < at || i == at && len(m) > len(marker)) {
			at, marker, close = i, m, c
		}
	}
	for _, t := range reasoningTags {
		consider(strings.Index(s, t.open), t.open, t.close)
	}
	for _, m := range droppedMarkers {
		consider(strings.Index(s, m), m, "")
	}
	return at, marker, close
}

// partialSuffix is the length of the longest end of s that is the beginning of one of
// markers (not a whole one): what must wait for the next chunk.
func partialSuffix(s string, markers []string) int {
	best := 0
	for _, m := range markers {
		for n := min(len(m)-1, len(s)); n > best; n-- {
			if strings.HasSuffix(s, m[:n]) {
				best = n
				break
			}
		}
	}
	return best
}

// maxLeadingSpace is the most space held before the answer is known not to open with
// <think>: held text is copied with every chunk, and a server could send space for ever.
const maxLeadingSpace = 4 << 10

// pushLeading is Push for a splitter that reads only a block opening the answer: undecided
// (nothing but space so far), inside the block, after it (its trailing space is dropped), or
// in the answer (wrote), where every chunk is text.
func (s *ReasoningSplitter) pushLeading(chunk string) (thinking, text string) {
	buf := s.held + chunk
	s.held = ""
	open := reasoningTags[0] // <think>
	for buf != "" {
		switch {
		case s.wrote:
			return thinking, text + buf
		case s.inside != "":
			i := strings.Index(buf, s.inside)
			if i < 0 {
				keep := partialSuffix(buf, []string{s.inside})
				s.held = buf[len(buf)-keep:]
				return thinking + buf[:len(buf)-keep], text
			}
			thinking += buf[:i]
			buf = buf[i+len(s.inside):]
			s.inside, s.trimNext = "", true
		case s.trimNext:
			if buf = strings.TrimLeft(buf, " \t\r\n"); buf != "" {
				s.wrote = true
			}
		default:
			trimmed := strings.TrimLeft(buf, " \t\r\n")
			switch {
			case strings.HasPrefix(trimmed, open.open):
				s.inside, buf = open.close, trimmed[len(open.open):]
			case strings.HasPrefix(open.open, trimmed) && len(buf) <= maxLeadingSpace: // "", "<", "<th", …: wait
				s.held = buf
				return thinking, text
			default:
				s.wrote = true
			}
		}
	}
	return thinking, text
}
