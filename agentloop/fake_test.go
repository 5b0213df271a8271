package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// fakeModel answers each request with the turn its function returns, instantly.
type fakeModel struct {
	turn func(req model.Request) model.Turn
	reqs []model.Request
	mu   sync.Mutex
}

func (f *fakeModel) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (f *fakeModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	t := f.turn(req)
	if t.Content != "" {
		if err := fn(model.Delta{Content: t.Content}); err != nil {
			return t, err
		}
	}
	return t, ctx.Err()
}

// trail is the roles of a request after the system prompt, as the scripts name them.
func trail(req model.Request) string { return roles(req.Messages[1:]) }

func toolTurn(calls ...store.ToolCall) model.Turn {
	return model.Turn{ToolCalls: calls, DoneReason: "stop"}
}

func answer(s string) model.Turn { return model.Turn{Content: s, DoneReason: "stop"} }

func tc(id, name, args string) store.ToolCall {
	return store.ToolCall{ID: id, Name: name, Args: json.RawMessage(args)}
}

// echoCall is a call of the echo tool (see echoTool) with text.
func echoCall(text string) store.ToolCall {
	args, _ := json.Marshal(map[string]string{"text": text})
	return tc("", "echo", string(args))
}

// fakeHarness is an agent on a fake model, a real store and a registry of test tools.
func fakeHarness(t testing.TB, m model.Model, cfg func(*Config), tl ...tools.Tool) (*Agent, *store.DB, *recorder) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg, err := tools.NewRegistry(tl...)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	c := Config{Model: m, Store: db, Emitter: rec, Tools: StaticTools(reg), DefaultModel: "fake", Approve: ApproveAuto}
	if cfg != nil {
		cfg(&c)
	}
	a := NewAgent(c)
	t.Cleanup(func() { a.Shutdown(context.Background()) })
	return a, db, rec
}

func echoTool(mode tools.Mode, onRun func()) tools.Tool {
	return tools.New("echo", "Repeat a text.").Param("text", "string", "The text.", tools.Required).Mode(mode).
		Handle(func(ctx context.Context, c tools.Call, _ tools.ProgressFunc) (tools.Result, error) {
			if onRun != nil {
				onRun()
			}
			return tools.Result{Content: c.Args.String("text")}, nil
		})
}

func runFake(t *testing.T, a *Agent, prompt string) Outcome {
	t.Helper()
	out, err := a.RunOnce(context.Background(), "", prompt, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAnUnknownToolGetsAnErrorNamingTheToolsThatExist(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if trail(req) == "U" {
			return toolTurn(tc("c1", "launch_rockets", `{}`))
		}
		return answer("ok")
	}}
	a, db, _ := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	out := runFake(t, a, "go")
	msgs, _ := db.Messages(out.ChatID)
	if out.StopReason != events.StopCompleted || roles(msgs) != "UATA" {
		t.Fatalf("%q %q", out.StopReason, roles(msgs))
	}
	if got := msgs[2].Content; !strings.Contains(got, `no tool named "launch_rockets"`) || !strings.Contains(got, "echo") {
		t.Fatalf("result %q should name the tools that exist", got)
	}
}

func TestHooksDecideInOrderAndTheFirstNonContinueWins(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if trail(req) == "U" {
			return toolTurn(tc("c1", "echo", `{"text":"a"}`), tc("c2", "echo", `{"text":"b"}`), tc("c3", "echo", `{"text":"c"}`))
		}
		return answer("ok")
	}}
	var asked []string
	hooks := Hooks{
		UserPromptSubmit: []UserPromptSubmitHook{
			func(_ context.Context, p Prompt) PromptDecision {
				if p.Text == "forbidden" {
					return PromptDecision{Action: Block, Reason: "not that"}
				}
				return PromptDecision{Action: Rewrite, Text: strings.ToUpper(p.Text)}
			},
			func(context.Context, Prompt) PromptDecision {
				t.Error("a second hook ran after a decision")
				return PromptDecision{}
			},
		},
		PreToolUse: []PreToolUseHook{
			func(_ context.Context, u ToolUse) ToolUseDecision {
				asked = append(asked, u.CallID)
				switch u.CallID {
				case "c1":
					return ToolUseDecision{Action: Block, Reason: "no a"}
				case "c2":
					return ToolUseDecision{Action: Rewrite, Args: json.RawMessage(`{"text":"B!"}`)}
				}
				return ToolUseDecision{}
			},
		},
		PostToolUse: []PostToolUseHook{
			func(_ context.Context, u ToolUse, o ToolOutcome) OutcomeDecision {
				if u.CallID == "c3" {
					return OutcomeDecision{Action: Rewrite, Outcome: ToolOutcome{OK: true, Output: "replaced"}}
				}
				return OutcomeDecision{}
			},
		},
	}
	a, db, _ := fakeHarness(t, m, func(c *Config) { c.Hooks = hooks }, echoTool(tools.Parallel, nil))

	if _, err := a.RunOnce(context.Background(), "", "forbidden", RunOptions{}); err == nil || !strings.Contains(err.Error(), "not that") {
		t.Fatalf("blocked prompt: err = %v", err)
	}
	out := runFake(t, a, "go")
	msgs, _ := db.Messages(out.ChatID)
	if msgs[0].Content != "GO" {
		t.Fatalf("prompt not rewritten: %q", msgs[0].Content)
	}
	got := []string{msgs[2].Content, msgs[3].Content, msgs[4].Content}
	want := []string{"blocked: no a", "B!", "replaced"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("results %q, want %q", got, want)
	}
	recs, _ := db.ToolCalls(out.ChatID)
	for _, r := range recs {
		if r.ID == "c1" && (r.Approval == nil || r.Approval.By != ByHook) {
			t.Fatalf("blocked call record %+v", r)
		}
		if r.ID == "c3" && r.Output != "replaced" {
			t.Fatalf("audit record %+v does not hold what the model read", r)
		}
	}
}

