package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"prototyper/model/internal/clienttest"
	"prototyper/model/vocab"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestChatRequestCarriesEverythingTheAgentNeeds(t *testing.T) {
	schema := `{"type":"object","properties":{"path":{"type":"string","minLength":1},"mode":{"enum":["a","b"]}},"required":["path"],"additionalProperties":false,"$defs":{"x":{"type":"integer"}}}`
	temp := 0.2
	req := &ChatRequest{
		Model: "qwen3:0.6b",
		Messages: []Message{
			{Role: RoleSystem, Content: "be brief"},
			{Role: RoleUser, Content: "look", Images: [][]byte{[]byte("PNG")}},
			{Role: RoleAssistant, Content: "", Thinking: "hmm", ToolCalls: []ToolCall{{ID: "call_1", Index: 0, Function: ToolCallFunction{Name: "read_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)}}}},
			{Role: RoleTool, Content: "hello", ToolName: "read_file"},
		},
		Tools:     []Tool{FunctionTool("read_file", "Read a file", json.RawMessage(schema))},
		Think:     ThinkHigh,
		Options:   &Options{NumCtx: 8192, Temperature: &temp, NumPredict: 512},
		KeepAlive: KeepAliveFor(10 * time.Minute),
	}
	var got map[string]any
	var raw []byte
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" { // asked beside a request for thinking
			fmt.Fprint(w, `{"version":"0.12.0"}`)
			return
		}
		if r.URL.Path != "/api/chat" || r.Method != http.MethodPost {
			t.Errorf("request = %s %s, want POST /api/chat", r.Method, r.URL.Path)
		}
		raw, _ = io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &got)
		writeLines(w, `{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`)
	})
	if _, err := c.Chat(testCtx(t), req, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"model":      "qwen3:0.6b",
		"stream":     true,
		"think":      "high",
		"keep_alive": "10m0s",
		"options":    map[string]any{"num_ctx": 8192.0, "temperature": 0.2, "num_predict": 512.0},
	}
	for k, v := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	msgs := got["messages"].([]any)
	if img := msgs[1].(map[string]any)["images"].([]any)[0]; img != "UE5H" {
		t.Errorf("image = %v, want base64 of the bytes", img)
	}
	asst := msgs[2].(map[string]any)
	if asst["thinking"] != "hmm" {
		t.Errorf("assistant thinking = %v", asst["thinking"])
	}
	fn := asst["tool_calls"].([]any)[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "read_file" || fmt.Sprint(fn["arguments"]) != "map[path:a.txt]" {
		t.Errorf("tool call = %v", fn)
	}
	if tool := msgs[3].(map[string]any); tool["tool_name"] != "read_file" || tool["role"] != "tool" {
		t.Errorf("tool message = %v", tool)
	}
	// The schema travels byte for byte.
	var wire struct {
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(raw, &wire)
	if len(wire.Tools) != 1 || wire.Tools[0].Type != "function" || string(wire.Tools[0].Function.Parameters) != schema {
		t.Errorf("tools = %+v, want the schema unchanged", wire.Tools)
	}
}

func TestThinkMarshalsEachValueAndOmitsUnset(t *testing.T) {
	for _, tc := range []struct {
		think Think
		want  string
	}{
		{Think{}, `{"model":"m","messages":null,"stream":true}`},
		{ThinkOff, `{"model":"m","messages":null,"think":false,"stream":true}`},
		{ThinkOn, `{"model":"m","messages":null,"think":true,"stream":true}`},
		{ThinkLow, `{"model":"m","messages":null,"think":"low","stream":true}`},
		{ThinkMedium, `{"model":"m","messages":null,"think":"medium","stream":true}`},
	} {
		b, err := json.Marshal(wireChatRequest{ChatRequest: &ChatRequest{Model: "m", Think: tc.think}, Stream: true})
		if err != nil || string(b) != tc.want {
			t.Errorf("think %q: %s, %v; want %s", tc.think, b, err, tc.want)
		}
	}
	for in, want := range map[string]Think{"off": ThinkOff, "on": ThinkOn, "high": ThinkHigh, "": {}} {
		if got, err := ParseThink(in); err != nil || got != want {
			t.Errorf("ParseThink(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseThink("max"); err == nil {
		t.Error("ParseThink(max) succeeded")
	}
}

const doneLine = `{"model":"m","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","total_duration":3000000000,"load_duration":1000000000,"prompt_eval_count":12,"prompt_eval_duration":200000000,"eval_count":50,"eval_duration":2000000000}`

// contentLine is a line of the stream that carries content only.
func contentLine(content string) string {
	return fmt.Sprintf(`{"model":"m","message":{"role":"assistant","content":%q},"done":false}`, content)
}

func TestChatStreamsThinkingContentAndCompleteToolCalls(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w,
			`{"model":"m","created_at":"2025-08-01T00:00:00Z","message":{"role":"assistant","content":"","thinking":"I should"},"done":false}`,
			`{"model":"m","message":{"role":"assistant","content":"","thinking":" write.\n"},"done":false}`,
			`{"model":"m","message":{"role":"assistant","content":"Writing \"a\" — ✓"},"done":false}`,
			`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"write_file","arguments":{"path":"a.txt","content":"hi"}}},{"id":"call_srv","function":{"index":1,"name":"read_file","arguments":{"path":"b.txt"}}}]},"done":false}`,
			`{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"index":2,"name":"list_dir","arguments":{}}}]},"done":false}`,
			doneLine,
		)
	})
	var rec recorder
	res, err := c.Chat(testCtx(t), userTurn("m", "go"), rec.fn)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.text(EventThinkingDelta); got != "I should write.\n" {
		t.Errorf("thinking deltas = %q", got)
	}
	if got := rec.text(EventContentDelta); got != `Writing "a" — ✓` {
		t.Errorf("content deltas = %q", got)
	}
	if n := rec.count(EventToolCalls); n != 1 {
		t.Fatalf("%d tool-call events, want 1 (all calls together, after done)", n)
	}
	if last := rec.events[len(rec.events)-1]; last.Kind != EventToolCalls {
		t.Errorf("last event = %v, want the tool calls", last.Kind)
	}
	calls := res.Message.ToolCalls
	if len(calls) != 3 {
		t.Fatalf("tool calls = %+v, want 3", calls)
	}
	for i, want := range []struct{ name, args string }{{"write_file", `{"path":"a.txt","content":"hi"}`}, {"read_file", `{"path":"b.txt"}`}, {"list_dir", `{}`}} {
		if calls[i].Index != i || calls[i].Function.Name != want.name || string(calls[i].Function.Arguments) != want.args {
			t.Errorf("call %d = %+v (%s), want %s %s", i, calls[i], calls[i].Function.Arguments, want.name, want.args)
		}
		if !strings.HasPrefix(calls[i].ID, "call_") {
			t.Errorf("call %d id = %q, want an id", i, calls[i].ID)
		}
	}
	if calls[1].ID != "call_srv" {
		t.Errorf("server id not kept: %q", calls[1].ID)
	}
	if calls[0].ID == calls[2].ID {
		t.Error("generated ids are equal")
	}
	if res.Message.Content != `Writing "a" — ✓` || res.Message.Thinking != "I should write.\n" || res.Message.Role != RoleAssistant {
		t.Errorf("message = %+v", res.Message)
	}
	if !res.Done || res.DoneReason != "stop" {
		t.Errorf("done = %v %q", res.Done, res.DoneReason)
	}
	m := res.Metrics
	if m.PromptEvalCount != 12 || m.EvalCount != 50 || m.EvalDuration != 2*time.Second || m.TotalDuration != 3*time.Second || m.LoadDuration != time.Second {
		t.Errorf("metrics = %+v", m)
	}
	if tps := m.TokensPerSec(); tps != 25 {
		t.Errorf("tokens/s = %v, want 25", tps)
	}
}

func TestChatFailures(t *testing.T) {
	partialCall := `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"rm","arguments":{"path":"/"}}}]},"done":false}`
	for _, tc := range []struct {
		name        string
		lines       []string
		want        error
		wantContent string
		check       func(t *testing.T, err error)
	}{{
		name:        "an error line after content is a StreamError with the server's text",
		lines:       []string{`{"message":{"content":"Hel"},"done":false}`, partialCall, `{"error":"model runner has unexpectedly stopped"}`},
		want:        vocab.ErrStream,
		wantContent: "Hel",
		check: func(t *testing.T, err error) {
			var se *StreamError
			if !errors.As(err, &se) || se.Message != "model runner has unexpectedly stopped" || se.Line != 3 {
				t.Errorf("StreamError = %+v", se)
			}
		},
	}, {
		name:        "EOF without done is an incomplete stream whose tool calls are not returned",
		lines:       []string{`{"message":{"content":"Hel"},"done":false}`, partialCall},
		want:        vocab.ErrIncompleteStream,
		wantContent: "Hel",
	}, {
		name:  "a malformed line is an error naming its line number",
		lines: []string{`{"message":{"content":"a"},"done":false}`, ``, `{"message":{"content":"b"},"done":false}`, `{"message":{"content":`},
		want:  vocab.ErrMalformedLine,
		check: func(t *testing.T, err error) {
			var me *MalformedLineError
			if !errors.As(err, &me) || me.Line != 4 || !strings.Contains(err.Error(), "line 4") {
				t.Errorf("err = %v, want line 4", err)
			}
		},
		wantContent: "ab",
	}, {
		name:  "content that is not a string is malformed",
		lines: []string{`{"message":{"content":42},"done":false}`},
		want:  vocab.ErrMalformedLine,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { writeLines(w, tc.lines...) })
			var rec recorder
			res, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if rec.count(EventToolCalls) != 0 {
				t.Error("a failed stream emitted tool calls")
			}
			if res != nil && len(res.Message.ToolCalls) != 0 {
				t.Error("a failed stream returned tool calls")
			}
			if tc.wantContent != "" && (res == nil || res.Message.Content != tc.wantContent) {
				t.Errorf("partial result = %+v, want content %q", res, tc.wantContent)
			}
			if tc.check != nil {
				tc.check(t, err)
			}
		})
	}
}

