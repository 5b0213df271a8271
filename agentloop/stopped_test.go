package agentloop

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// haltingModel streams the start of an answer and waits for the stop on its first request; it
// answers the later ones at once.
type haltingModel struct {
	mu   sync.Mutex
	reqs []model.Request
}

func (h *haltingModel) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (h *haltingModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	h.mu.Lock()
	h.reqs = append(h.reqs, req)
	first := len(h.reqs) == 1
	h.mu.Unlock()
	if !first {
		_ = fn(model.Delta{Content: "swer."})
		return answer("swer."), nil
	}
	if err := fn(model.Delta{Content: "Half an an"}); err != nil {
		return model.Turn{}, err
	}
	<-ctx.Done()
	return model.Turn{}, ctx.Err()
}

// stoppedByTheUser sends a message to m, a model that halts mid-answer, and stops the run as the
// user's Stop does, once its text streams; it returns the agent, its events and the chat.
func stoppedByTheUser(t *testing.T, m *haltingModel) (*Agent, *recorder, string) {
	t.Helper()
	a, _, rec := fakeHarness(t, m, nil)
	chatID, err := a.Send(context.Background(), "", "write")
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the answer streaming", func(evs []events.Event) bool { return len(ofType(evs, events.TextDelta)) > 0 })
	if err := a.Stop(chatID); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the stopped run's end", finished(1))
	return a, rec, chatID
}

