package agentloop

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// stubbornTool ignores cancellation until released, like a tool stuck in a system call.
func stubbornTool(started chan<- struct{}, release <-chan struct{}) tools.Tool {
	return tools.New("stubborn", "Waits until released.").Mode(tools.Sequential).
		Handle(func(ctx context.Context, c tools.Call, _ tools.ProgressFunc) (tools.Result, error) {
			started <- struct{}{}
			<-release
			return tools.Result{Content: "done"}, nil
		})
}

func userContents(msgs []store.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == store.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// sendAfterStop sends "go" to a new chat, which the model answers with a call of a tool that
// ignores the stop; it stops the run while the call holds it, sends with send (the run is still
// winding down, so the message is queued), lets the call return, and waits for the follow-up
// run that message starts. The model answers every later request with reply(its last message).
// It returns the store and the chat.
func sendAfterStop(t *testing.T, reply func(last store.Message) ModelTurn, send func(a *Agent, chatID string) error, extra ...tools.Tool) (*store.DB, string) {
	t.Helper()
	started, release := make(chan struct{}, 1), make(chan struct{})
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
		last := req.Messages[len(req.Messages)-1]
		if last.Role == store.RoleUser && last.Content == "go" {
			return toolTurn(tc("", "stubborn", `{}`))
		}
		return reply(last)
	}}
	a, db, rec := fakeHarness(t, m, nil, append(extra, stubbornTool(started, release))...)
	id, err := a.Send(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	<-started
	if err := a.Stop(id); err != nil {
		t.Fatal(err)
	}
	if err := send(a, id); err != nil {
		t.Fatal(err)
	}
	close(release)
	rec.waitFor(t, "the follow-up run finished", finished(2))
	return db, id
}

func TestAMessageSentAfterStopWhileTheRunWindsDownStartsAFollowUp(t *testing.T) {
	db, id := sendAfterStop(t, func(last store.Message) ModelTurn { return answer("ok:" + last.Content) },
		func(a *Agent, id string) error { _, err := a.Send(context.Background(), id, "after stop"); return err })
	msgs, err := db.Messages(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := userContents(msgs); !slices.Equal(got, []string{"go", "after stop"}) {
		t.Fatalf("user messages %q: the message sent after Stop must be answered, not left waiting", got)
	}
	if last := msgs[len(msgs)-1]; last.Content != "ok:after stop" {
		t.Errorf("last message %q, want the answer to the message sent after Stop", last.Content)
	}
}

func TestDecideRightAfterTheApprovalRequestResumesTheRun(t *testing.T) {
	for i := range 5 {
		m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
			if req.Messages[len(req.Messages)-1].Role == store.RoleUser {
				return toolTurn(tc("c1", "echo", `{"text":"a"}`))
			}
			return answer("done")
		}}
		a, _, rec := fakeHarness(t, m, func(c *Config) { c.Approve = ApproveAsk }, echoTool(tools.Sequential, nil))
		decided := make(chan error, 1)
		rec.react = func(e events.Event) {
			if e.Type == events.ToolApprovalRequest { // before the run has recorded its pause
				go func() { decided <- a.Decide("c1", DecisionAllow, "") }()
			}
		}
		if _, err := a.Send(context.Background(), "", "go"); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-decided:
			if err != nil {
				t.Fatalf("try %d: Decide right after the request: %v", i, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("try %d: Decide did not return", i)
		}
		rec.waitFor(t, "the resumed run finished", finished(2))
	}
}

func TestStopOnAPausedChatNeverLetsASendSlipBetweenCallsAndResults(t *testing.T) {
	for i := range 10 {
		m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
			last := req.Messages[len(req.Messages)-1]
			if last.Role == store.RoleUser && last.Content == "go" {
				return toolTurn(tc("c1", "echo", `{"text":"a"}`), tc("c2", "echo", `{"text":"b"}`))
			}
			time.Sleep(30 * time.Millisecond)
			return answer("done")
		}}
		a, db, rec := fakeHarness(t, m, func(c *Config) { c.Approve = ApproveAsk }, echoTool(tools.Sequential, nil))
		id, _ := a.Send(context.Background(), "", "go")
		rec.waitFor(t, "paused", finished(1))
		for a.Phase(id) != events.PhaseAwaitingApproval {
			time.Sleep(time.Millisecond)
		}
		stopped := make(chan error, 1)
		go func() { stopped <- a.Stop(id) }()
		time.Sleep(500 * time.Microsecond)
		if _, err := a.Send(context.Background(), id, "new"); err != nil && !errors.Is(err, ErrChatBusy) {
			t.Fatal(err)
		}
		if err := <-stopped; err != nil {
			t.Fatal(err)
		}
		phase, live := a.Phase(id), a.LiveRun(id)
		if live != "" && !phase.Busy() {
			t.Errorf("try %d: phase %s while run %s is live", i, phase, live)
		}
		evs := rec.waitFor(t, "the new run finished", finished(2))
		msgs, _ := db.Messages(id)
		// the Send may also come first: its run starts, and the Stop then stops that run
		want := "UATTUA"
		if fin := ofType(evs, events.RunFinished); fin[len(fin)-1].StopReason == events.StopAborted {
			want = "UATTU"
		}
		if got := roles(msgs); got != want {
			t.Fatalf("try %d: stored roles %s, want the calls' results right after their calls (%s)", i, got, want)
		}
	}
}

// slowStore holds every run start of one chat until released, like a disk slow to fsync.
type slowStore struct {
	*store.DB
	chatID  string
	entered chan struct{}
	release chan struct{}
}

func (s *slowStore) StartRun(r store.Run) (store.Run, error) {
	if r.ChatID == s.chatID {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.DB.StartRun(r)
}

func TestASlowStoreWriteOfOneChatNeverHoldsUpAnotherChat(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
		if last := req.Messages[len(req.Messages)-1]; last.Role == store.RoleUser && last.Content == "go" {
			return toolTurn(tc("", "stubborn", `{}`))
		}
		return answer("ok")
	}}
	slow := &slowStore{entered: make(chan struct{}, 1), release: make(chan struct{})}
	a, db, rec := fakeHarness(t, m, func(c *Config) {
		slow.DB = c.Store.(*store.DB)
		c.Store = slow
	}, stubbornTool(started, release))
	other, err := db.CreateChat(store.Chat{Title: "slow disk"})
	if err != nil {
		t.Fatal(err)
	}
	slow.chatID = other.ID

	busy, err := a.Send(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	<-started
	sent := make(chan error, 1)
	go func() { _, err := a.Send(context.Background(), other.ID, "hi"); sent <- err }()
	<-slow.entered // the other chat's run start now waits for its write

	within := func(what string, f func()) {
		t.Helper()
		done := make(chan struct{})
		go func() { f(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s waited for another chat's store write", what)
		}
	}
	within("Phase", func() {
		if p := a.Phase(busy); p != events.PhaseTools {
			t.Errorf("phase %s, want tools", p)
		}
	})
	within("Stop", func() {
		if err := a.Stop(busy); err != nil {
			t.Error(err)
		}
	})
	within("the stopped run's events", func() { rec.waitFor(t, "the stopped run finished", finished(1)) })

	close(slow.release)
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the other chat's run finished", finished(2))
}
