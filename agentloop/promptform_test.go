package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/store"
	"prototyper/tools"
)

// sentRequest is what a test reads of a request to /api/chat.
type sentRequest struct {
	Messages []struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	} `json:"messages"`
	Tools json.RawMessage `json:"tools"`
}

// toolNames are the names of the tools a request offered.
func (r sentRequest) toolNames() []string {
	var ts []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	_ = json.Unmarshal(r.Tools, &ts)
	var names []string
	for _, t := range ts {
		names = append(names, t.Function.Name)
	}
	return names
}

// recordedHarness is a harness whose requests to the real server pass through a recorder.
func recordedHarness(t *testing.T, o harnessOptions) (*harness, func() []sentRequest) {
	t.Helper()
	front, requests := ollamatest.RecordChats[sentRequest](t)
	base, err := ollama.ResolveHost(front)
	if err != nil {
		t.Fatal(err)
	}
	o.cfg = func(c *Config) { c.Model = model.NewOllama(ollama.New(base)) }
	h := newHarness(t, o)
	return h, requests
}

func setContextCap(t *testing.T, db *store.DB, tokens int) {
	t.Helper()
	if _, err := db.UpdateSettings(func(s *store.Settings) error { s.ContextCap = tokens; return nil }); err != nil {
		t.Fatal(err)
	}
}

// TestASmallContextCarriesTheCompactPromptTheSameOnEveryTurn: with a context of 8192 tokens
// every request of a chat carries the compact system prompt and the compact tools'
// definitions, byte for byte the same from turn to turn and from run to run; with 16000 the
// full ones.
func TestASmallContextCarriesTheCompactPromptTheSameOnEveryTurn(t *testing.T) {
	for _, c := range []struct {
		numCtx  int
		system  string
		compact bool
	}{{8192, CompactSystemPrompt, true}, {16000, DefaultSystemPrompt, false}} {
		h, requests := recordedHarness(t, harnessOptions{model: "scripted"})
		setContextCap(t, h.db, c.numCtx)
		first := h.runCompleted(t, "Write hello.txt")
		if _, err := h.agent.RunOnce(context.Background(), first.ChatID, "Thanks", RunOptions{Think: "on"}); err != nil {
			t.Fatal(err)
		}
		reqs := requests()
		if len(reqs) != 3 {
			t.Fatalf("context %d: %d requests, want a call's turn and the answer's, then the next run's", c.numCtx, len(reqs))
		}
		want, _ := json.Marshal(wireTools(formDefinitions(tools.WorkspaceDefinitions()[:7], nil, c.compact)))
		for i, r := range reqs {
			if r.Messages[0].Role != "system" || r.Messages[0].Content != c.system {
				t.Errorf("context %d, request %d: system prompt %+v, want %q", c.numCtx, i, r.Messages[0], c.system)
			}
			if !bytes.Equal(r.Tools, reqs[0].Tools) {
				t.Errorf("context %d: request %d's tools differ from the first's:\n%s\n%s", c.numCtx, i, r.Tools, reqs[0].Tools)
			}
		}
		if !jsonEqual(t, reqs[0].Tools, want) {
			t.Errorf("context %d: tools sent\n%s\nwant\n%s", c.numCtx, reqs[0].Tools, want)
		}
	}
}

// wireTools are defs as the Ollama API carries them.
func wireTools(defs []tools.Definition) []any {
	var out []any
	for _, d := range defs {
		out = append(out, map[string]any{"type": "function", "function": map[string]any{
			"name": d.Name, "description": d.Description, "parameters": d.Schema}})
	}
	return out
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xs, _ := json.Marshal(x)
	ys, _ := json.Marshal(y)
	return bytes.Equal(xs, ys)
}

