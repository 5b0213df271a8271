package agentloop

import (
	"context"
	"errors"
	"fmt"
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

// stuckTool ignores its context: it says so on entered, returns only when release is
// closed, then reports progress (which must reach nobody) and says so on returned.
func stuckTool(entered chan<- struct{}, release <-chan struct{}, returned chan<- struct{}) tools.Tool {
	return tools.New("stuck", "Block.").Mode(tools.Sequential).
		Handle(func(ctx context.Context, c tools.Call, progress tools.ProgressFunc) (tools.Result, error) {
			entered <- struct{}{}
			<-release
			progress("late")
			defer close(returned)
			return tools.Result{Content: "finished late"}, nil
		})
}

func TestStopEndsARunWithinASecondWhileAToolIgnoresTheCancellation(t *testing.T) {
	for _, how := range []string{"Stop", "Shutdown", "RunOnce's context"} {
		t.Run(how, func(t *testing.T) {
			entered, release, returned := make(chan struct{}, 2), make(chan struct{}), make(chan struct{})
			var once sync.Once
			free := func() { once.Do(func() { close(release) }) }
			t.Cleanup(free)
			m := &fakeModel{turn: func(req model.Request) model.Turn {
				if trail(req) == "U" {
					return toolTurn(tc("c1", "stuck", `{}`), tc("c2", "stuck", `{}`))
				}
				return answer("never asked")
			}}
			a, db, rec := fakeHarness(t, m, nil, stuckTool(entered, release, returned))

			var chatID string
			ranOnce := make(chan Outcome, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if how == "RunOnce's context" {
				go func() { out, _ := a.RunOnce(ctx, "", "go", RunOptions{}); ranOnce <- out }()
			} else {
				id, err := a.Send(context.Background(), "", "go")
				if err != nil {
					t.Fatal(err)
				}
				chatID = id
			}
			evs := rec.waitFor(t, "the tool running", func(evs []events.Event) bool {
				for _, e := range evs {
					if e.Type == events.ToolCall && e.State == events.ToolStateRunning {
						return true
					}
				}
				return false
			})
			chatID = evs[0].ChatID
			<-entered

			start := time.Now()
			switch how {
			case "Stop":
				if err := a.Stop(chatID); err != nil {
					t.Fatal(err)
				}
			case "Shutdown":
				sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer scancel()
				if err := a.Shutdown(sctx); err != nil {
					t.Fatalf("Shutdown waited for the stuck tool: %v", err)
				}
			default:
				cancel()
			}
			deadline := time.After(5 * time.Second)
			for len(ofType(rec.events(), events.RunFinished)) == 0 {
				select {
				case <-deadline:
					t.Fatalf("no run.finished 5 s after the stop; the loop waits for the tool")
				case <-time.After(5 * time.Millisecond):
				}
			}
			took := time.Since(start)
			// The loop's own bound is stopGrace (250 ms); 2 s leaves room for a loaded
			// machine while still failing a loop that waits for the tool.
			if took > 2*time.Second {
				t.Errorf("run.finished came %v after the stop; want well within a second", took)
			}
			t.Logf("run.finished %v after the stop", took)
			fin := ofType(rec.events(), events.RunFinished)[0]
			if fin.StopReason != events.StopAborted {
				t.Fatalf("stop reason %q", fin.StopReason)
			}
			if how == "RunOnce's context" {
				if out := <-ranOnce; out.StopReason != events.StopAborted {
					t.Fatalf("RunOnce outcome %+v", out)
				}
			}

			recs, _ := db.ToolCalls(chatID)
			if len(recs) != 2 {
				t.Fatalf("records %+v", recs)
			}
			byID := map[string]store.ToolCallRecord{}
			for _, r := range recs {
				byID[r.ID] = r
			}
			if r := byID["c1"]; r.Pending || r.OK || !r.Stopped || r.Output != textStoppedRunning {
				t.Errorf("the stuck call's record %+v, want stopped while running", r)
			}
			if r := byID["c2"]; r.Pending || r.Stopped || r.Output != textNotRunStopped {
				t.Errorf("the call after it %+v, want not run", r)
			}
			if res := resultOf(rec.events(), "c1"); !res.Stopped || res.NotRun != "" || res.OK == nil || *res.OK {
				t.Errorf("the stuck call's tool.result %+v, want stopped", res)
			}
			msgs, _ := db.Messages(chatID)
			if got := roles(msgs); got != "UATT" {
				t.Fatalf("stored roles %s, want UATT", got)
			}

			// the tool ends long after: nothing of it reaches the run, the store or the events
			before := len(rec.events())
			free()
			select {
			case <-returned:
			case <-time.After(5 * time.Second):
				t.Fatal("the stuck tool never returned")
			}
			time.Sleep(50 * time.Millisecond)
			if late := rec.events()[before:]; len(late) != 0 {
				t.Errorf("events after the stuck tool returned: %s", summary(late))
			}
			if r, _ := db.ToolCall(chatID, "c1"); r.Output != textStoppedRunning {
				t.Errorf("the late result replaced the record: %+v", r)
			}
		})
	}
}

// A stop that lands after a call's card shows it running but before its tool starts (the
// tools refuse a call whose context ended) leaves the call not run, not "stopped while it
// ran": nothing of it ran.
func TestACallStoppedBeforeItsToolStartsIsNotRun(t *testing.T) {
	var ran atomic.Bool
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		return toolTurn(tc("c1", "echo", `{"text":"a"}`))
	}}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Sequential, func() { ran.Store(true) }))
	rec.react = func(e events.Event) {
		if e.Type == events.ToolCall && e.State == events.ToolStateRunning && e.ToolCallID == "c1" {
			_ = a.Stop(e.ChatID) // the run's context ends before the tool is called
		}
	}
	id, err := a.Send(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the stopped run finished", finished(1))
	if ran.Load() {
		t.Fatal("the tool ran after the stop")
	}
	if res := resultOf(rec.events(), "c1"); res.NotRun != events.NotRunStopped || res.Stopped || res.Output != textNotRunStopped {
		t.Errorf("tool.result %+v, want the call not run (stopped)", res)
	}
	if r, _ := db.ToolCall(id, "c1"); r.Pending || r.Stopped || r.NotRun != events.NotRunStopped || r.Output != textNotRunStopped {
		t.Errorf("the record %+v, want the call not run (stopped)", r)
	}
}