func TestChatLineLimit(t *testing.T) {
	big := strings.Repeat("x", 20<<20)
	line := `{"message":{"content":"` + big + `"},"done":false}`
	serve := func(w http.ResponseWriter, r *http.Request) { writeLines(w, line, doneLine) }

	t.Run("a 20 MiB line over the default 16 MiB limit is a clear error", func(t *testing.T) {
		c, _ := newTestServer(t, serve)
		_, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
		var tl *LineTooLongError
		if !errors.As(err, &tl) || tl.Limit != vocab.DefaultMaxLineSize || tl.Line != 1 {
			t.Fatalf("err = %v, want a LineTooLongError for line 1", err)
		}
		if !strings.Contains(err.Error(), "16 MiB") {
			t.Errorf("message %q does not name the limit", err)
		}
	})
	t.Run("raised limits read the 20 MiB line whole", func(t *testing.T) {
		c, _ := newTestServer(t, serve, WithMaxLineSize(32<<20), WithMaxAnswerSize(32<<20))
		res, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Message.Content) != len(big) {
			t.Errorf("content is %d bytes, want %d", len(res.Message.Content), len(big))
		}
	})
}

func TestChatRetriesBeforeTheFirstByte(t *testing.T) {
	t.Run("503 then 200 is retried and reported", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				http.Error(w, `{"error":"server busy, please try again.  maximum pending requests exceeded"}`, http.StatusServiceUnavailable)
				return
			}
			writeLines(w, `{"message":{"content":"ok"},"done":false}`, doneLine)
		})
		var rec recorder
		res, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
		if err != nil || res.Message.Content != "ok" {
			t.Fatalf("res = %+v, err = %v", res, err)
		}
		if calls.Load() != 2 || rec.count(EventRetry) != 1 {
			t.Fatalf("%d requests, %d retry events; want 2 and 1", calls.Load(), rec.count(EventRetry))
		}
		r := rec.events[0].Retry
		if r.Attempt != 2 || !errors.Is(r.Err, vocab.ErrBusy) || r.Reason == "" {
			t.Errorf("retry = %+v", r)
		}
	})
	t.Run("503 with Retry-After waits as long as the server asks", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			writeLines(w, doneLine)
		})
		var rec recorder
		if _, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn); err != nil {
			t.Fatal(err)
		}
		if rec.count(EventRetry) != 1 || rec.events[0].Retry.Delay != time.Second {
			t.Errorf("events = %+v, want one retry after 1s", rec.events)
		}
	})
	t.Run("a busy server that stays busy is vocab.ErrBusy after the bounded attempts", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.WriteHeader(http.StatusServiceUnavailable)
		}, WithRetry(3, 5*time.Second))
		var rec recorder
		_, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
		if !errors.Is(err, vocab.ErrBusy) || !Retryable(err) {
			t.Fatalf("err = %v, want vocab.ErrBusy (retryable)", err)
		}
		if calls.Load() != 3 || rec.count(EventRetry) != 2 {
			t.Errorf("%d requests, %d retries; want 3 and 2", calls.Load(), rec.count(EventRetry))
		}
	})
	t.Run("a Retry-After beyond the elapsed bound stops the retrying", func(t *testing.T) {
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusServiceUnavailable)
		})
		start := time.Now()
		_, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
		if !errors.Is(err, vocab.ErrBusy) {
			t.Fatalf("err = %v", err)
		}
		if time.Since(start) > 10*time.Second {
			t.Error("waited for a Retry-After beyond the bound")
		}
	})
	t.Run("500 is retried", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) < 3 {
				http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
				return
			}
			writeLines(w, doneLine)
		})
		if _, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil); err != nil || calls.Load() != 3 {
			t.Fatalf("err = %v after %d requests", err, calls.Load())
		}
	})
	for _, tc := range []struct {
		status int
		body   string
		want   error
		says   string
	}{
		{404, `{"error":"model \"nope\" not found, try pulling it first"}`, vocab.ErrModelNotFound, "prototyper pull nope"},
		{400, `{"error":"registry.ollama.ai/library/gemma3:1b does not support tools"}`, vocab.ErrCapability, "does not support tools"},
		{400, `{"error":"registry.ollama.ai/library/gemma3:1b does not support thinking"}`, vocab.ErrCapability, "--think off"},
	} {
		t.Run(fmt.Sprintf("%d is never retried: %s", tc.status, tc.want), func(t *testing.T) {
			var calls atomic.Int32
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			_, err := c.Chat(testCtx(t), userTurn("nope", "hi"), nil)
			if !errors.Is(err, tc.want) || Retryable(err) {
				t.Fatalf("err = %v, want %v, not retryable", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("message %q does not say %q", err, tc.says)
			}
			if calls.Load() != 1 {
				t.Errorf("%d requests, want 1", calls.Load())
			}
		})
	}
}

