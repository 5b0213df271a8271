package vocab

import (
	"strings"
	"testing"
)

// splitAll pushes chunks through a splitter and returns all reasoning and all text.
func splitAll(chunks ...string) (thinking, text string) {
	var s ReasoningSplitter
	var th, tx strings.Builder
	for _, c := range chunks {
		a, b := s.Push(c)
		th.WriteString(a)
		tx.WriteString(b)
	}
	a, b := s.Flush()
	th.WriteString(a)
	tx.WriteString(b)
	return th.String(), tx.String()
}

func TestInlineReasoningBecomesThinkingNeverText(t *testing.T) {
	tests := []struct {
		name           string
		chunks         []string
		thinking, text string
	}{
		{"plain text passes", []string{"Hello", " world"}, "", "Hello world"},
		{"a whole block", []string{"<think>Let me see.</think>\n\nHello"}, "Let me see.", "Hello"},
		{"tags split across chunks", []string{"<th", "ink>Let ", "me see.</thi", "nk>", "\n", "Hello"}, "Let me see.", "Hello"},
		{"one byte at a time", strings.Split("<think>ab</think>cd", ""), "ab", "cd"},
		{"the variants", []string{"<thinking>a</thinking><reasoning>b</reasoning><thought>c</thought>d"}, "abc", "d"},
		{"the analysis channel", []string{"<|channel|>analysis<|message|>plan<|end|><|start|>assistant<|channel|>final<|message|>Done."}, "plan", "Done."},
		{"a close tag without its open one is dropped", []string{"reasoned</think>\n\nAnswer"}, "", "reasoned\n\nAnswer"},
		{"a close tag before anything is dropped with its spaces", []string{"</think>\n\nAnswer"}, "", "Answer"},
		{"text before a block stays text", []string{"Sure. <think>hm</think> Here."}, "hm", "Sure. Here."},
		{"a block never closed is reasoning to the end", []string{"<think>still going", " on"}, "still going on", ""},
		{"a lone < is text after all", []string{"a <", "b"}, "", "a <b"},
		{"an unfinished tag at the end is text", []string{"x <thi"}, "", "x <thi"},
		{"an unfinished close tag inside a block is reasoning", []string{"<think>a</thi"}, "a</thi", ""},
		{"other tags are text", []string{"<b>bold</b> <thinker>"}, "", "<b>bold</b> <thinker>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			th, tx := splitAll(tt.chunks...)
			if th != tt.thinking || tx != tt.text {
				t.Errorf("split(%q) = thinking %q, text %q; want %q, %q", tt.chunks, th, tx, tt.thinking, tt.text)
			}
		})
	}
}

// FuzzReasoningSplitterIgnoresChunkBoundaries: however a content is cut into chunks, the
// reasoning and the text are the same as for the whole, and no whole tag reaches the text.
func FuzzReasoningSplitterIgnoresChunkBoundaries(f *testing.F) {
	f.Add("<think>a</think>b", []byte{1, 3, 5})
	f.Add("x<|channel|>analysis<|message|>y<|end|>z", []byte{2, 9, 30})
	f.Add("<thinking>t</thinking>\n\n<think>u</think>", []byte{0, 4, 11})
	f.Fuzz(func(t *testing.T, content string, cuts []byte) {
		wantTh, wantTx := splitAll(content)
		var chunks []string
		rest := content
		for _, c := range cuts {
			if rest == "" {
				break
			}
			n := int(c) % (len(rest) + 1)
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		chunks = append(chunks, rest)
		th, tx := splitAll(chunks...)
		if th != wantTh || tx != wantTx {
			t.Fatalf("chunks %q: thinking %q text %q; whole: %q %q", chunks, th, tx, wantTh, wantTx)
		}
		for _, tag := range reasoningTags {
			if strings.Contains(tx, tag.open) && !strings.Contains(content, tag.open+tag.open[:1]) {
				// a tag in the text can only be one rebuilt from pieces around a removed tag
				if strings.Count(tx, tag.open) > strings.Count(content, tag.open) {
					t.Fatalf("text %q has more %q than the content", tx, tag.open)
				}
			}
		}
	})
}

// TestALeadingSplitterReadsOnlyABlockThatOpensTheAnswer: what an OpenAI-compatible server
// leaves in the content.
func TestALeadingSplitterReadsOnlyABlockThatOpensTheAnswer(t *testing.T) {
	for _, tc := range []struct {
		pieces           []string
		thinking, answer string
	}{
		{[]string{"Hello"}, "", "Hello"},
		{[]string{"<", "b>bold</b>"}, "", "<b>bold</b>"},
		{[]string{"<think>", "a<", "/b>c", "</think>", "x"}, "a</b>c", "x"},
		{[]string{"<think>unfinished"}, "unfinished", ""},
		{[]string{"Answer <think>not thinking</think>"}, "", "Answer <think>not thinking</think>"},
		{[]string{"  ", "\n"}, "", ""},
	} {
		ts := ReasoningSplitter{Leading: true}
		var th, an string
		for _, p := range tc.pieces {
			a, b := ts.Push(p)
			th, an = th+a, an+b
		}
		a, b := ts.Flush()
		th, an = th+a, an+b
		if th != tc.thinking || an != tc.answer {
			t.Errorf("%q: thinking %q answer %q, want %q %q", tc.pieces, th, an, tc.thinking, tc.answer)
		}
	}
}
