package ollama

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestListReturnsModelsSortedByName(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/tags" {
			t.Errorf("request = %s %s", r.Method, r.URL.Path)
		}
		_, _ = io.WriteString(w, `{"models":[
			{"name":"qwen3:0.6b","model":"qwen3:0.6b","size":522653767,"digest":"7df6b6e09427","modified_at":"2025-08-01T10:00:00Z","details":{"family":"qwen3","parameter_size":"751.63M","quantization_level":"Q4_K_M"}},
			{"name":"gemma3:1b","model":"gemma3:1b","size":815319791,"digest":"8648f39daa8f","modified_at":"2025-07-01T10:00:00Z","details":{"family":"gemma3"}}]}`)
	})
	models, err := c.List(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].Name != "gemma3:1b" || models[1].Name != "qwen3:0.6b" {
		t.Fatalf("models = %+v", models)
	}
	q := models[1]
	if q.Size != 522653767 || q.Family != "qwen3" || q.ParameterSize != "751.63M" || q.QuantizationLevel != "Q4_K_M" || q.ModifiedAt.IsZero() {
		t.Errorf("qwen3 = %+v", q)
	}
}

func TestShowReadsCapabilitiesContextLengthAndTemplate(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch req.Model {
		case "qwen3:0.6b":
			_, _ = io.WriteString(w, `{"template":"{{ .Prompt }}","parameters":"num_ctx                        8192\nstop \"<|im_end|>\"",
				"capabilities":["completion","tools","thinking"],
				"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960,"qwen3.embedding_length":1024},
				"details":{"family":"qwen3","parameter_size":"751.63M","quantization_level":"Q4_K_M"}}`)
		case "odd":
			_, _ = io.WriteString(w, `{"capabilities":["completion"],"model_info":{"llama.context_length":2048}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"model '`+req.Model+`' not found"}`)
		}
	})
	info, err := c.Show(testCtx(t), "qwen3:0.6b")
	if err != nil {
		t.Fatal(err)
	}
	if !info.Has("tools") || !info.Has("thinking") || info.Has("vision") {
		t.Errorf("capabilities = %v", info.Capabilities)
	}
	if info.ContextLength != 40960 || info.NumCtx != 8192 || !info.HasTemplate || info.Architecture != "qwen3" || info.Family != "qwen3" {
		t.Errorf("info = %+v", info)
	}
	odd, err := c.Show(testCtx(t), "odd")
	if err != nil || odd.ContextLength != 2048 || odd.HasTemplate {
		t.Errorf("odd = %+v, %v; want the context length of any *.context_length key, no template", odd, err)
	}
	_, err = c.Show(testCtx(t), "nope")
	if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "prototyper pull nope") {
		t.Errorf("err = %v, want ErrModelNotFound suggesting a pull", err)
	}
}

func TestVersion(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"version":"0.11.4"}`)
	})
	if v, err := c.Version(testCtx(t)); err != nil || v != "0.11.4" {
		t.Fatalf("version = %q, %v", v, err)
	}
}

func TestNonStreamingCallsRetryAndReport(t *testing.T) {
	var calls atomic.Int32
	var retries []RetryInfo
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, `{"version":"0.11.4"}`)
	}, WithRetryNotify(func(ri RetryInfo) { retries = append(retries, ri) }))
	if _, err := c.Version(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if len(retries) != 1 || retries[0].Attempt != 2 {
		t.Errorf("retries = %+v", retries)
	}
}

func TestPull(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		want    error
		updates int
	}{
		{"ends with success", []string{
			`{"status":"pulling manifest"}`,
			`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427","total":522653767}`,
			`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427","total":522653767,"completed":1000}`,
			`{"status":"verifying sha256 digest"}`, `{"status":"writing manifest"}`, `{"status":"success"}`,
		}, nil, 6},
		{"an error line is a StreamError", []string{`{"status":"pulling manifest"}`, `{"error":"pull model manifest: file does not exist"}`}, ErrStream, 1},
		{"an unreachable registry says the computer is offline", []string{`{"status":"pulling manifest"}`,
			`{"error":"pull model manifest: Get \"https://registry.ollama.ai/v2/library/qwen3/manifests/0.6b\": dial tcp: lookup registry.ollama.ai: no such host"}`},
			ErrRegistryUnreachable, 1},
		{"a stream without success is incomplete", []string{`{"status":"pulling manifest"}`}, ErrIncompleteStream, 1},
		{"a malformed line is an error", []string{`{"status":`}, ErrMalformedLine, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Model  string
					Stream bool
				}
				_ = json.NewDecoder(r.Body).Decode(&req)
				if r.URL.Path != "/api/pull" || req.Model != "qwen3:0.6b" || !req.Stream {
					t.Errorf("request = %s %+v", r.URL.Path, req)
				}
				writeLines(w, tc.lines...)
			})
			var got []PullProgress
			err := c.Pull(testCtx(t), "qwen3:0.6b", func(p PullProgress) error { got = append(got, p); return nil })
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(got) != tc.updates {
				t.Errorf("%d updates, want %d", len(got), tc.updates)
			}
			if tc.want == nil && (got[2].Completed != 1000 || got[2].Total != 522653767 || got[2].Digest == "") {
				t.Errorf("progress = %+v", got[2])
			}
		})
	}
}

