package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/store"
	"prototyper/tools"
)

// The window's contract: every chat the store can hold opens in the window. This test makes
// chats from each scenario the Go side has — real-server runs that complete, call five tools,
// pause, are approved, denied, answered instead of decided, rejected at argument validation,
// stopped mid-stream, and chats left by a crash — and writes each one exactly as the window
// receives it (App.OpenChat is agent.Open), with the state each tool card must show, into
// PROTOTYPER_CONTRACT_DIR. The frontend's contract test (frontend/src/test/contract.test.tsx)
// then feeds every file through the window's own store and chat view; `make test` runs both.

// badArgsModel calls write_file without its content: argument validation rejects the call.
var badArgsModel = ollamatest.Model{Name: "contract-bad-args", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt"}),
	"SUAT": []string{"The call was refused."},
}}

// contractFixture is one opened chat and the visual state of each of its tool cards.
type contractFixture struct {
	agentloop.OpenedChat
	Expect map[string]string `json:"expect"`
}

// contractEnv is one scenario's store, workspace and agent on the real server.
type contractEnv struct {
	t      *testing.T
	dbPath string
	db     *store.DB
	agent  *agentloop.Agent
	model  model.Model
	ws     string
	emit   func(events.Event)
}

func newContractEnv(t *testing.T, modelName model.Model) *contractEnv {
	t.Helper()
	dir := t.TempDir()
	e := &contractEnv{t: t, dbPath: filepath.Join(dir, "data", "prototyper.db"), ws: filepath.Join(dir, "ws"), model: modelName}
	if err := os.MkdirAll(e.ws, 0o755); err != nil {
		t.Fatal(err)
	}
	e.open()
	return e
}

// open (re)opens the store and an agent on it, as the app does at start.
func (e *contractEnv) open() {
	e.t.Helper()
	db, err := store.Open(e.dbPath, store.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.db = db
	e.agent = agentloop.NewAgent(agentloop.Config{
		Model: e.model,
		Store: db,
		Emitter: agentloop.EmitterFunc(func(ev events.Event) {
			if e.emit != nil {
				e.emit(ev)
			}
		}),
		Tools:     agentloop.WorkspaceTools(tools.WorkspaceOptions{ProtectedFiles: []string{db.Path()}}),
		Workspace: e.ws,
	})
	e.t.Cleanup(func() { e.close() })
}

func (e *contractEnv) close() {
	if e.agent != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = e.agent.Shutdown(ctx)
		cancel()
		e.agent = nil
	}
	if e.db != nil {
		_ = e.db.Close()
		e.db = nil
	}
}

// restart closes and reopens the store and the agent, as quitting and starting the app does.
func (e *contractEnv) restart() {
	e.t.Helper()
	e.close()
	e.open()
}

func (e *contractEnv) run(chatID, prompt string, opts agentloop.RunOptions) agentloop.Outcome {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := e.agent.RunOnce(ctx, chatID, prompt, opts)
	if err != nil {
		e.t.Fatalf("run %q: %v", prompt, err)
	}
	return out
}

// opened is what the window receives for the chat, with every card's expected state.
func (e *contractEnv) opened(chatID string, expect map[string]string) contractFixture {
	e.t.Helper()
	o, err := e.agent.Open(chatID)
	if err != nil {
		e.t.Fatal(err)
	}
	if len(o.ToolCalls) != len(expect) {
		e.t.Fatalf("the chat has %d tool calls, the scenario expects %d: %+v", len(o.ToolCalls), len(expect), o.ToolCalls)
	}
	return contractFixture{OpenedChat: o, Expect: expect}
}

// expectAll names the same state for every call of the chat.
func (e *contractEnv) expectAll(chatID, state string) map[string]string {
	e.t.Helper()
	calls, err := e.db.ToolCalls(chatID)
	if err != nil {
		e.t.Fatal(err)
	}
	m := map[string]string{}
	for _, c := range calls {
		m[c.ID] = state
	}
	return m
}