func TestChatConnectionRefusedIsNotRunningAfterRetries(t *testing.T) {
	u, err := url.Parse(clienttest.RefusingURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := New(u, WithRetry(3, 5*time.Second), WithRetryInterval(5*time.Millisecond, 10*time.Millisecond))
	var rec recorder
	_, err = c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
	if !errors.Is(err, ErrNotRunning) {
		t.Fatalf("err = %v, want ErrNotRunning", err)
	}
	if !strings.Contains(err.Error(), u.String()) || !strings.Contains(err.Error(), "ollama serve") {
		t.Errorf("message %q should name the URL and how to start Ollama", err)
	}
	if rec.count(EventRetry) != 2 {
		t.Errorf("%d retries, want 2", rec.count(EventRetry))
	}
}

func TestChatTimeouts(t *testing.T) {
	t.Run("a hang before the first byte is a first-byte timeout, not retried", func(t *testing.T) {
		var calls atomic.Int32
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			hang(r)
		}, WithFirstByteTimeout(100*time.Millisecond))
		_, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
		if !errors.Is(err, vocab.ErrFirstByteTimeout) || errors.Is(err, vocab.ErrIdleTimeout) {
			t.Fatalf("err = %v, want vocab.ErrFirstByteTimeout", err)
		}
		if calls.Load() != 1 {
			t.Errorf("%d requests, want 1", calls.Load())
		}
	})
	t.Run("headers without a first line still count as before the first byte", func(t *testing.T) {
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			hang(r)
		}, WithFirstByteTimeout(100*time.Millisecond))
		_, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
		if !errors.Is(err, vocab.ErrFirstByteTimeout) {
			t.Fatalf("err = %v, want vocab.ErrFirstByteTimeout", err)
		}
	})
	t.Run("a hang between lines is an idle timeout, partial text kept", func(t *testing.T) {
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			writeLines(w, `{"message":{"content":"Hel"},"done":false}`)
			hang(r)
		}, WithIdleTimeout(100*time.Millisecond))
		res, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
		if !errors.Is(err, vocab.ErrIdleTimeout) || !Retryable(err) {
			t.Fatalf("err = %v, want vocab.ErrIdleTimeout", err)
		}
		if res == nil || res.Message.Content != "Hel" {
			t.Errorf("partial = %+v", res)
		}
	})
	t.Run("zero timeouts mean none", func(t *testing.T) {
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(50 * time.Millisecond)
			writeLines(w, `{"message":{"content":"."},"done":false}`)
			time.Sleep(50 * time.Millisecond)
			writeLines(w, doneLine)
		}, WithIdleTimeout(0), WithFirstByteTimeout(0))
		if _, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a slow stream whose lines keep coming never times out", func(t *testing.T) {
		c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			// every gap well within the idle timeout, and the whole stream longer than it and than
			// the first-byte timeout, which must stop once the answer begins
			for i := 0; i < 6; i++ {
				writeLines(w, `{"message":{"content":"."},"done":false}`)
				time.Sleep(300 * time.Millisecond)
			}
			writeLines(w, doneLine)
		}, WithIdleTimeout(time.Second), WithFirstByteTimeout(time.Second))
		if _, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil); err != nil {
			t.Fatal(err)
		}
	})
}

