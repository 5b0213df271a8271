package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/model/ollama"
	"prototyper/model/openai"
	"prototyper/model/vocab"
)

// The models of the real-server tests, served through Ollama's own OpenAI-compatible
// endpoint (/v1): "pair" thinks and calls two tools in one message (two indexes of one
// stream), then answers once both results are back; "plain" has neither tools nor thinking
// and always says hello.
var (
	pair = ollamatest.Model{Name: "pair", Scripts: ollamatest.Scripts{
		"U": slices.Concat(
			ollamatest.Think("Read one,", " write the other."),
			ollamatest.ToolCall("read_file", map[string]any{"path": "in.txt"}),
			ollamatest.ToolCall("write_file", map[string]any{"path": "out.txt", "content": "copied"}),
		),
		"UATT": slices.Concat(ollamatest.Think("Both done."), []string{"Copied", " in.txt", " to out.txt."}),
	}}
	plain = ollamatest.Model{Name: "plain", NoTools: true, NoThinking: true, Scripts: ollamatest.Scripts{
		"*": {"Hi", " from", " plain."},
	}}
)

func TestMain(m *testing.M) { os.Exit(ollamatest.Main(m, pair, plain)) }

// realClient is a client of the server's OpenAI-compatible API (/v1).
func realClient(t *testing.T) *openai.Client { return openai.New(ollamatest.BaseURL(t).JoinPath("v1")) }

func ctx(t *testing.T) context.Context { return ollamatest.Context(t) }

var fileTools = []openai.Tool{
	{Name: "read_file", Description: "Read a file.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
	{Name: "write_file", Description: "Write a file.", Parameters: json.RawMessage(
		`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`)},
}

func TestRealServerStreamsThinkingThenTwoToolCallsThenTheAnswerOverV1(t *testing.T) {
	c := realClient(t)
	req := &openai.ChatRequest{Model: "pair", Tools: fileTools,
		Messages: []openai.Message{{Role: ollama.RoleUser, Content: "Copy in.txt to out.txt"}}}
	var thinking, content []string
	started := false
	res, err := c.Chat(ctx(t), req, func(e openai.Event) error {
		switch e.Kind {
		case openai.EventStarted:
			started = true
		case openai.EventThinkingDelta:
			thinking = append(thinking, e.Text)
		case openai.EventContentDelta:
			content = append(content, e.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !started || strings.Join(thinking, "") != "Read one, write the other." || strings.TrimSpace(strings.Join(content, "")) != "" {
		t.Errorf("started %v, thinking %q, content %q", started, thinking, content)
	}
	if len(res.ToolCalls) != 2 || res.ToolCalls[0].Name != "read_file" || res.ToolCalls[1].Name != "write_file" ||
		res.ToolCalls[0].ID == "" || res.ToolCalls[0].ID == res.ToolCalls[1].ID {
		t.Fatalf("tool calls = %+v", res.ToolCalls)
	}
	var args map[string]string
	if err := json.Unmarshal(res.ToolCalls[1].Arguments, &args); err != nil || args["path"] != "out.txt" || args["content"] != "copied" {
		t.Errorf("arguments = %s", res.ToolCalls[1].Arguments)
	}
	if !res.Done || res.FinishReason != "tool_calls" || res.Usage.PromptTokens == 0 || res.Usage.CompletionTokens == 0 {
		t.Errorf("result = %+v", res)
	}

	// The second turn sends the history back: the calls, and each result under its id.
	req.Messages = append(req.Messages,
		openai.Message{Role: ollama.RoleAssistant, ToolCalls: res.ToolCalls},
		openai.Message{Role: ollama.RoleTool, ToolCallID: res.ToolCalls[0].ID, Content: "original"},
		openai.Message{Role: ollama.RoleTool, ToolCallID: res.ToolCalls[1].ID, Content: "wrote 6 bytes"})
	res, err = c.Chat(ctx(t), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(res.Content) != "Copied in.txt to out.txt." || res.Thinking != "Both done." || len(res.ToolCalls) != 0 || res.FinishReason != "stop" {
		t.Errorf("answer = %+v", res)
	}
}

func TestRealServerErrorsOverV1(t *testing.T) {
	c := realClient(t)
	user := []openai.Message{{Role: ollama.RoleUser, Content: "hi"}}
	for _, tc := range []struct {
		name string
		req  *openai.ChatRequest
		want error
		says string
	}{
		{"a missing model", &openai.ChatRequest{Model: "no-such-model", Messages: user}, vocab.ErrModelNotFound, `does not serve model "no-such-model"`},
		{"tools on a model without tools", &openai.ChatRequest{Model: "plain", Messages: user, Tools: fileTools}, vocab.ErrCapability, "does not support tools"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var retries int
			_, err := c.Chat(ctx(t), tc.req, func(e openai.Event) error {
				if e.Kind == openai.EventRetry {
					retries++
				}
				return nil
			})
			if !errors.Is(err, tc.want) || openai.Retryable(err) || retries != 0 || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("err = %v (%d retries), want %v saying %q", err, retries, tc.want, tc.says)
			}
		})
	}
}

func TestRealServerListsItsModelsOverV1(t *testing.T) {
	models, err := realClient(t).Models(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pair:latest", "plain:latest"} {
		if !slices.ContainsFunc(models, func(m openai.Model) bool { return m.ID == want }) {
			t.Errorf("%s is not among %+v", want, models)
		}
	}
}
