package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"prototyper/model/ollama"
	"prototyper/model/vocab"
)

// sse serves the given raw stream bodies, one per request (the last one repeats), each
// written in the pieces given, flushed after each.
func sse(t *testing.T, bodies ...[]string) (*Client, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1)) - 1
		_, _ = io.Copy(io.Discard, r.Body) // so that the server notices a closed connection
		body := bodies[min(i, len(bodies)-1)]
		if len(body) > 0 && strings.HasPrefix(body[0], "HTTP ") { // "HTTP 503" or "HTTP 503 Retry-After: 1"
			var code int
			fmt.Sscanf(body[0], "HTTP %d", &code)
			if _, after, ok := strings.Cut(body[0], "Retry-After: "); ok {
				w.Header().Set("Retry-After", after)
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			io.WriteString(w, strings.Join(body[1:], ""))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for _, piece := range body {
			if piece == "<stall>" {
				<-r.Context().Done()
				return
			}
			io.WriteString(w, piece)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	base, err := ParseBaseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return New(base, WithRetry(5, 5*time.Second, time.Millisecond, 5*time.Millisecond)), &n
}

func chunk(delta string) string {
	return `data: {"choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
}

const finish = `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"

func collect(t *testing.T, c *Client) (thinking, content []string, res *Result, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err = c.Chat(ctx, &ChatRequest{Model: "m", Messages: []Message{{Role: ollama.RoleUser, Content: "hi"}}}, func(e Event) error {
		switch e.Kind {
		case EventThinkingDelta:
			thinking = append(thinking, e.Text)
		case EventContentDelta:
			content = append(content, e.Text)
		}
		return nil
	})
	return thinking, content, res, err
}

func TestToolCallsAreAssembledFromFragmentsByIndex(t *testing.T) {
	stream := []string{
		chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"write_","arguments":""}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"name":"file","arguments":"{\"pa"}}]}`),
		// the second call starts while the first is unfinished
		chunk(`{"tool_calls":[{"index":1,"id":"call_b","function":{"name":"read_file","arguments":"{\"path\":"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.txt\"}"}}]}`),
		// one event cut in the middle of its line, and a CRLF
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"argu`, `ments":"\"b.txt\"}"}}]}}]}` + "\r\n\r\n",
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}` + "\n\n",
		`data: {"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":7,"total_tokens":19}}` + "\n\n",
		"data: [DONE]\n\n",
	}
	c, _ := sse(t, stream)
	_, _, res, err := collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 2 {
		t.Fatalf("calls = %+v", res.ToolCalls)
	}
	for i, want := range []ToolCall{{ID: "call_a", Name: "write_file", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
		{ID: "call_b", Name: "read_file", Arguments: json.RawMessage(`{"path":"b.txt"}`)}} {
		got := res.ToolCalls[i]
		if got.ID != want.ID || got.Name != want.Name || string(got.Arguments) != string(want.Arguments) {
			t.Errorf("call %d = %s %s %s, want %s %s %s", i, got.ID, got.Name, got.Arguments, want.ID, want.Name, want.Arguments)
		}
	}
	if !res.Done || res.FinishReason != "tool_calls" || res.Usage != (Usage{12, 7}) {
		t.Errorf("result = %+v", res)
	}
}

func TestCallsSentAllAtIndexZeroWithTheirOwnIdsStayApart(t *testing.T) {
	c, _ := sse(t, []string{
		chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"a","arguments":"{}"}}]}`),
		chunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"b","arguments":"{\"x\":1}"}}]}`),
		chunk(`{"tool_calls":[{"id":"","function":{"name":"","arguments":"not json"}}]}`), // no index: the last call
		finish, "data: [DONE]\n\n",
	})
	_, _, res, err := collect(t, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].Name != "a" || res.ToolCalls[1].Name != "b" {
		t.Fatalf("calls = %+v", res.ToolCalls)
	}
	if got := string(res.ToolCalls[1].Arguments); got != `"{\"x\":1}not json"` {
		t.Errorf("arguments that are not JSON = %s, want them as a JSON string", got)
	}
}

func TestThinkingFromEveryPlaceServersPutIt(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream []string
	}{
		{"reasoning_content", []string{chunk(`{"reasoning_content":"Let me"}`), chunk(`{"reasoning_content":" see."}`), chunk(`{"content":"Hi."}`)}},
		{"reasoning", []string{chunk(`{"reasoning":"Let me"}`), chunk(`{"reasoning":" see.","content":""}`), chunk(`{"content":"Hi."}`)}},
		{"think tags cut anywhere", []string{chunk(`{"content":"\n<th"}`), chunk(`{"content":"ink>Let me"}`),
			chunk(`{"content":" see.</thi"}`), chunk(`{"content":"nk>\n\n"}`), chunk(`{"content":"Hi."}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := sse(t, append(tc.stream, finish, "data: [DONE]\n\n"))
			thinking, content, res, err := collect(t, c)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(thinking, "") != "Let me see." || strings.Join(content, "") != "Hi." {
				t.Errorf("thinking %q, content %q", thinking, content)
			}
			if res.Thinking != "Let me see." || res.Content != "Hi." {
				t.Errorf("result = %+v", res)
			}
		})
	}
}