func TestChatResetMidStreamIsIncomplete(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		line := `{"message":{"content":"Hel"},"done":false}` + "\n"
		fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(line), line)
		buf.Flush()
		time.Sleep(20 * time.Millisecond)
		conn.(*net.TCPConn).SetLinger(0) // close with RST
		conn.Close()
	})
	res, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
	if !errors.Is(err, vocab.ErrIncompleteStream) || !Retryable(err) {
		t.Fatalf("err = %v, want vocab.ErrIncompleteStream", err)
	}
	if res == nil || res.Message.Content != "Hel" {
		t.Errorf("partial = %+v", res)
	}
}

func TestChatCancellationClosesTheConnection(t *testing.T) {
	serverSawDisconnect := make(chan struct{})
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"message":{"content":"Hel"},"done":false}`)
		if hang(r) {
			close(serverSawDisconnect)
		}
	})
	ctx, cancel := context.WithCancel(testCtx(t))
	_, err := c.Chat(ctx, userTurn("m", "hi"), func(e Event) error {
		cancel()
		return nil
	})
	if !errors.Is(err, context.Canceled) || Retryable(err) || Code(err) != "canceled" {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	within(t, 5*time.Second, serverSawDisconnect, "the server never saw the disconnect")
}

func TestChatCancellationStopsABackoffSleepAtOnce(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "20")
		w.WriteHeader(http.StatusServiceUnavailable)
	}, WithRetry(5, time.Minute))
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, userTurn("m", "hi"), func(e Event) error {
			if e.Kind == EventRetry {
				time.AfterFunc(50*time.Millisecond, cancel)
			}
			return nil
		})
		done <- err
	}()
	if err := within(t, 10*time.Second, done, "Chat kept sleeping after its context was cancelled"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestChatCallbackErrorStopsTheStream(t *testing.T) {
	stop := errors.New("stop")
	serverSawDisconnect := make(chan struct{})
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"message":{"content":"a"},"done":false}`)
		if hang(r) {
			close(serverSawDisconnect)
		}
	})
	_, err := c.Chat(testCtx(t), userTurn("m", "hi"), func(Event) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the callback's", err)
	}
	within(t, 5*time.Second, serverSawDisconnect, "the server never saw the disconnect")
}

