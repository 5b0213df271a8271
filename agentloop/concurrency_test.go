package agentloop

import (
	"context"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
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
func sendAfterStop(t *testing.T, reply func(last store.Message) model.Turn, send func(a *Agent, chatID string) error, extra ...tools.Tool) (*store.DB, string) {
	t.Helper()
	started, release := make(chan struct{}, 1), make(chan struct{})
	m := &fakeModel{turn: func(req model.Request) model.Turn {
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
	db, id := sendAfterStop(t, func(last store.Message) model.Turn { return answer("ok:" + last.Content) },
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
		m := &fakeModel{turn: func(req model.Request) model.Turn {
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

// pausedOnTwoCalls is a chat whose run waits for approval of two calls; its model answers a
// later message with the turn answerNew gives.
func pausedOnTwoCalls(t *testing.T, answerNew func() model.Turn) (*Agent, *store.DB, *recorder, string) {
	t.Helper()
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if last := req.Messages[len(req.Messages)-1]; last.Role == store.RoleUser && last.Content == "go" {
			return toolTurn(tc("c1", "echo", `{"text":"a"}`), tc("c2", "echo", `{"text":"b"}`))
		}
		return answerNew()
	}}
	a, db, rec := fakeHarness(t, m, func(c *Config) { c.Approve = ApproveAsk }, echoTool(tools.Sequential, nil))
	id, err := a.Send(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "paused", finished(1))
	for a.Phase(id) != events.PhaseAwaitingApproval {
		time.Sleep(time.Millisecond)
	}
	return a, db, rec, id
}

// waitParked waits until a goroutine in fn (a function as runtime stacks name it) is parked
// on a mutex, and reports true; or reports false once done is closed (the call returned). It
// tells without sleeping that a call waits for a lock another goroutine holds.
func waitParked(t *testing.T, fn string, done <-chan struct{}) bool {
	buf := make([]byte, 1<<20)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Microsecond) {
		select {
		case <-done:
			return false
		default:
		}
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "[sync.Mutex.Lock") && strings.Contains(g, fn) {
				return true
			}
		}
	}
	t.Errorf("%s neither returned nor waited for a lock within 10 s", fn)
	return false
}

// The user stops a chat that waits for approval while sending a message to it: the calls'
// stand-in results are stored right after the calls, and the message after them, whichever
// comes first. Both orders are made to happen, each every time.
func TestStopOnAPausedChatNeverLetsASendSlipBetweenCallsAndResults(t *testing.T) {
	t.Run("a Send while the Stop stores the results waits for them", func(t *testing.T) {
		a, db, rec, id := pausedOnTwoCalls(t, func() model.Turn { return answer("done") })
		sent, sendErr := make(chan struct{}), make(chan error, 1)
		rec.react = func(e events.Event) {
			if e.Type != events.ToolResult || e.ToolCallID != "c1" || e.NotRun != events.NotRunStopped {
				return
			}
			// the Stop has stored c1's record, not yet c2's nor their messages: a Send now
			go func() {
				_, err := a.Send(context.Background(), id, "new")
				sendErr <- err
				close(sent)
			}()
			if !waitParked(t, "agentloop.(*Agent).Send", sent) {
				t.Error("a Send went through while the Stop was storing the calls' results")
			}
		}
		if err := a.Stop(id); err != nil {
			t.Fatal(err)
		}
		if err := <-sendErr; err != nil {
			t.Fatalf("the Send that waited for the Stop: %v", err)
		}
		if phase, live := a.Phase(id), a.LiveRun(id); live != "" && !phase.Busy() {
			t.Errorf("phase %s while run %s is live", phase, live)
		}
		wantAfterStop(t, db, rec, id, "UATTUA", events.StopCompleted)
	})
	t.Run("a Send before the Stop starts a run that the Stop then stops", func(t *testing.T) {
		release := make(chan struct{})
		a, db, rec, id := pausedOnTwoCalls(t, func() model.Turn { <-release; return model.Turn{} })
		if _, err := a.Send(context.Background(), id, "new"); err != nil {
			t.Fatal(err)
		}
		if err := a.Stop(id); err != nil {
			t.Fatal(err)
		}
		close(release)
		wantAfterStop(t, db, rec, id, "UATTU", events.StopAborted)
	})
}

// wantAfterStop waits for the run of the message sent to the stopped chat and checks the roles
// stored (the calls' results right after their calls, then the message) and how that run ended.
func wantAfterStop(t *testing.T, db *store.DB, rec *recorder, id, wantRoles, stop string) {
	t.Helper()
	evs := rec.waitFor(t, "the new run finished", finished(2))
	msgs, _ := db.Messages(id)
	if got := roles(msgs); got != wantRoles {
		t.Errorf("stored roles %s, want the calls' results right after their calls, then the message (%s)", got, wantRoles)
	}
	if fin := ofType(evs, events.RunFinished); fin[1].StopReason != stop {
		t.Errorf("the new message's run ended %s, want %s", fin[1].StopReason, stop)
	}
}

// slowStore holds every run start of one chat until released, like a disk slow to fsync.
type slowStore struct {
	*store.DB
	chatID  string
	entered chan struct{}
	release chan struct{}
}

func (s *slowStore) StartRunWith(r store.Run, msgs ...store.Message) (store.Run, []store.Message, error) {
	if r.ChatID == s.chatID {
		s.entered <- struct{}{}
		<-s.release
	}
	return s.DB.StartRunWith(r, msgs...)
}

func TestASlowStoreWriteOfOneChatNeverHoldsUpAnotherChat(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	defer close(release)
	m := &fakeModel{turn: func(req model.Request) model.Turn {
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
	sent := sendAway(a, other.ID, "hi")
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

func TestWhoeverSawRunFinishedCanStartTheChatsNextRunAtOnce(t *testing.T) {
	a, _, rec := fakeHarness(t, &fakeModel{turn: func(model.Request) model.Turn { return answer("ok") }}, nil)
	finishedRuns := make(chan string, 1)
	rec.react = func(e events.Event) {
		if e.Type == events.RunFinished {
			finishedRuns <- e.ChatID // seen on another goroutine, as the window or a script sees it
		}
	}
	id, err := a.Send(context.Background(), "", "first")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		chatID := <-finishedRuns
		if phase := a.Phase(chatID); phase != events.PhaseIdle {
			t.Fatalf("round %d: the chat is %s after run.finished", i, phase)
		}
		if i == 49 {
			break
		}
		if i%2 == 0 {
			if _, err := a.Send(context.Background(), id, "again"); err != nil {
				t.Fatalf("round %d: %v", i, err)
			}
			continue
		}
		// RunOnce refuses a busy chat: it must not see the run that just said it finished
		go func() {
			if _, err := a.RunOnce(context.Background(), id, "once more", RunOptions{}); err != nil {
				t.Errorf("round %d: %v", i, err)
			}
		}()
	}
}