func TestAnErrorMidStreamIsOneSentenceAndKeepsThePartialText(t *testing.T) {
	for name, errLine := range map[string]string{
		"as an SSE event":                    `data: {"error":{"message":"CUDA out of memory","type":"server_error"}}` + "\n\n",
		"as a bare JSON line (Ollama's /v1)": `{"error":{"message":"CUDA out of memory","type":"api_error"}}` + "\n",
	} {
		t.Run(name, func(t *testing.T) {
			c, calls := sse(t, []string{chunk(`{"content":"Half"}`), chunk(`{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{}"}}]}`), errLine})
			_, _, res, err := collect(t, c)
			if !errors.Is(err, vocab.ErrStream) || !strings.Contains(err.Error(), "CUDA out of memory") || !Retryable(err) {
				t.Fatalf("err = %v", err)
			}
			if res == nil || res.Content != "Half" || len(res.ToolCalls) != 0 || res.Done {
				t.Errorf("partial = %+v, want the text and no calls", res)
			}
			if calls.Load() != 1 {
				t.Errorf("%d requests: a stream that began is never retried", calls.Load())
			}
		})
	}
}

func TestAStreamThatEndsBeforeItsEndRunsNothing(t *testing.T) {
	c, _ := sse(t, []string{chunk(`{"content":"Half"}`), chunk(`{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{}"}}]}`)})
	_, _, res, err := collect(t, c)
	if !errors.Is(err, vocab.ErrIncompleteStream) || Code(err) != "incomplete_stream" {
		t.Fatalf("err = %v", err)
	}
	if res.Content != "Half" || len(res.ToolCalls) != 0 {
		t.Errorf("partial = %+v", res)
	}
}