// TestACallStoppedWhileItRanIsStoppedNotFailed: a tool that answers the cancellation with
// its own sentence (as an MCP call does) is stopped, in its tool.result and its record, with
// that sentence; a tool that completes its work despite the stop is completed. (The run is
// stopped as `run` stops it on an interrupt: its context ends.)
func TestACallStoppedWhileItRanIsStoppedNotFailed(t *testing.T) {
	for _, completes := range []bool{false, true} {
		t.Run(fmt.Sprintf("completes=%v", completes), func(t *testing.T) {
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			tool := tools.New("wait", "Wait for the stop.").Handle(func(ctx context.Context, _ tools.Call, _ tools.ProgressFunc) (tools.Result, error) {
				stop() // the user stops the run while the call runs
				<-ctx.Done()
				if completes {
					return tools.Result{Content: "done anyway"}, nil
				}
				return tools.Result{}, errors.New("the run was stopped while the tool ran this call")
			})
			m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("c1", "wait", `{}`)) }}
			a, db, rec := fakeHarness(t, m, nil, tool)
			out, err := a.RunOnce(ctx, "", "go", RunOptions{})
			if err != nil || out.StopReason != events.StopAborted {
				t.Fatalf("outcome %+v, %v; want aborted", out, err)
			}
			res := resultOf(rec.events(), "c1")
			r, err := db.ToolCall(out.ChatID, "c1")
			if err != nil {
				t.Fatal(err)
			}
			if completes {
				if res.Stopped || r.Stopped || !r.OK || r.Output != "done anyway" {
					t.Errorf("tool.result %+v, record %+v; want completed", res, r)
				}
				return
			}
			if !res.Stopped || res.OK == nil || *res.OK || !strings.Contains(res.Output, "stopped while the tool ran") {
				t.Errorf("tool.result %+v, want stopped with the tool's sentence", res)
			}
			if !r.Stopped || r.OK || r.Pending || r.NotRun != "" || r.Output != res.Output {
				t.Errorf("record %+v, want stopped with the tool's sentence", r)
			}
		})
	}
}