func TestContractEveryScenarioOfTheStoreOpensInTheWindow(t *testing.T) {
	srv := ollamatest.Get(t)
	base, err := ollama.ResolveHost(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	real := model.NewOllama(ollama.New(base))
	ask := agentloop.RunOptions{Model: writerModel.Name, Approve: agentloop.ApproveAsk}

	scenarios := []struct {
		name  string
		model model.Model
		make  func(e *contractEnv) contractFixture
	}{
		{"completed-write", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", agentloop.RunOptions{Model: writerModel.Name, Think: "on", Approve: agentloop.ApproveAuto})
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "completed"))
		}},
		{"undone-write", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", agentloop.RunOptions{Model: writerModel.Name, Think: "on", Approve: agentloop.ApproveAuto})
			if _, err := e.agent.Undo(context.Background(), out.ChatID, agentloop.UndoOptions{}); err != nil {
				t.Fatal(err)
			}
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "undone"))
		}},
		{"five-calls", real, func(e *contractEnv) contractFixture {
			out := e.run("", "List the workspace five times", agentloop.RunOptions{Model: fiveCallsModel.Name, Approve: agentloop.ApproveAuto})
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "completed"))
		}},
		{"paused-for-approval", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", ask)
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "awaiting_approval"))
		}},
		{"paused-then-restarted", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", ask)
			e.restart()
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "awaiting_approval"))
		}},
		{"approved", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", ask)
			e.run(out.ChatID, "", agentloop.RunOptions{Decide: agentloop.DecisionAllow})
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "completed"))
		}},
		{"denied", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", ask)
			e.run(out.ChatID, "", agentloop.RunOptions{Decide: agentloop.DecisionDeny, Reason: "not now"})
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "denied"))
		}},
		{"answered-instead-of-deciding", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", ask)
			e.run(out.ChatID, "Actually, never mind.", agentloop.RunOptions{Model: writerModel.Name, Approve: agentloop.ApproveAsk})
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "not_run"))
		}},
		{"rejected-arguments", real, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", agentloop.RunOptions{Model: badArgsModel.Name, Approve: agentloop.ApproveAuto})
			return e.opened(out.ChatID, e.expectAll(out.ChatID, "failed"))
		}},
		{"arguments-not-an-object", &nonObjectArgsModel{}, func(e *contractEnv) contractFixture {
			out := e.run("", "Write hello.txt", agentloop.RunOptions{Model: "fake", Approve: agentloop.ApproveAuto})
			// The model sends the same refused call again: the first fails, the repeat is not
			// run (the loop guard answers it with the first one's result).
			want := e.expectAll(out.ChatID, "failed")
			calls, err := e.db.ToolCalls(out.ChatID)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range calls {
				if c.NotRun != "" {
					want[c.ID] = "not_run"
				}
			}
			return e.opened(out.ChatID, want)
		}},
		{"stopped-while-streaming", real, func(e *contractEnv) contractFixture {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var once sync.Once
			e.emit = func(ev events.Event) {
				if ev.Type == events.TextDelta {
					once.Do(cancel)
				}
			}
			out, _ := e.agent.RunOnce(ctx, "", "Write a long answer", agentloop.RunOptions{Model: longAnswerModel.Name, Approve: agentloop.ApproveAuto})
			e.emit = nil
			if out.ChatID == "" {
				t.Fatal("the stopped run left no chat")
			}
			return e.opened(out.ChatID, map[string]string{})
		}},
		{"interrupted-by-a-crash", real, func(e *contractEnv) contractFixture {
			chatID := crashDuringATool(e)
			e.restart()
			return e.opened(chatID, e.expectAll(chatID, "interrupted"))
		}},
	}

	dir := os.Getenv("PROTOTYPER_CONTRACT_DIR")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			e := newContractEnv(t, sc.model)
			f := sc.make(e)
			data, err := json.MarshalIndent(f, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "go-"+sc.name+".json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Logf("opened chats written to %s", dir)
}

// crashDuringATool leaves what `kill -9` leaves while a tool runs: a live run, the assistant's
// call, and its pending record, never finished.
func crashDuringATool(e *contractEnv) string {
	e.t.Helper()
	c, err := e.db.CreateChat(store.Chat{Workspace: e.ws, Model: writerModel.Name, Title: "Crashed"})
	if err != nil {
		e.t.Fatal(err)
	}
	run, err := e.db.StartRun(store.Run{ChatID: c.ID, Model: writerModel.Name})
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := e.db.AppendMessage(c.ID, store.Message{RunID: run.ID, Role: store.RoleUser, Content: "Write hello.txt", Complete: true}); err != nil {
		e.t.Fatal(err)
	}
	call := store.ToolCall{ID: "call_crash", Name: "write_file", Args: json.RawMessage(`{"path":"hello.txt","content":"hi"}`)}
	m, err := e.db.AppendMessage(c.ID, store.Message{RunID: run.ID, Role: store.RoleAssistant, ToolCalls: []store.ToolCall{call}, Complete: true})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.db.PutToolCall(store.ToolCallRecord{ID: call.ID, ChatID: c.ID, RunID: run.ID, MessageID: m.ID,
		Name: call.Name, Args: call.Args, Pending: true, StartedAt: time.Now()}); err != nil {
		e.t.Fatal(err)
	}
	return c.ID
}

// nonObjectArgsModel calls write_file with arguments that are a string, as small local models
// sometimes do, then answers.
type nonObjectArgsModel struct{}

func (nonObjectArgsModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	last := req.Messages[len(req.Messages)-1]
	if last.Role == store.RoleTool {
		return model.Turn{Content: "I will send an object next time.", DoneReason: "stop"}, nil
	}
	return model.Turn{DoneReason: "stop", ToolCalls: []store.ToolCall{
		{ID: "call_text", Name: "write_file", Args: json.RawMessage(`"just text"`)}}}, nil
}

func (nonObjectArgsModel) ContextLength(context.Context, string) (int, error) { return 8192, nil }
