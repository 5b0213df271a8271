package ollama_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/model/ollama"
	"prototyper/model/vocab"
)

// The models of the real-server tests: "scripted" thinks and calls write_file, then answers
// after the tool's result; "plain" has neither tools nor thinking and always says hello.
var (
	scripted = ollamatest.Model{Name: "scripted", Scripts: ollamatest.WriteHello(), Parameters: map[string]any{"num_ctx": 2048}}
	plain    = ollamatest.Model{Name: "plain", NoTools: true, NoThinking: true, Scripts: ollamatest.Scripts{
		"*": {"Hello", " there", "."},
	}}
	// skipper can think, but answers without thinking
	skipper = ollamatest.Model{Name: "skipper", Scripts: ollamatest.Scripts{"*": {"Hello", " there", "."}}}
	// caller can think, but calls write_file without thinking, at its first and second turn:
	// the second call's tag, a piece used before, is emitted in two ("<tool_call", ">")
	caller = ollamatest.Model{Name: "caller", Scripts: ollamatest.Scripts{
		"U":     ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello"}),
		"UATAU": ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello"})}}
)

// TestMain starts the real server for the package's tests, except when only benchmarks or
// fuzzing run (-run '^$'), which do not need it.
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() == "^$" {
		os.Exit(m.Run())
	}
	os.Exit(ollamatest.Main(m, scripted, plain, skipper, caller))
}

func realClient(t *testing.T) *ollama.Client { return ollama.New(ollamatest.BaseURL(t)) }

func ctx(t *testing.T) context.Context { return ollamatest.Context(t) }

var writeFile = ollama.FunctionTool("write_file", "Write a file in the workspace.", json.RawMessage(
	`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`))

func TestRealServerStreamsThinkingThenAToolCallThenTheAnswer(t *testing.T) {
	c := realClient(t)
	req := &ollama.ChatRequest{
		Model:    "scripted",
		Messages: []ollama.Message{{Role: ollama.RoleUser, Content: "Write hello.txt"}},
		Tools:    []ollama.Tool{writeFile},
		Think:    ollama.ThinkOn,
		Options:  &ollama.Options{NumCtx: 2048},
	}
	var thinking []string
	var calls []ollama.ToolCall
	res, err := c.Chat(ctx(t), req, func(e ollama.Event) error {
		switch e.Kind {
		case ollama.EventThinkingDelta:
			thinking = append(thinking, e.Text)
		case ollama.EventContentDelta:
			if strings.TrimSpace(e.Text) != "" {
				t.Errorf("unexpected content %q", e.Text)
			}
		case ollama.EventToolCalls:
			calls = e.ToolCalls
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(thinking, ""); got != "I should write the file." {
		t.Errorf("thinking = %q", thinking)
	}
	if len(calls) != 1 || calls[0].Function.Name != "write_file" || calls[0].ID == "" || calls[0].Index != 0 {
		t.Fatalf("tool calls = %+v", calls)
	}
	var args map[string]string
	if err := json.Unmarshal(calls[0].Function.Arguments, &args); err != nil || args["path"] != "hello.txt" || args["content"] != "hello" {
		t.Errorf("arguments = %s", calls[0].Function.Arguments)
	}
	if !res.Done || res.DoneReason != "stop" || len(res.Message.ToolCalls) != 1 || res.Metrics.EvalCount == 0 || res.Metrics.PromptEvalCount == 0 {
		t.Errorf("result = %+v", res)
	}

	// The second turn sends the whole history back, tool call and result included.
	req.Messages = append(req.Messages, res.Message, ollama.Message{Role: ollama.RoleTool, ToolName: "write_file", Content: "wrote 5 bytes"})
	var text strings.Builder
	res2, err := c.Chat(ctx(t), req, func(e ollama.Event) error {
		if e.Kind == ollama.EventContentDelta {
			text.WriteString(e.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(text.String()) != "I wrote hello.txt." || strings.TrimSpace(res2.Message.Content) != "I wrote hello.txt." {
		t.Errorf("answer = %q (result %q)", text.String(), res2.Message.Content)
	}
	if res2.Message.Thinking != "Done." || len(res2.Message.ToolCalls) != 0 {
		t.Errorf("second message = %+v", res2.Message)
	}
	if res2.Metrics.TokensPerSec() <= 0 {
		t.Errorf("metrics = %+v", res2.Metrics)
	}
}

func TestRealServerPlainTextAnswer(t *testing.T) {
	c := realClient(t)
	res, err := c.Chat(ctx(t), &ollama.ChatRequest{Model: "plain", Messages: []ollama.Message{{Role: ollama.RoleUser, Content: "hi"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message.Content != "Hello there." || res.DoneReason != "stop" {
		t.Errorf("result = %+v", res)
	}
}

func TestRealServerListShowVersion(t *testing.T) {
	c := realClient(t)
	models, err := c.List(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"scripted:latest", "plain:latest"} {
		if !slices.ContainsFunc(models, func(m ollama.ModelSummary) bool { return m.Name == want }) {
			t.Errorf("%s is not among %+v", want, models)
		}
	}
	info, err := c.Show(ctx(t), "scripted")
	if err != nil {
		t.Fatal(err)
	}
	if !info.Has("tools") || !info.Has("thinking") || !info.HasTemplate || info.ContextLength != 32768 || info.NumCtx != 2048 || info.Architecture != "llama" {
		t.Errorf("scripted = %+v", info)
	}
	info, err = c.Show(ctx(t), "plain")
	if err != nil || info.Has("tools") || info.Has("thinking") {
		t.Errorf("plain = %+v, %v", info, err)
	}
	// The binary built by `make` reports 0.0.0 (no version stamped in), so any version will do.
	if v, err := c.Version(ctx(t)); err != nil || v == "" {
		t.Errorf("version = %q, %v", v, err)
	}
}

func TestRealServerErrors(t *testing.T) {
	c := realClient(t)
	user := []ollama.Message{{Role: ollama.RoleUser, Content: "hi"}}
	for _, tc := range []struct {
		name string
		req  *ollama.ChatRequest
		want error
		says string
	}{
		{"a missing model is not found, with the pull command", &ollama.ChatRequest{Model: "no-such-model", Messages: user}, vocab.ErrModelNotFound, "prototyper pull no-such-model"},
		{"tools on a model without tools is a capability error", &ollama.ChatRequest{Model: "plain", Messages: user, Tools: []ollama.Tool{writeFile}}, vocab.ErrCapability, "does not support tools"},
		{"thinking on a model without thinking is a capability error", &ollama.ChatRequest{Model: "plain", Messages: user, Think: ollama.ThinkOn}, vocab.ErrCapability, "does not support thinking"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var retries int
			_, err := c.Chat(ctx(t), tc.req, func(e ollama.Event) error {
				if e.Kind == ollama.EventRetry {
					retries++
				}
				return nil
			})
			if !errors.Is(err, tc.want) || ollama.Retryable(err) || retries != 0 {
				t.Fatalf("err = %v (%d retries), want %v, not retried", err, retries, tc.want)
			}
			if !strings.Contains(err.Error(), tc.says) {
				t.Errorf("message %q does not say %q", err, tc.says)
			}
		})
	}
	if _, err := c.Show(ctx(t), "no-such-model"); !errors.Is(err, vocab.ErrModelNotFound) {
		t.Errorf("show: err = %v, want vocab.ErrModelNotFound", err)
	}
}

// TestRealServerPullWithoutTheRegistrySaysTheComputerIsOffline pulls the recommended starter
// model from a real server that cannot reach the registry (see ollamatest.NoRegistryProxy):
// the pull fails at once, with a sentence that says why and how to pull it later.
func TestRealServerPullWithoutTheRegistrySaysTheComputerIsOffline(t *testing.T) {
	c := realClient(t)
	name := ollama.RecommendedModel().Name
	pullCtx, cancel := context.WithTimeout(ctx(t), 30*time.Second)
	defer cancel()
	err := c.Pull(pullCtx, name, nil)
	if !errors.Is(err, ollama.ErrRegistryUnreachable) {
		t.Fatalf("Pull = %v; want ErrRegistryUnreachable", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "offline") || !strings.Contains(msg, "`prototyper pull "+name+"`") {
		t.Errorf("error = %q; want it to say the computer is offline and how to pull later", msg)
	}
}

func TestStarterModelsAreSmallAndOneIsRecommended(t *testing.T) {
	models := ollama.StarterModels()
	if len(models) < 2 || len(models) > 5 {
		t.Fatalf("%d starter models; want a short list", len(models))
	}
	recommended := 0
	for _, m := range models {
		if m.Name == "" || m.GoodAt == "" || m.Size <= 0 || m.Size > 6e9 {
			t.Errorf("starter %+v: want a name, what it is good at, and a download under 6 GB", m)
		}
		if m.Recommended {
			recommended++
		}
	}
	if recommended != 1 || !models[0].Recommended || ollama.RecommendedModel() != models[0] {
		t.Errorf("starters %+v: want exactly one recommended, listed first", models)
	}
}

// The real server (v0.11.4) repeats the first piece of an answer whose thinking was asked for
// and skipped (internal/ollamatest's TestQuirkThinkingRequestRepeatsTheFirstPieceOfAReplyWithoutThink):
// the client gives the answer as the model wrote it.
func TestRealServerAnswerWithoutThinkingArrivesOnceWithThinkingOn(t *testing.T) {
	req := &ollama.ChatRequest{Model: "skipper", Messages: []ollama.Message{{Role: ollama.RoleUser, Content: "Hi"}}, Think: ollama.ThinkOn}
	deltas, res := streamedText(t, req)
	if deltas != "Hello there." || res.Message.Content != "Hello there." {
		t.Errorf("content deltas %q, message %q; want \"Hello there.\" once", deltas, res.Message.Content)
	}
}

// streamedText asks req of the real server and returns the text it streamed, and its result.
func streamedText(t *testing.T, req *ollama.ChatRequest) (string, *ollama.Result) {
	t.Helper()
	var deltas strings.Builder
	res, err := realClient(t).Chat(ctx(t), req, func(e ollama.Event) error {
		if e.Kind == ollama.EventContentDelta {
			deltas.WriteString(e.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return deltas.String(), res
}

// The same repeat, of a call written without thinking: the server's tool parser takes the call
// out of the repeated text but leaves the repeat of its first piece ("<tool_ca") as the
// answer's text. The client gives the call alone, as the model wrote it.
func TestRealServerCallWithoutThinkingArrivesWithoutTextWithThinkingOn(t *testing.T) {
	req := &ollama.ChatRequest{Model: "caller", Messages: []ollama.Message{{Role: ollama.RoleUser, Content: "Hi"},
		{Role: ollama.RoleAssistant, ToolCalls: []ollama.ToolCall{{ID: "c1", Function: ollama.ToolCallFunction{Name: "write_file", Arguments: json.RawMessage(`{"path":"a","content":"b"}`)}}}},
		{Role: ollama.RoleTool, ToolName: "write_file", Content: "wrote"},
		{Role: ollama.RoleAssistant, Content: "Wrote it."},
		{Role: ollama.RoleUser, Content: "Again"}},
		Think: ollama.ThinkOn, Tools: []ollama.Tool{writeFile}}
	deltas, res := streamedText(t, req)
	if strings.TrimSpace(deltas) != "" || strings.TrimSpace(res.Message.Content) != "" || len(res.Message.ToolCalls) != 1 {
		t.Errorf("content deltas %q, message %q, %d calls; want the call alone", deltas, res.Message.Content, len(res.Message.ToolCalls))
	}
}
