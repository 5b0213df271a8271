package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	official "github.com/ollama/ollama/api"
)

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
// message (content, thinking, tool calls, metrics) with this client and with the official
// one, side by side.
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
