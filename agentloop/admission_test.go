package agentloop

import (
	"context"
	"fmt"
	"os"
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

// admissionModel answers at once, and notes how often it was asked a model's context length
// and the system prompt of each request.
type admissionModel struct {
	mu      sync.Mutex
	lengths int
	systems []string
}

func (m *admissionModel) ContextLength(context.Context, string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lengths++
	return 32768, nil
}

func (m *admissionModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	m.mu.Lock()
	if len(req.Messages) > 0 && req.Messages[0].Role == store.RoleSystem {
		m.systems = append(m.systems, req.Messages[0].Content)
	}
	m.mu.Unlock()
	t := answer("ok")
	return t, fn(model.Delta{Content: t.Content})
}

func (m *admissionModel) asked() (lengths int, systems []string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.lengths, append([]string(nil), m.systems...)
}

// countedTools is the workspace toolbox factory, counting the toolboxes it opened and closed.
type countedTools struct {
	mu             sync.Mutex
	opened, closed int
}

func (c *countedTools) factory() ToolsFactory {
	open := WorkspaceTools(tools.WorkspaceOptions{})
	return func(dir string) (Toolbox, func() error, error) {
		tb, closeTB, err := open(dir)
		if err != nil {
			return nil, nil, err
		}
		c.mu.Lock()
		c.opened++
		c.mu.Unlock()
		return tb, func() error {
			c.mu.Lock()
			c.closed++
			c.mu.Unlock()
			return closeTB()
		}, nil
	}
}

func (c *countedTools) counts() (opened, closed int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.opened, c.closed
}

// admissionHarness is an agent working in a workspace folder of its own, with m as its model
// and its toolboxes counted.
func admissionHarness(t *testing.T, m model.Model, more func(*Config)) (*Agent, *store.DB, *recorder, *countedTools, string) {
	t.Helper()
	ws := t.TempDir()
	counted := &countedTools{}
	a, db, rec := fakeHarness(t, m, func(c *Config) {
		c.Workspace = ws
		c.Tools = counted.factory()
		if more != nil {
			more(c)
		}
	})
	return a, db, rec, counted, ws
}

func TestASentMessageOpensItsWorkspacesToolboxOnceAndItsRunClosesIt(t *testing.T) {
	for _, path := range []string{"Send", "SendNew", "RunOnce", "EditAndResend"} {
		t.Run(path, func(t *testing.T) {
			a, db, rec, counted, ws := admissionHarness(t, &admissionModel{}, nil)
			ctx := context.Background()
			runs := 1
			switch path {
			case "Send":
				chat, err := db.CreateChat(store.Chat{Workspace: ws})
				if err != nil {
					t.Fatal(err)
				}
				_, err = a.Send(ctx, chat.ID, "hello")
				if err != nil {
					t.Fatal(err)
				}
			case "SendNew":
				if _, err := a.SendNew(ctx, store.Chat{}, "hello"); err != nil {
					t.Fatal(err)
				}
			case "RunOnce":
				if _, err := a.RunOnce(ctx, "", "hello", RunOptions{}); err != nil {
					t.Fatal(err)
				}
			case "EditAndResend":
				out, err := a.RunOnce(ctx, "", "hello", RunOptions{})
				if err != nil {
					t.Fatal(err)
				}
				msgs, err := db.Messages(out.ChatID)
				if err != nil || len(msgs) == 0 {
					t.Fatalf("messages = %v, %v", msgs, err)
				}
				if err := a.EditAndResend(ctx, out.ChatID, msgs[0].ID, "hello again"); err != nil {
					t.Fatal(err)
				}
				runs = 2
			}
			rec.waitFor(t, "the run's end", finished(runs))
			opened, closed := counted.counts()
			if opened != runs || closed != runs {
				t.Errorf("%d messages sent opened %d toolboxes and closed %d, want each message's toolbox opened once, by its admission, and closed once its run ended",
					runs, opened, closed)
			}
		})
	}
}

func TestAMessageRefusedOrQueuedClosesTheToolboxItsAdmissionOpened(t *testing.T) {
	t.Run("refused by a hook", func(t *testing.T) {
		a, _, _, counted, _ := admissionHarness(t, &admissionModel{}, func(c *Config) {
			c.Hooks.UserPromptSubmit = []UserPromptSubmitHook{func(context.Context, Prompt) PromptDecision {
				return PromptDecision{Action: Block, Reason: "not today"}
			}}
		})
		if _, err := a.SendNew(context.Background(), store.Chat{}, "hello"); err == nil {
			t.Fatal("the hook's block was not said")
		}
		if opened, closed := counted.counts(); opened != closed {
			t.Errorf("opened %d toolboxes, closed %d", opened, closed)
		}
	})
	t.Run("queued while the chat is busy", func(t *testing.T) {
		release := make(chan struct{})
		m := &blockingModel{release: release, asked: make(chan struct{}, 4)}
		a, db, rec, counted, ws := admissionHarness(t, m, nil)
		chat, err := db.CreateChat(store.Chat{Workspace: ws})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Send(context.Background(), chat.ID, "first"); err != nil {
			t.Fatal(err)
		}
		<-m.asked
		if _, err := a.Send(context.Background(), chat.ID, "second"); err != nil {
			t.Fatal(err)
		}
		if opened, closed := counted.counts(); opened != 2 || closed != 1 {
			t.Errorf("with the first message's run still asking the model and the second queued: opened %d toolboxes, closed %d; want the queued message's closed at once", opened, closed)
		}
		if err := a.EditQueued(context.Background(), chat.ID, 0, "second, edited"); err != nil {
			t.Fatal(err)
		}
		if opened, closed := counted.counts(); opened != 3 || closed != 2 {
			t.Errorf("after the queued message was edited: opened %d toolboxes, closed %d; want the edit's closed at once", opened, closed)
		}
		close(release)
		rec.waitFor(t, "the run's end", finished(1))
	})
}

// blockingModel answers each request once release is closed; asked says a request came.
type blockingModel struct {
	release chan struct{}
	asked   chan struct{}
}

func (m *blockingModel) ContextLength(context.Context, string) (int, error) { return 32768, nil }

func (m *blockingModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	m.asked <- struct{}{}
	select {
	case <-m.release:
	case <-ctx.Done():
		return model.Turn{}, ctx.Err()
	}
	t := answer("ok")
	return t, fn(model.Delta{Content: t.Content})
}

func TestAMessagesRunAsksTheModelsContextLengthNoSecondTime(t *testing.T) {
	m := &admissionModel{}
	a, db, rec, _, ws := admissionHarness(t, m, nil)
	chat, err := db.CreateChat(store.Chat{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	sendAndFinish(t, a, rec, chat.ID, "hello", 1)
	if lengths, _ := m.asked(); lengths != 1 {
		t.Errorf("one message asked the model's context length %d times, want once (as it was admitted)", lengths)
	}
}

func TestInstructionsEditedBetweenTwoSendsAreTheOnesTheSecondRequestCarries(t *testing.T) {
	m := &admissionModel{}
	a, db, rec, _, ws := admissionHarness(t, m, nil)
	writeFile(t, ws, ProjectInstructionsFile, "Answer in French.")
	chat, err := db.CreateChat(store.Chat{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	sendAndFinish(t, a, rec, chat.ID, "hello", 1)
	writeFile(t, ws, ProjectInstructionsFile, "Answer in German.")
	sendAndFinish(t, a, rec, chat.ID, "hello again", 2)
	if err := os.Remove(filepath.Join(ws, ProjectInstructionsFile)); err != nil {
		t.Fatal(err)
	}
	sendAndFinish(t, a, rec, chat.ID, "and again", 3)
	_, systems := m.asked()
	if len(systems) != 3 {
		t.Fatalf("%d requests with a system prompt, want 3", len(systems))
	}
	for i, want := range []struct{ has, not string }{
		{"Answer in French.", "German"},
		{"Answer in German.", "French"},
		{"", ProjectInstructionsFile},
	} {
		if !strings.Contains(systems[i], want.has) || strings.Contains(systems[i], want.not) {
			t.Errorf("request %d's system prompt = %q, want the instructions as they were when it was sent", i+1, systems[i])
		}
	}
}

// The instructions are read once per message, as it is admitted: the request carries the
// text its budget counted, even when the file changes before the run starts (here a
// UserPromptSubmit hook rewrites it, between the two).
func TestTheInstructionsAMessagesBudgetCountedAreTheOnesItsRequestCarries(t *testing.T) {
	m := &admissionModel{}
	var ws string
	a, _, rec, _, dir := admissionHarness(t, m, func(c *Config) {
		c.Hooks.UserPromptSubmit = []UserPromptSubmitHook{func(context.Context, Prompt) PromptDecision {
			writeFile(t, ws, ProjectInstructionsFile, "Written by the hook: "+strings.Repeat("long ", 1000))
			return PromptDecision{}
		}}
	})
	ws = dir
	writeFile(t, ws, ProjectInstructionsFile, "Answer in French.")
	if _, err := a.SendNew(context.Background(), store.Chat{}, "hello"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the run's end", finished(1))
	_, systems := m.asked()
	if len(systems) != 1 || !strings.Contains(systems[0], "Answer in French.") || strings.Contains(systems[0], "Written by the hook") {
		t.Errorf("system prompts = %q, want the instructions the message's budget counted", systems)
	}
}

// residencyNoter is a model that says it is not loaded (a load is announced) and notes each
// question; first is closed by the first.
type residencyNoter struct {
	admissionModel
	first     chan struct{}
	once      sync.Once
	questions atomic.Int32
}

func (m *residencyNoter) Loaded(context.Context, string) (loaded, known bool) {
	m.questions.Add(1)
	m.once.Do(func() { close(m.first) })
	return false, true
}

func (m *residencyNoter) Preload(context.Context, string, int, time.Duration) (time.Duration, error) {
	return 0, nil
}

// The question whether the model is loaded (which the request waits for, so that a load is
// announced) is asked as the message is admitted, before its UserPromptSubmit hooks run: the
// answer travels while the message is checked and committed, not after.
func TestTheServerIsAskedWhetherTheModelIsLoadedWhileTheMessageIsAdmitted(t *testing.T) {
	m := &residencyNoter{first: make(chan struct{})}
	var mu sync.Mutex
	var askedByHooks []bool // for each hook run: had the question been asked by then
	a, _, rec, _, _ := admissionHarness(t, m, func(c *Config) {
		c.Hooks.UserPromptSubmit = []UserPromptSubmitHook{func(context.Context, Prompt) PromptDecision {
			asked := false
			select {
			case <-time.After(5 * time.Second):
			case <-m.first:
				asked = true
			}
			mu.Lock()
			askedByHooks = append(askedByHooks, asked)
			mu.Unlock()
			return PromptDecision{}
		}}
	})
	if _, err := a.SendNew(context.Background(), store.Chat{}, "hello"); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, "the run's end", finished(1))
	mu.Lock()
	defer mu.Unlock()
	if len(askedByHooks) != 1 || !askedByHooks[0] {
		t.Errorf("hooks run, with the question asked by then: %v; want it asked before the hook ran", askedByHooks)
	}
	if n := m.questions.Load(); n != 1 {
		t.Errorf("the server was asked %d times whether the model is loaded, want once for the run's one request", n)
	}
	if len(ofType(evs, events.ModelLoading)) != 1 {
		t.Errorf("events = %v, want the load announced", typesOf(evs))
	}
}

// sendAndFinish sends text to the chat and waits for the end of its n-th run.
func sendAndFinish(t *testing.T, a *Agent, rec *recorder, chatID, text string, n int) {
	t.Helper()
	if _, err := a.Send(context.Background(), chatID, text); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, fmt.Sprintf("the end of run %d", n), finished(n))
}