func TestParallelSafeCallsRunTogetherAndSequentialOnesOneByOne(t *testing.T) {
	for _, tt := range []struct {
		mode        tools.Mode
		wantOverlap bool
	}{{tools.Parallel, true}, {tools.Sequential, false}} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			m := &fakeModel{turn: func(req model.Request) model.Turn {
				if trail(req) == "U" {
					return toolTurn(tc("c1", "echo", `{"text":"1"}`), tc("c2", "echo", `{"text":"2"}`), tc("c3", "echo", `{"text":"3"}`))
				}
				return answer("ok")
			}}
			var running, most, arrived atomic.Int32
			allIn := make(chan struct{})
			onRun := func() {
				n := running.Add(1)
				for {
					old := most.Load()
					if n <= old || most.CompareAndSwap(old, n) {
						break
					}
				}
				if arrived.Add(1) == 3 {
					close(allIn)
				}
				if tt.wantOverlap {
					// parallel calls wait for one another, so they overlap however late a
					// loaded machine starts each; calls run one by one never all come in
					select {
					case <-allIn:
					case <-time.After(10 * time.Second):
					}
				} else {
					time.Sleep(30 * time.Millisecond) // room for a wrongly started second call
				}
				running.Add(-1)
			}
			a, db, _ := fakeHarness(t, m, nil, echoTool(tt.mode, onRun))
			out := runFake(t, a, "go")
			if overlap := most.Load() > 1; overlap != tt.wantOverlap {
				t.Fatalf("at most %d ran at once", most.Load())
			}
			msgs, _ := db.Messages(out.ChatID)
			if msgs[2].Content != "1" || msgs[3].Content != "2" || msgs[4].Content != "3" {
				t.Fatalf("results not in call order: %+v", msgs[2:5])
			}
		})
	}
}

func TestAResultWithTerminateOnEveryCallEndsTheRun(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("", "finish", `{}`)) }}
	finish := tools.New("finish", "End.").Handle(func(context.Context, tools.Call, tools.ProgressFunc) (tools.Result, error) {
		return tools.Result{Content: "finished", Terminate: true}, nil
	})
	a, _, _ := fakeHarness(t, m, nil, finish)
	out := runFake(t, a, "go")
	if out.StopReason != events.StopCompleted || len(m.reqs) != 1 {
		t.Fatalf("%q after %d model calls", out.StopReason, len(m.reqs))
	}
}

func TestOverTheBudgetTheOldestTurnsAreDroppedButNeverHalfAPair(t *testing.T) {
	big := strings.Repeat("x", 4000)
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		switch trail(req) {
		case "U", "UATAU":
			return toolTurn(echoCall(big))
		}
		return answer("ok")
	}}
	a, db, rec := fakeHarness(t, m, func(c *Config) {}, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	out := runFake(t, a, "first")
	if _, err := a.RunOnce(context.Background(), out.ChatID, "second", RunOptions{Summarize: store.SummarizeAlways}); err != nil {
		t.Fatal(err)
	}
	tr := ofType(rec.events(), events.ContextTruncated)
	if len(tr) == 0 || tr[0].NumCtx != 2048 {
		t.Fatalf("context.truncated events %+v", tr)
	}
	for _, req := range m.reqs {
		if req.Messages[0].Content == summaryRequestText {
			continue // the summary of the turns left out (summary_test.go)
		}
		if req.Messages[0].Role != store.RoleSystem || req.NumCtx != 2048 {
			t.Fatalf("request without the system prompt or num_ctx: %+v", req.Messages[0])
		}
		if req.Messages[1].Role == store.RoleTool {
			t.Fatalf("a tool result was sent without its call: %s", trail(req))
		}
		if req.Messages[len(req.Messages)-1].Role == store.RoleUser && req.Messages[len(req.Messages)-1].Content != "first" &&
			req.Messages[len(req.Messages)-1].Content != "second" {
			t.Fatal("the latest user message was dropped")
		}
	}
}

func TestShutdownStopsEveryRunAndMarksItAborted(t *testing.T) {
	block := make(chan struct{})
	m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("", "wait", `{}`)) }}
	a, db, rec := fakeHarness(t, m, nil, waitTool(block))
	var ids []string
	for range 2 {
		id, err := a.Send(context.Background(), "", "go")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	rec.waitFor(t, "both tools running", func(evs []events.Event) bool {
		n := 0
		for _, e := range evs {
			if e.Type == events.ToolCall && e.State == events.ToolStateRunning {
				n++
			}
		}
		return n == 2
	})
	// a bound against a hang, not a speed target: each run still stores its end (fsync'd
	// writes), which a loaded machine under the race detector can take over a second to do
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		runs, _ := db.RunsOf(id)
		if len(runs) != 1 || runs[0].StopReason != events.StopAborted || runs[0].Live {
			t.Fatalf("runs of %s: %+v", id, runs)
		}
		recs, _ := db.ToolCalls(id)
		if len(recs) != 1 || recs[0].Pending {
			t.Fatalf("tool records %+v", recs)
		}
	}
}