func TestAFinishedStreamWithoutDoneIsComplete(t *testing.T) {
	c, _ := sse(t, []string{chunk(`{"content":"All"}`), chunk(`{"tool_calls":[{"index":0,"id":"x","function":{"name":"f","arguments":"{}"}}]}`),
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`})
	_, _, res, err := collect(t, c)
	if err != nil || !res.Done || len(res.ToolCalls) != 1 {
		t.Fatalf("res %+v, err %v", res, err)
	}
}

func TestRetriesOnlyBeforeTheFirstByte(t *testing.T) {
	c, calls := sse(t, []string{"HTTP 503", `{"error":{"message":"loading"}}`}, []string{chunk(`{"content":"ok"}`), finish})
	var retries int
	res, err := c.Chat(context.Background(), &ChatRequest{Model: "m"}, func(e Event) error {
		if e.Kind == EventRetry {
			retries++
		}
		return nil
	})
	if err != nil || res.Content != "ok" || retries != 1 || calls.Load() != 2 {
		t.Fatalf("res %+v err %v retries %d requests %d", res, err, retries, calls.Load())
	}
}

// TestABusyServerIsRetriedAsTheNativeClientRetriesIt: the retrying of the native client's
// TestChatRetriesBeforeTheFirstByte (both go through httpstream.Do): a 429 or 503 is tried
// again after the wait its Retry-After asks for, at most the attempts allowed, and a wait
// beyond the bound ends the retrying at once.
func TestABusyServerIsRetriedAsTheNativeClientRetriesIt(t *testing.T) {
	busy := `{"error":{"message":"server busy, please try again"}}`
	ok := []string{chunk(`{"content":"ok"}`), finish}
	for _, tc := range []struct {
		name              string
		bodies            [][]string
		requests, retries int
		delay             time.Duration // the first retry's wait; 0: not checked
		err               error
	}{
		{"503 with Retry-After waits as long as the server asks", [][]string{{"HTTP 503 Retry-After: 1", busy}, ok}, 2, 1, time.Second, nil},
		{"429 with Retry-After too", [][]string{{"HTTP 429 Retry-After: 1", busy}, ok}, 2, 1, time.Second, nil},
		{"a server that stays busy is vocab.ErrBusy after the attempts", [][]string{{"HTTP 503", busy}}, 3, 2, 0, vocab.ErrBusy},
		{"a Retry-After beyond the bound ends the retrying", [][]string{{"HTTP 503 Retry-After: 3600", busy}}, 1, 0, 0, vocab.ErrBusy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, calls := sse(t, tc.bodies...)
			c = c.With(WithRetry(3, 5*time.Second, time.Millisecond, 5*time.Millisecond))
			var retries []Event
			start := time.Now()
			_, err := c.Chat(context.Background(), &ChatRequest{Model: "m"}, func(e Event) error {
				if e.Kind == EventRetry {
					retries = append(retries, e)
				}
				return nil
			})
			took := time.Since(start)
			if !errors.Is(err, tc.err) || (err == nil) != (tc.err == nil) || int(calls.Load()) != tc.requests || len(retries) != tc.retries {
				t.Fatalf("err %v after %d requests and %d retries; want %v after %d and %d", err, calls.Load(), len(retries), tc.err, tc.requests, tc.retries)
			}
			if err != nil && (!Retryable(err) || Code(err) != vocab.CodeBusy || !strings.Contains(err.Error(), "wait a moment and try again")) {
				t.Errorf("err %v: want a retryable %s that says what to do", err, vocab.CodeBusy)
			}
			if tc.delay > 0 && (retries[0].Delay != tc.delay || retries[0].Attempt != 2 || !strings.Contains(retries[0].Reason, "HTTP") || took < tc.delay) {
				t.Errorf("retry %+v after %s; want attempt 2 after the %s the server asked for", retries[0], took, tc.delay)
			}
			if tc.delay == 0 && took > 2*time.Second {
				t.Errorf("took %s: waited for a Retry-After beyond the bound", took)
			}
		})
	}
}

func TestHTTPErrorsSayWhatToDo(t *testing.T) {
	for _, tc := range []struct {
		name   string
		body   []string
		opts   []Option
		target error
		code   string
		says   string
	}{
		{"no key", []string{"HTTP 401", `{"error":{"message":"missing bearer token"}}`}, nil, vocab.ErrUnauthorized, "unauthorized", "--api-key-env"},
		{"a proxy's page", []string{"HTTP 401", `<html><body>401 Authorization Required</body></html>`}, nil, vocab.ErrUnauthorized, "unauthorized", "wants an API key (HTTP 401: Unauthorized)"},
		{"refused key", []string{"HTTP 401", `{"error":"bad token"}`}, []Option{WithAPIKey("s3cret", "MY_KEY")}, vocab.ErrUnauthorized, "unauthorized", "$MY_KEY"},
		{"missing model", []string{"HTTP 404", `{"error":{"message":"model \"m\" not found, try pulling it first"}}`}, nil, vocab.ErrModelNotFound, "model_not_found", `does not serve model "m"`},
		{"not the API", []string{"HTTP 404", `404 page not found`}, nil, ErrNotOpenAI, "not_openai", "--base-url"},
		{"capability", []string{"HTTP 400", `{"error":{"message":"m does not support tools"}}`}, nil, vocab.ErrCapability, "capability_missing", "does not support tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, calls := sse(t, tc.body)
			c = c.With(tc.opts...)
			_, _, _, err := collect(t, c)
			if !errors.Is(err, tc.target) || Code(err) != tc.code || Retryable(err) || calls.Load() != 1 {
				t.Fatalf("err = %v (code %s, %d requests)", err, Code(err), calls.Load())
			}
			if !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "s3cret") {
				t.Errorf("message %q does not say %q (or shows the key)", err, tc.says)
			}
		})
	}
}

func TestTimeouts(t *testing.T) {
	c, _ := sse(t, []string{"<stall>"})
	_, _, _, err := collect(t, c.With(WithTimeouts(50*time.Millisecond, time.Minute), WithRetry(1, 0, time.Millisecond, time.Millisecond)))
	if !errors.Is(err, vocab.ErrFirstByteTimeout) || !strings.Contains(err.Error(), "--first-byte-timeout") {
		t.Errorf("silent server: %v", err)
	}
	c, _ = sse(t, []string{chunk(`{"content":"a"}`), ": keep-alive\n\n", "<stall>"})
	_, content, _, err := collect(t, c.With(WithTimeouts(time.Minute, 50*time.Millisecond)))
	if !errors.Is(err, vocab.ErrIdleTimeout) || strings.Join(content, "") != "a" {
		t.Errorf("stalled stream: %v (content %q)", err, content)
	}
}

func TestUnreachableServer(t *testing.T) {
	base, _ := ParseBaseURL("http://127.0.0.1:1")
	_, _, _, err := collect(t, New(base, WithRetry(2, time.Second, time.Millisecond, time.Millisecond)))
	if !errors.Is(err, ErrUnreachable) || Code(err) != "not_running" || !strings.Contains(err.Error(), "http://127.0.0.1:1/v1") {
		t.Errorf("err = %v", err)
	}
}

func TestParseBaseURL(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:8000":   "http://127.0.0.1:8000/v1",
		"https://gpu.example/v1/": "https://gpu.example/v1",
		" http://h:1234/api/v1 ":  "http://h:1234/api/v1",
		"localhost:8000":          "",
		"ftp://h/v1":              "",
	} {
		u, err := ParseBaseURL(in)
		switch {
		case want == "" && err == nil:
			t.Errorf("%q: accepted as %s", in, u)
		case want != "" && (err != nil || u.String() != want):
			t.Errorf("%q: %v, %v; want %s", in, u, err, want)
		}
	}
}

func TestRequestCarriesToolsUsageAndTheKey(t *testing.T) {
	var got map[string]any
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		_ = json.NewDecoder(r.Body).Decode(&got)
		io.WriteString(w, chunk(`{"content":"ok"}`)+finish+"data: [DONE]\n\n")
	}))
	defer srv.Close()
	base, _ := ParseBaseURL(srv.URL)
	_, err := New(base, WithAPIKey("k", "K")).Chat(context.Background(), &ChatRequest{Model: "m",
		Messages: []Message{{Role: ollama.RoleUser, Content: "hi", Images: [][]byte{[]byte("\x89PNG\r\n\x1a\n")}},
			{Role: ollama.RoleAssistant, ToolCalls: []ToolCall{{ID: "c", Name: "f", Arguments: json.RawMessage(`{"a":1}`)}}},
			{Role: ollama.RoleTool, ToolCallID: "c", Content: "done"}},
		Tools: []Tool{{Name: "f", Parameters: json.RawMessage(`{"type":"object"}`)}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(got)
	for _, want := range []string{`"include_usage":true`, `"stream":true`, `"tool_call_id":"c"`, `"arguments":"{\"a\":1}"`,
		`"url":"data:image/png;base64,`, `"parameters":{"type":"object"}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("request lacks %s: %s", want, raw)
		}
	}
	if auth != "Bearer k" {
		t.Errorf("Authorization = %q", auth)
	}
}

func TestAServerThatDoesNotStreamStillAnswers(t *testing.T) {
	c, _ := sse(t, []string{`{"choices":[{"index":0,"message":{"role":"assistant","content":"<think>Hm.</think>All at once.",` +
		`"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],` +
		`"usage":{"prompt_tokens":3,"completion_tokens":4}}` + "\n"})
	_, _, res, err := collect(t, c)
	if err != nil || res.Content != "All at once." || res.Thinking != "Hm." || len(res.ToolCalls) != 1 || res.Usage.CompletionTokens != 4 {
		t.Fatalf("res %+v, err %v", res, err)
	}
}
