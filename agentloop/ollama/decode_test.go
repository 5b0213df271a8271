package ollama

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, lit := range []string{
		`""`, `"plain"`, `"tab\there\nnewline \"quoted\" back\\slash \/ \b\f\r"`,
		`"é ✓ 😀"`, `"\u00e9\u2713"`, `"\ud83d\ude00"`, `"\ud83d lone"`, `"\ude00"`, `"\uD83D\uDE00 upper"`,
		"\"invalid \xff utf8\"", `"\ud83d\u0041"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		var b strings.Builder
		if err := appendJSONString(&b, []byte(lit)); err != nil || b.String() != want {
			t.Errorf("appendJSONString(%s) = %q, %v; want %q", lit, b.String(), err, want)
		}
	}
	var b strings.Builder
	if err := appendJSONString(&b, []byte("null")); err != nil || b.Len() != 0 {
		t.Error("null should append nothing")
	}
	for _, bad := range []string{`42`, `{}`, `"`, `"\x"`} {
		if err := appendJSONString(&b, []byte(bad)); err == nil {
			t.Errorf("appendJSONString(%s) succeeded", bad)
		}
	}
}

// FuzzDecodeChatStream feeds arbitrary bodies through the whole chat decoding path (line
// splitting with a small limit, JSON decoding, unescaping, event emission). It must never
// panic, must fail only with the package's typed errors, and must never return tool calls
// without done:true.
func FuzzDecodeChatStream(f *testing.F) {
	for _, seed := range []string{
		`{"message":{"role":"assistant","content":"Hi","thinking":"hm"},"done":false}` + "\n" + doneLine + "\n",
		`{"message":{"content":"","tool_calls":[{"function":{"name":"f","arguments":{"a":1}}}]},"done":false}` + "\n",
		`{"message":{"content":"","tool_calls":[{"id":"x","function":{"name":"f","arguments":"{\"a\":1}"}}]},"done":true}`,
		`{"error":"boom"}` + "\n",
		`{"message":{"content":"\ud83d\ude00 \u00e9 \n"},"done":false}` + "\r\n\r\n",
		"{\"message\":{\"content\":\"\xff\"}}\n",
		`{"message":{"content":`,
		strings.Repeat("x", 300) + "\n",
		"\n\n\n",
		`[1,2,3]`,
		`{"message":null,"done":true}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var content strings.Builder
		d := chatDecoder{fn: func(e Event) error {
			if e.Kind == EventContentDelta {
				content.WriteString(e.Text)
			}
			return nil
		}, newID: newCallID}
		res, err := d.run(newLineReader(bytes.NewReader(body), 256), nil, func(err error) error { return err })
		if err != nil {
			if !errors.Is(err, ErrMalformedLine) && !errors.Is(err, ErrLineTooLong) &&
				!errors.Is(err, ErrIncompleteStream) && !errors.Is(err, ErrStream) {
				t.Fatalf("untyped error %T: %v", err, err)
			}
			if res != nil && len(res.Message.ToolCalls) > 0 {
				t.Fatal("a failed stream returned tool calls")
			}
			return
		}
		if !res.Done {
			t.Fatal("success without done")
		}
		if res.Message.Content != content.String() {
			t.Fatalf("result content %q != sum of deltas %q", res.Message.Content, content.String())
		}
		if !utf8.ValidString(res.Message.Content) {
			t.Fatal("content is not valid UTF-8")
		}
		for i, tc := range res.Message.ToolCalls {
			if tc.Index != i || tc.ID == "" || !json.Valid(tc.Function.Arguments) {
				t.Fatalf("tool call %d = %+v", i, tc)
			}
		}
	})
}

// FuzzAppendJSONString checks the unescaper against encoding/json on every valid literal.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range []string{"plain", "a\nb", "é😀", "\xff", `\ud83d`, "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, lit := range [][]byte{mustMarshal(s), []byte(`"` + s + `"`)} {
			var want string
			if json.Unmarshal(lit, &want) != nil {
				continue
			}
			var b strings.Builder
			if err := appendJSONString(&b, lit); err != nil || b.String() != want {
				t.Fatalf("appendJSONString(%s) = %q, %v; want %q", lit, b.String(), err, want)
			}
		}
	})
}

func mustMarshal(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func TestLineReaderCountsLinesAndEnforcesTheLimit(t *testing.T) {
	lr := newLineReader(strings.NewReader("a\n\nbb\r\n"+strings.Repeat("c", 40)+"\nlast"), 32)
	for _, want := range []string{"a", "bb"} {
		line, err := lr.next()
		if err != nil || string(line) != want {
			t.Fatalf("line = %q, %v; want %q", line, err, want)
		}
	}
	_, err := lr.next()
	var tl *LineTooLongError
	if !errors.As(err, &tl) || tl.Line != 4 || tl.Limit != 32 {
		t.Fatalf("err = %v, want line 4 too long", err)
	}
	lr = newLineReader(strings.NewReader("last"), 32)
	if line, err := lr.next(); err != nil || string(line) != "last" {
		t.Fatalf("line = %q, %v", line, err)
	}
	if _, err := lr.next(); err != io.EOF {
		t.Fatalf("err = %v, want EOF", err)
	}
}

func TestALineMustHoldExactlyOneJSONObject(t *testing.T) {
	for _, body := range []string{
		`{"message":{"content":"a"},"done":true} trailing`,
		`{"message":{"content":"a"},"done":false}{"done":true}`,
		`{"message":{"content":"a"}` + "\n" + `,"done":true}`,
		`42`,
		`"done"`,
		`{"message":{"content":"a"},"done":tru}`,
	} {
		d := chatDecoder{fn: func(Event) error { return nil }, newID: newCallID}
		_, err := d.run(newLineReader(strings.NewReader(body), 1024), nil, func(err error) error { return err })
		if !errors.Is(err, ErrMalformedLine) {
			t.Errorf("%q: err = %v, want ErrMalformedLine", body, err)
		}
	}
	// Blank space around a value is fine, and the decoder carries on across lines.
	d := chatDecoder{fn: func(Event) error { return nil }, newID: newCallID}
	res, err := d.run(newLineReader(strings.NewReader("  {\"message\":{\"content\":\"a\"}}  \n\t{\"message\":{\"content\":\"b\"},\"done\":true}\t\n"), 1024), nil, func(err error) error { return err })
	if err != nil || res.Message.Content != "ab" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}