func TestChatAcceptsCRLFAndALastLineWithoutNewline(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"message":{"content":"a"},"done":false}`+"\r\n\r\n"+doneLine)
	})
	res, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
	if err != nil || res.Message.Content != "a" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
}

// Ollama v0.9.0–v0.11.6 send the first piece of an answer whose thinking was asked for and
// skipped twice: alone, then again at the start of the next line with content. The client
// takes the repeat out on those versions only, and only in that shape.
func TestChatTakesOutTheFirstPieceAServerRepeatsWhenThinkingWasSkipped(t *testing.T) {
	line := func(thinking, content string) string {
		return fmt.Sprintf(`{"model":"m","message":{"role":"assistant","content":%q,"thinking":%q},"done":false}`, content, thinking)
	}
	last := func(content string) string {
		return fmt.Sprintf(`{"model":"m","message":{"role":"assistant","content":%q},"done":true,"done_reason":"stop"}`, content)
	}
	repeated := []string{line("", "Wrote"), line("", "Wrote where.txt"), line("", "."), last("")}
	for _, tt := range []struct {
		name, version string
		think         Think
		lines         []string
		want          string
	}{
		{"v0.11.4, thinking skipped", "0.11.4", ThinkOn, repeated, "Wrote where.txt."},
		{"v0.9.0, a thinking level", "0.9.0", ThinkHigh, repeated, "Wrote where.txt."},
		{"v0.11.4, a one-piece answer repeated on the last line", "0.11.4", ThinkOn, []string{line("", "Hi."), last("Hi.")}, "Hi."},
		{"v0.11.7 does not repeat: a piece like the first is the model's", "0.11.7", ThinkOn,
			[]string{line("", "1"), line("", "1"), line("", " apples"), last("")}, "11 apples"},
		{"v0.8.0 had no thinking parser", "0.8.0", ThinkOn, []string{line("", "1"), line("", "1"), last("")}, "11"},
		{"an unstamped source build: the shape decides", "0.0.0", ThinkOn, repeated, "Wrote where.txt."},
		{"thinking not asked", "0.11.4", ThinkOff, []string{line("", "1"), line("", "1"), last("")}, "11"},
		{"the answer opened with its thinking", "0.11.4", ThinkOn,
			[]string{line("Plan.", ""), line("", "1"), line("", "1"), last("")}, "11"},
		{"the second piece does not start with the first", "0.11.4", ThinkOn,
			[]string{line("", "Wrote"), line("", " where.txt"), last("")}, "Wrote where.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var versions atomic.Int32
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/version" {
					versions.Add(1)
					fmt.Fprintf(w, `{"version":%q}`, tt.version)
					return
				}
				writeLines(w, tt.lines...)
			})
			req := userTurn("m", "go")
			req.Think = tt.think
			for range 2 { // the version is asked once for both
				var rec recorder
				res, err := c.Chat(testCtx(t), req, rec.fn)
				if err != nil {
					t.Fatal(err)
				}
				if got := rec.text(EventContentDelta); got != tt.want || res.Message.Content != tt.want {
					t.Errorf("content deltas %q, message %q; want %q", got, res.Message.Content, tt.want)
				}
			}
			if n := versions.Load(); n > 1 {
				t.Errorf("the version was asked %d times, want at most once", n)
			}
		})
	}
	if repeatsFirstPiece("0.11.7-rc0") || !repeatsFirstPiece("v0.11.6") || repeatsFirstPiece("0.0.1") || repeatsFirstPiece("junk") {
		t.Error("versions: 0.11.7-rc0 is fixed, v0.11.6 repeats, 0.0.1 and a version that is no number do not")
	}
}

// On a server known not to repeat the first piece, an answer whose thinking was asked for and
// skipped shows its first piece as it comes, not once the second came; the version is asked
// beside the request, so that it is known before the first piece (once a minute at most).
func TestOnAServerThatDoesNotRepeatTheFirstPieceItShowsBeforeTheSecondComes(t *testing.T) {
	var versions atomic.Int32
	versionAsked := make(chan struct{}, 8)
	var mu sync.Mutex
	var askedFirst, shownFirst []bool // per request: version asked before the first piece; first piece shown before the second was sent
	var firstShown chan struct{}
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			versions.Add(1)
			fmt.Fprint(w, `{"version":"0.12.0"}`)
			versionAsked <- struct{}{}
			return
		}
		asked := versions.Load() > 0
		if !asked {
			select {
			case <-versionAsked:
				asked = true
			case <-time.After(5 * time.Second):
			}
		}
		mu.Lock()
		shownNow := firstShown
		mu.Unlock()
		writeLines(w, contentLine("Wrote"))
		shown := false
		select {
		case <-shownNow:
			shown = true
		case <-time.After(5 * time.Second):
		}
		mu.Lock()
		askedFirst, shownFirst = append(askedFirst, asked), append(shownFirst, shown)
		mu.Unlock()
		writeLines(w, contentLine(" where.txt"), doneLine)
	})
	req := userTurn("m", "go")
	req.Think = ThinkOn
	for i := range 2 {
		shown := make(chan struct{})
		mu.Lock()
		firstShown = shown
		mu.Unlock()
		once := sync.Once{}
		var rec recorder
		res, err := c.Chat(testCtx(t), req, func(e Event) error {
			if e.Kind == EventContentDelta {
				once.Do(func() { close(shown) })
			}
			return rec.fn(e)
		})
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.text(EventContentDelta); got != "Wrote where.txt" || res.Message.Content != got {
			t.Errorf("request %d: content deltas %q, message %q; want the answer whole, once", i+1, got, res.Message.Content)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(askedFirst) != 2 || !askedFirst[0] {
		t.Errorf("version asked before the first piece was sent, per request: %v; want it asked beside the first request", askedFirst)
	}
	// the first request's piece may wait versionAhead for the answer; the second knows it
	if len(shownFirst) != 2 || !shownFirst[1] {
		t.Errorf("first piece shown before the second was sent, per request: %v; want it shown at once once the version is known", shownFirst)
	}
	if n := versions.Load(); n != 1 {
		t.Errorf("the version was asked %d times, want once", n)
	}
}

// The same fault on a call written without thinking: the server's tool parser takes the call
// out of the repeated text and leaves the repeat of its first piece as the only text. On those
// versions that text goes; on a fixed server it is the model's and stays. A first piece held
// for the watch is never lost: a stream that breaks after it still gives it.
func TestChatDropsTheRepeatACallLeavesBehindWhenThinkingWasSkipped(t *testing.T) {
	call := `{"model":"m","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"w","arguments":{}}}]},"done":false}`
	for _, tt := range []struct {
		name, version string
		lines         []string
		want          string
		broken        bool
	}{
		{"v0.11.4", "0.11.4", []string{contentLine("<tool_call"), contentLine(""), call, doneLine}, "", false},
		{"v0.11.7: the model's own text", "0.11.7", []string{contentLine("Writing."), call, doneLine}, "Writing.", false},
		{"a stream broken after the first piece", "0.11.4", []string{contentLine("Half")}, "Half", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/api/version" {
					fmt.Fprintf(w, `{"version":%q}`, tt.version)
					return
				}
				writeLines(w, tt.lines...)
			})
			req := userTurn("m", "go")
			req.Think = ThinkOn
			var rec recorder
			res, err := c.Chat(testCtx(t), req, rec.fn)
			if (err != nil) != tt.broken || rec.text(EventContentDelta) != tt.want || res.Message.Content != tt.want {
				t.Fatalf("err %v, deltas %q, message %q; want %q", err, rec.text(EventContentDelta), res.Message.Content, tt.want)
			}
		})
	}
}