func TestPullIdleTimeout(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"status":"pulling manifest"}`)
		hang(r)
	}, WithPullIdleTimeout(100*time.Millisecond))
	if err := c.Pull(testCtx(t), "m", nil); !errors.Is(err, ErrIdleTimeout) {
		t.Fatalf("err = %v, want ErrIdleTimeout", err)
	}
}

func TestErrorsSayWhatToDoAndClassify(t *testing.T) {
	for _, tc := range []struct {
		err       error
		code      string
		retryable bool
		says      string
	}{
		{&NotRunningError{URL: "http://127.0.0.1:11434"}, "not_running", true, "start it with `ollama serve`"},
		{&StatusError{StatusCode: 404, Model: "qwen3", URL: "u"}, "model_not_found", false, "run `prototyper pull qwen3`"},
		{&StatusError{StatusCode: 400, Message: `"x" does not support tools`}, "capability_missing", false, "pick a model"},
		{&StatusError{StatusCode: 400, Message: "think value \"low\" is not supported for this model"}, "capability_missing", false, "--think off"},
		{&StatusError{StatusCode: 503, URL: "u"}, "busy", true, "try again"},
		{&StatusError{StatusCode: 500, URL: "u", Message: "boom"}, "http_error", true, "boom"},
		{&StatusError{StatusCode: 401, URL: "u"}, "unauthorized", false, "wants a token (HTTP 401)"},
		{&StreamError{Message: "out of memory"}, "stream_error", true, "out of memory"},
		{&IncompleteStreamError{Lines: 3}, "incomplete_stream", true, "nothing from it was run"},
		{&LineTooLongError{Line: 2, Limit: 16 << 20}, "line_too_long", false, "check that the address points at an Ollama server"},
		{&MalformedLineError{Line: 7, Err: errors.New("bad")}, "malformed_line", false, "line 7"},
		{&TimeoutError{FirstByte: true, After: time.Minute}, "first_byte_timeout", true, "slow to load"},
		{&TimeoutError{After: time.Minute}, "idle_timeout", true, "went silent"},
		{networkFailure(errors.New("EOF")), "network", true, "check that the server is up"},
	} {
		if got := Code(tc.err); got != tc.code {
			t.Errorf("Code(%T) = %q, want %q", tc.err, got, tc.code)
		}
		if got := Retryable(tc.err); got != tc.retryable {
			t.Errorf("Retryable(%v) = %v", tc.err, got)
		}
		if msg := tc.err.Error(); !strings.Contains(msg, tc.says) || strings.Contains(msg, "\n") {
			t.Errorf("%T says %q; want one line containing %q", tc.err, msg, tc.says)
		}
	}
}

func TestResolveHost(t *testing.T) {
	for _, tc := range []struct{ flag, env, want string }{
		{"", "", "http://127.0.0.1:11434"},
		{"", "0.0.0.0", "http://0.0.0.0:11434"},
		{"", "example.com:1234", "http://example.com:1234"},
		{"", "http://example.com", "http://example.com:80"},
		{"", "https://example.com", "https://example.com:443"},
		{"", `"localhost:9000"`, "http://localhost:9000"},
		{"", "[::1]", "http://[::1]:11434"},
		{"", "http://host:8080/ollama", "http://host:8080/ollama"},
		{"http://10.0.0.2:5000", "example.com", "http://10.0.0.2:5000"},
		{"10.0.0.2", "", "http://10.0.0.2:11434"},
	} {
		t.Setenv("OLLAMA_HOST", tc.env)
		u, err := ResolveHost(tc.flag)
		if err != nil || u.String() != tc.want {
			t.Errorf("ResolveHost(%q) with OLLAMA_HOST=%q = %v, %v; want %s", tc.flag, tc.env, u, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x", "x:99999"} {
		if _, err := ResolveHost(bad); err == nil {
			t.Errorf("ResolveHost(%q) succeeded", bad)
		}
	}
}