func TestAStoppedAnswerOpensAsStoppedAndContinueGoesOnFromIt(t *testing.T) {
	m := &haltingModel{}
	a, rec, chatID := stoppedByTheUser(t, m)

	o, err := a.Open(chatID)
	if err != nil {
		t.Fatal(err)
	}
	runID := ofType(rec.events(), events.RunStarted)[0].RunID
	if o.Stopped == nil || o.Stopped.RunID != runID || o.Stopped.Interrupted {
		t.Fatalf("opened stopped = %+v, want the run %s stopped by the user", o.Stopped, runID)
	}

	if _, err := a.Send(context.Background(), chatID, "Continue"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the continued run's end", finished(2))
	m.mu.Lock()
	req := m.reqs[len(m.reqs)-1]
	m.mu.Unlock()
	n := len(req.Messages)
	if n < 2 || req.Messages[n-2].Role != store.RoleAssistant || req.Messages[n-2].Content != "Half an an" || req.Messages[n-1].Content != "Continue" {
		t.Fatalf("the continued request ends with %+v: the model must read the stopped answer before Continue", req.Messages[max(0, n-2):])
	}
	if o, err = a.Open(chatID); err != nil || o.Stopped != nil {
		t.Fatalf("opened after the continued run completed: stopped = %+v (%v), want none", o.Stopped, err)
	}
}

func TestARunCutByAKillOpensAsInterruptedAndCanBeContinued(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := db.CreateChat(store.Chat{Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := db.StartRunWith(store.Run{ChatID: c.ID, Model: "fake"}, store.Message{Role: store.RoleUser, Content: "write", Complete: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(c.ID, store.Message{Role: store.RoleAssistant, Content: "Half an an", RunID: run.ID}); err != nil {
		t.Fatal(err)
	}
	db.Close() // the process died: its run stays live in the file

	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	m := &fakeModel{turn: func(model.Request) model.Turn { return answer("swer.") }}
	a := NewAgent(Config{Model: m, Store: db, Emitter: rec, Tools: StaticTools(reg), DefaultModel: "fake", Approve: ApproveAuto})
	t.Cleanup(func() { a.Shutdown(context.Background()) })

	o, err := a.Open(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if o.Stopped == nil || o.Stopped.RunID != run.ID || !o.Stopped.Interrupted {
		t.Fatalf("opened stopped = %+v, want the run %s interrupted", o.Stopped, run.ID)
	}
	if _, err := a.Send(context.Background(), c.ID, "Continue"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the continued run's end", finished(1))
	if st := ofType(rec.events(), events.RunFinished)[0].StopReason; st != events.StopCompleted {
		t.Fatalf("the continued run ended %q", st)
	}
	req := m.reqs[len(m.reqs)-1]
	n := len(req.Messages)
	if req.Messages[n-2].Content != "Half an an" || req.Messages[n-1].Content != "Continue" {
		t.Fatalf("the continued request ends with %+v: the model must read the cut answer before Continue", req.Messages[n-2:])
	}
}

// stopThenToolModel answers the first request, calls a tool on the second and streams the start
// of an answer on the third, until it is stopped.
type stopThenToolModel struct {
	mu sync.Mutex
	n  int
}

func (h *stopThenToolModel) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (h *stopThenToolModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	h.mu.Lock()
	h.n++
	n := h.n
	h.mu.Unlock()
	switch n {
	case 1:
		_ = fn(model.Delta{Content: "done"})
		return answer("done"), nil
	case 2:
		return toolTurn(echoCall("hi")), nil
	}
	if err := fn(model.Delta{Content: "Half"}); err != nil {
		return model.Turn{}, err
	}
	<-ctx.Done()
	return model.Turn{}, ctx.Err()
}

// A version whose answer is whole opens with no offer to continue, though another version (not
// shown) was stopped after a tool call: the call records are of every version.
func TestAVersionShownWithAWholeAnswerOffersNoContinueForAnotherVersionStopped(t *testing.T) {
	a, db, rec := fakeHarness(t, &stopThenToolModel{}, nil, echoTool(tools.Parallel, nil))
	chatID, err := a.Send(context.Background(), "", "write")
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the first run's end", finished(1))
	msgs, _ := db.Messages(chatID)
	if err := a.EditAndResend(context.Background(), chatID, msgs[0].ID, "write again"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the second version's answer streaming", func(evs []events.Event) bool { return len(ofType(evs, events.TextDelta)) > 1 })
	if err := a.Stop(chatID); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the second run's end", finished(2))
	if o, _ := a.Open(chatID); o.Stopped == nil {
		t.Fatal("the stopped version, shown, offers no Continue")
	}
	msgs, _ = db.Messages(chatID)
	if err := a.ShowVersion(chatID, msgs[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if o, _ := a.Open(chatID); o.Stopped != nil {
		t.Fatalf("the first version (a whole answer) shown, stopped = %+v: the hidden version's run", o.Stopped)
	}
}

func TestAnAnswerTheUserStoppedOpensAsStoppedByTheUserOnceALaterRunAnswered(t *testing.T) {
	a, rec, chatID := stoppedByTheUser(t, &haltingModel{})
	if _, err := a.Send(context.Background(), chatID, "Go on"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the later run's end", finished(2))

	o, err := a.Open(chatID)
	if err != nil {
		t.Fatal(err)
	}
	stopped := ofType(rec.events(), events.RunStarted)[0].RunID
	if o.Stopped != nil || len(o.StoppedRuns) != 1 || o.StoppedRuns[0] != (StoppedRun{RunID: stopped}) {
		t.Fatalf("opened: stopped = %+v, stopped runs = %+v; want none last, and the run %s stopped by the user", o.Stopped, o.StoppedRuns, stopped)
	}
}

func TestAnAnswerTheAppQuitOnOpensAsCutShortNotStoppedByTheUser(t *testing.T) {
	m := &haltingModel{}
	a, db, rec := fakeHarness(t, m, nil)
	chatID, err := a.Send(context.Background(), "", "write")
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the answer streaming", func(evs []events.Event) bool { return len(ofType(evs, events.TextDelta)) > 0 })
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	runID := ofType(rec.events(), events.RunStarted)[0].RunID
	if runs, _ := db.RunsOf(chatID); len(runs) != 1 || runs[0].StopReason != events.StopAborted || !runs[0].Quit {
		t.Fatalf("runs %+v: want the one run aborted as the app quit", runs)
	}

	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	again := NewAgent(Config{Model: m, Store: db, Emitter: newRecorder(), Tools: StaticTools(reg), DefaultModel: "fake", Approve: ApproveAuto})
	t.Cleanup(func() { again.Shutdown(context.Background()) })
	o, err := again.Open(chatID)
	if err != nil {
		t.Fatal(err)
	}
	want := StoppedRun{RunID: runID, Interrupted: true}
	if o.Stopped == nil || *o.Stopped != want || len(o.StoppedRuns) != 1 || o.StoppedRuns[0] != want {
		t.Fatalf("opened: stopped = %+v, stopped runs = %+v; want the run %s cut short", o.Stopped, o.StoppedRuns, runID)
	}
}