// Asking the server's version holds up only the stream that asks: a second stream stopped
// while the first one's question waits on a slow server ends at once, not after it.
func TestAStreamStoppedWhileAnotherAsksTheServerVersionEndsAtOnce(t *testing.T) {
	asked, release := make(chan struct{}, 2), make(chan struct{})
	defer close(release)
	repeated := []string{
		`{"model":"m","message":{"role":"assistant","content":"Wrote"},"done":false}`,
		`{"model":"m","message":{"role":"assistant","content":"Wrote it"},"done":false}`,
	}
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			asked <- struct{}{}
			select { // a server slow to say its version
			case <-release:
			case <-r.Context().Done():
			}
			fmt.Fprint(w, `{"version":"0.11.4"}`)
			return
		}
		writeLines(w, repeated...)
		hang(r)
	})
	req := userTurn("m", "go")
	req.Think = ThinkOn
	go func() { _, _ = c.Chat(testCtx(t), req, nil) }()
	<-asked // the first stream waits for the version
	ctx, stop := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := c.Chat(ctx, req, func(e Event) error {
			if e.Kind == EventContentDelta {
				stop() // the user stops the second stream as its answer arrives
			}
			return nil
		})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the stopped stream ended with %v, want it stopped", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stopped stream waited for the other stream's question to the server")
	}
}

func TestTheStartOfAnAnswerIsReportedOnceBeforeItsDeltas(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"message":{"role":"assistant","content":"a"},"done":false}`,
			`{"message":{"role":"assistant","content":"b"},"done":true,"done_reason":"stop","load_duration":1500000000}`)
	})
	var rec recorder
	res, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
	if err != nil {
		t.Fatal(err)
	}
	if rec.count(EventStarted) != 1 || rec.events[0].Kind != EventStarted || res.Metrics.LoadDuration != 1500*time.Millisecond {
		t.Fatalf("events %+v, load %v", rec.events, res.Metrics.LoadDuration)
	}
}