// TestAnMCPServersToolsAreOfferedOnceTheChatNamesTheServer: in a small context, the tools of
// an MCP server are not offered to a chat that never named the server; once the user names
// it, they are, on that turn and the next, and another server's tools still are not. A larger
// context is offered every server's tools from the first turn.
func TestAnMCPServersToolsAreOfferedOnceTheChatNamesTheServer(t *testing.T) {
	serverTool := func(name string) tools.Tool {
		return tools.New(name, "A tool of a server.").Handle(func(context.Context, tools.Call, tools.ProgressFunc) (tools.Result, error) {
			return tools.Result{Content: "ok"}, nil
		})
	}
	servers := []tools.Tool{serverTool("mcp__notes__add"), serverTool("mcp__weather-eu__now")}
	large, largeRequests := recordedHarness(t, harnessOptions{model: "tooled", extra: servers})
	setContextCap(t, large.db, 16000)
	large.runCompleted(t, "Tell me about the weather in general")
	if reqs := largeRequests(); len(reqs) != 1 || !slices.Contains(reqs[0].toolNames(), "mcp__notes__add") ||
		!slices.Contains(reqs[0].toolNames(), "mcp__weather-eu__now") {
		t.Errorf("a context of 16000 was offered %v, want every server's tools", reqs[0].toolNames())
	}

	h, requests := recordedHarness(t, harnessOptions{model: "tooled", extra: servers})
	setContextCap(t, h.db, compactAtMost)
	first := h.runCompleted(t, "Tell me about the weather in general")
	for _, prompt := range []string{"Add this to my notes", "And once more"} {
		if _, err := h.agent.RunOnce(context.Background(), first.ChatID, prompt, RunOptions{Think: "on"}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	for i, want := range []string{"", "mcp__notes__add", "mcp__notes__add"} {
		var got []string
		for _, n := range reqs[i].toolNames() {
			if strings.HasPrefix(n, tools.ServerToolPrefix) {
				got = append(got, n)
			}
		}
		if strings.Join(got, ",") != want {
			t.Errorf("request %d offered the servers' tools %v, want %q", i, got, want)
		}
		if len(reqs[i].toolNames()) < 7 {
			t.Errorf("request %d offered %v, want the workspace tools too", i, reqs[i].toolNames())
		}
	}
}

// TestAServerWhoseToolTheChatCalledStaysOffered: a server is used by a chat that called one
// of its tools, named by the user or not, and by one whose user named it or one of its tools
// (letter case aside); a name inside a longer word names nothing, nor does the model's text.
func TestAServerWhoseToolTheChatCalledStaysOffered(t *testing.T) {
	defs := []tools.Definition{{Name: "read_file"}, {Name: "mcp__git__log"}, {Name: "mcp__git__diff"}, {Name: "mcp__db__query"},
		{Name: "mcp__web__get"}, {Name: "mcp__cal__add_event"}, {Name: "mcp__mail__send"}}
	history := []store.Message{
		{Role: store.RoleUser, Content: "Look at the digit of github and the DB, then add_event; the mail-send waits."},
		{Role: store.RoleAssistant, ToolCalls: []store.ToolCall{{ID: "1", Name: "mcp__web__get"}}},
		{Role: store.RoleAssistant, Content: "Shall I use git?"},
	}
	var got []string
	for _, d := range usedServerTools(defs, history) {
		got = append(got, d.Name)
	}
	if strings.Join(got, " ") != "read_file mcp__db__query mcp__web__get mcp__cal__add_event" {
		t.Errorf("offered %v", got)
	}
}

// TestPromptFormSizesOnTheRealServer measures what the system prompt and the tools'
// definitions take of a prompt, in the full form and the compact one: the server's
// prompt_eval_count of a first turn with them, less that of the same turn without them. The
// scripted model's vocabulary is one token a byte (but for the pieces of its scripts), so the
// count is the bytes its template renders; the tokens of a real model are estimated from them
// at the loop's own ratio (about 3.5 bytes a token).
func TestPromptFormSizesOnTheRealServer(t *testing.T) {
	m := model.NewOllama(realClient(t))
	defs := tools.WorkspaceDefinitions()
	count := func(numCtx int, system string, defs []tools.Definition) int {
		t.Helper()
		msgs := []store.Message{{Role: store.RoleUser, Content: "Hi"}}
		if system != "" {
			msgs = append([]store.Message{{Role: store.RoleSystem, Content: system}}, msgs...)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// a context size of its own reloads the model, so that no cache serves a part of it
		turn, err := m.Chat(ctx, model.Request{Model: "tooled", Messages: msgs, Tools: defs, NumCtx: numCtx, Think: "off"},
			func(model.Delta) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		return turn.PromptTokens
	}
	bare := count(8190, "", nil)
	full := count(8191, DefaultSystemPrompt, defs) - bare
	compact := count(8192, CompactSystemPrompt, tools.CompactDefinitions(defs)) - bare
	est := newEstimator()
	t.Logf("system prompt + %d tools' definitions, as the server counts them (bytes): full %d, compact %d (%.0f%%); "+
		"estimated tokens of a real model: full %d, compact %d", len(defs), full, compact,
		100*float64(compact)/float64(full), est.tokens(full, 0), est.tokens(compact, 0))
	if compact <= 0 || compact >= full {
		t.Errorf("compact %d, full %d: want the compact form smaller", compact, full)
	}
}
