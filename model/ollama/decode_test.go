package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	official "github.com/ollama/ollama/api"

	"prototyper/model/vocab"
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
		}, newID: vocab.NewCallID}
		res, err := d.run(newLineReader(bytes.NewReader(body), 256), nil, func(err error) error { return err })
		if err != nil {
			if !errors.Is(err, vocab.ErrMalformedLine) && !errors.Is(err, vocab.ErrLineTooLong) &&
				!errors.Is(err, vocab.ErrIncompleteStream) && !errors.Is(err, vocab.ErrStream) {
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
		d := chatDecoder{fn: func(Event) error { return nil }, newID: vocab.NewCallID}
		_, err := d.run(newLineReader(strings.NewReader(body), 1024), nil, func(err error) error { return err })
		if !errors.Is(err, vocab.ErrMalformedLine) {
			t.Errorf("%q: err = %v, want vocab.ErrMalformedLine", body, err)
		}
	}
	// Blank space around a value is fine, and the decoder carries on across lines.
	d := chatDecoder{fn: func(Event) error { return nil }, newID: vocab.NewCallID}
	res, err := d.run(newLineReader(strings.NewReader("  {\"message\":{\"content\":\"a\"}}  \n\t{\"message\":{\"content\":\"b\"},\"done\":true}\t\n"), 1024), nil, func(err error) error { return err })
	if err != nil || res.Message.Content != "ab" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

// The decoder against a recorded stream: its cost per chunk, and how a caller uses it.

const recordedChunks = 100_000

var (
	recordingOnce sync.Once
	recording     []byte
)

// recordedStream is a realistic /api/chat answer of 100k chunks, marshalled with the
// server's own types: 30k thinking tokens, 70k content tokens (code, with newlines, quotes
// and the odd non-ASCII character), one chunk with two tool calls, and the done chunk.
func recordedStream() []byte {
	recordingOnce.Do(func() {
		words := []string{" the", " file", " I", " should", " write", "func", " main", "()", " {", "\n\t", "fmt", ".Println", "(\"", "hello", "\")", "\n", "}", " —", " é", " result", " :=", " 42", ",", " and", " then"}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		at := time.Date(2025, 8, 6, 10, 11, 12, 123456789, time.UTC)
		for i := 0; i < recordedChunks-2; i++ {
			resp := official.ChatResponse{Model: "qwen3:0.6b", CreatedAt: at.Add(time.Duration(i) * time.Millisecond), Message: official.Message{Role: "assistant"}}
			if i < 30_000 {
				resp.Message.Thinking = words[i%len(words)]
			} else {
				resp.Message.Content = words[i%len(words)]
			}
			_ = enc.Encode(resp)
		}
		calls := []official.ToolCall{
			{Function: official.ToolCallFunction{Index: 0, Name: "write_file", Arguments: official.ToolCallFunctionArguments{"path": "main.go", "content": "package main\n"}}},
			{Function: official.ToolCallFunction{Index: 1, Name: "read_file", Arguments: official.ToolCallFunctionArguments{"path": "go.mod"}}},
		}
		_ = enc.Encode(official.ChatResponse{Model: "qwen3:0.6b", CreatedAt: at, Message: official.Message{Role: "assistant", ToolCalls: calls}})
		_ = enc.Encode(official.ChatResponse{Model: "qwen3:0.6b", CreatedAt: at, Message: official.Message{Role: "assistant"}, Done: true, DoneReason: "stop",
			Metrics: official.Metrics{TotalDuration: time.Minute, PromptEvalCount: 100, PromptEvalDuration: time.Second, EvalCount: recordedChunks, EvalDuration: 50 * time.Second}})
		recording = buf.Bytes()
	})
	return recording
}

// replay answers every request with the recording, in memory, so that both clients are
// measured on decoding alone.
type replay []byte

func (r replay) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/x-ndjson"}},
		Body:    io.NopCloser(bytes.NewReader(r)),
		Request: req,
	}, nil
}

// perChunk reports the run's figures per chunk rather than per stream.
func perChunk(b *testing.B, run func()) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		run()
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	n := float64(b.N) * recordedChunks
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/chunk")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/chunk")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/chunk")
}

// BenchmarkDecodeChatStream decodes the recorded 100k-chunk stream into the finished
// message (content, thinking, tool calls, metrics) with this client, with a key to mask, and
// with the official one, side by side.
func BenchmarkDecodeChatStream(b *testing.B) {
	rec := recordedStream()
	base := &url.URL{Scheme: "http", Host: "ollama.invalid:11434"}
	hc := &http.Client{Transport: replay(rec)}
	ctx := context.Background()
	wantContent := 0

	b.Run("client=prototyper", func(b *testing.B) {
		c := New(base, WithHTTPClient(hc))
		req := userTurn("qwen3:0.6b", "hi")
		perChunk(b, func() {
			res, err := c.Chat(ctx, req, func(Event) error { return nil })
			if err != nil || len(res.Message.ToolCalls) != 2 {
				b.Fatalf("res = %v, err = %v", res, err)
			}
			wantContent = len(res.Message.Content)
		})
	})
	b.Run("client=prototyper,key=masked", func(b *testing.B) { // the key's masking of the body as it is read
		c := New(base, WithHTTPClient(hc), WithAuthorization("Bearer sk-proj-0123456789abcdef"))
		req := userTurn("qwen3:0.6b", "hi")
		perChunk(b, func() {
			res, err := c.Chat(ctx, req, func(Event) error { return nil })
			if err != nil || len(res.Message.ToolCalls) != 2 || len(res.Message.Content) != wantContent {
				b.Fatalf("res = %v, err = %v", res, err)
			}
		})
	})
	b.Run("client=ollama-api", func(b *testing.B) {
		c := official.NewClient(base, hc)
		req := &official.ChatRequest{Model: "qwen3:0.6b", Messages: []official.Message{{Role: "user", Content: "hi"}}}
		perChunk(b, func() {
			var content, thinking strings.Builder
			var calls []official.ToolCall
			var last official.ChatResponse
			err := c.Chat(ctx, req, func(r official.ChatResponse) error {
				content.WriteString(r.Message.Content)
				thinking.WriteString(r.Message.Thinking)
				calls = append(calls, r.Message.ToolCalls...)
				last = r
				return nil
			})
			if err != nil || len(calls) != 2 || !last.Done {
				b.Fatalf("err = %v, calls = %d", err, len(calls))
			}
			if wantContent != 0 && content.Len() != wantContent {
				b.Fatalf("content %d bytes, ours %d", content.Len(), wantContent)
			}
		})
	})
}

func ExampleClient_Chat() {
	srv := replay(`{"message":{"role":"assistant","content":"","thinking":"Short."},"done":false}
{"message":{"role":"assistant","content":"Hello!"},"done":false}
{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","eval_count":2,"eval_duration":100000000}
`)
	c := New(&url.URL{Scheme: "http", Host: "127.0.0.1:11434"}, WithHTTPClient(&http.Client{Transport: srv}))
	res, err := c.Chat(context.Background(), &ChatRequest{
		Model:    "qwen3:0.6b",
		Messages: []Message{{Role: RoleUser, Content: "Say hello."}},
		Think:    ThinkOn,
	}, func(e Event) error {
		fmt.Printf("%s: %q\n", e.Kind, e.Text)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("done (%s), %.0f tokens/s: %s\n", res.DoneReason, res.Metrics.TokensPerSec(), res.Message.Content)
	// Output:
	// started: ""
	// thinking: "Short."
	// content: "Hello!"
	// done (stop), 20 tokens/s: Hello!
}
