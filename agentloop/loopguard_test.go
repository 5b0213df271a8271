package agentloop

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

func TestTheLoopGuardStopsRepeatsAndCyclesThatChangeNothing(t *testing.T) {
	type step struct {
		name, args, result string
		want               loopVerdict
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"the same call three times: told at the second, stopped at the third", []step{
			{"list_dir", `{"path":"."}`, "a.txt", loopNone},
			{"list_dir", `{"path": "."}`, "", loopWarn},
			{"list_dir", `{"path":"."}`, "", loopStop},
		}},
		{"arguments are compared canonically", []step{
			{"edit", `{"b":1,"a":[1.50,"x"]}`, "ok", loopNone},
			{"edit", `{ "a" : [1.50, "x"], "b" : 1 }`, "", loopWarn},
		}},
		{"other arguments are another call", []step{
			{"read_file", `{"path":"a"}`, "A", loopNone},
			{"read_file", `{"path":"b"}`, "B", loopNone},
			{"read_file", `{"path":"c"}`, "C", loopNone},
			{"read_file", `{"path":"a"}`, "A", loopNone},
		}},
		{"a cycle of two calls with the same results", []step{
			{"read_file", `{"path":"a"}`, "A", loopNone},
			{"write_file", `{"path":"a","content":"A"}`, "wrote 1 byte", loopNone},
			{"read_file", `{"path":"a"}`, "A", loopNone},
			{"write_file", `{"path":"a","content":"A"}`, "wrote 1 byte", loopNone},
			{"read_file", `{"path":"a"}`, "", loopWarn},
			{"write_file", `{"path":"a","content":"A"}`, "", loopStop},
		}},
		{"a cycle whose results change is progress", []step{
			{"run", `{"cmd":"test"}`, "3 failures", loopNone},
			{"edit", `{"x":1}`, "ok", loopNone},
			{"run", `{"cmd":"test"}`, "2 failures", loopNone},
			{"edit", `{"x":1}`, "ok", loopNone},
			{"run", `{"cmd":"test"}`, "1 failure", loopNone},
			{"edit", `{"x":1}`, "ok", loopNone},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := newLoopGuard(3)
			for i, s := range tt.steps {
				v, seen, note := g.check(s.name, json.RawMessage(s.args))
				if v != s.want {
					t.Fatalf("step %d (%s %s): verdict %d, want %d (note %q)", i, s.name, s.args, v, s.want, note)
				}
				g.settle(seen, s.result)
			}
		})
	}
}

func TestTheLoopNoticeGivesThePreviousResultAndTheStopNamesTheCall(t *testing.T) {
	g := newLoopGuard(3)
	_, seen, _ := g.check("list_dir", json.RawMessage(`{"path":"."}`))
	g.settle(seen, "a.txt\nb.txt")
	_, _, notice := g.check("list_dir", json.RawMessage(`{"path":"."}`))
	if !strings.Contains(notice, `you already called list_dir {"path":"."} with the same arguments; its result was:`) ||
		!strings.Contains(notice, "a.txt\nb.txt") {
		t.Fatalf("notice %q", notice)
	}
	_, _, stop := g.check("list_dir", json.RawMessage(`{"path":"."}`))
	if want := `The model called list_dir {"path":"."} 3 times in a row with the same arguments`; !strings.HasPrefix(stop, want) {
		t.Fatalf("stop sentence %q, want it to start with %q", stop, want)
	}
}

func TestAUserMessageStartsTheCountAgain(t *testing.T) {
	g := newLoopGuard(3)
	g.check("a", nil)
	g.reset()
	if v, _, _ := g.check("a", nil); v != loopNone {
		t.Fatalf("verdict %d after a reset", v)
	}
}

func TestAModelRepeatingACallIsToldOnceThenStoppedAsALoop(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("", "echo", `{"text":"again"}`)) }}
	runs := 0
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, func() { runs++ }))
	out := runFake(t, a, "go")
	if out.StopReason != events.StopLoop {
		t.Fatalf("stop reason %q, want loop", out.StopReason)
	}
	if len(m.reqs) != 3 || runs != 1 {
		t.Fatalf("%d model calls and %d tool runs, want 3 and 1", len(m.reqs), runs)
	}
	msgs, _ := db.Messages(out.ChatID)
	if roles(msgs) != "UATATAT" {
		t.Fatalf("roles %q: every call keeps a result", roles(msgs))
	}
	if got := msgs[4].Content; !strings.Contains(got, `you already called echo {"text":"again"} with the same arguments; its result was:`+"\nagain") {
		t.Fatalf("the second call's result %q does not tell the model", got)
	}
	if got := msgs[6].Content; got != textNotRunLoop {
		t.Fatalf("the third call's result %q", got)
	}
	fin := ofType(rec.events(), events.RunFinished)
	if len(fin) != 1 || !strings.Contains(fin[0].Message, `echo {"text":"again"} 3 times in a row`) || out.Note != fin[0].Message {
		t.Fatalf("run.finished %+v, outcome note %q", fin, out.Note)
	}
	recs, _ := db.ToolCalls(out.ChatID)
	for _, r := range recs {
		if r.Pending {
			t.Fatalf("record %+v left pending", r)
		}
	}
	// the refused calls did not run, and neither failed: the window draws them as "not run"
	var why []string
	for _, e := range ofType(rec.events(), events.ToolResult) {
		why = append(why, e.NotRun)
	}
	if strings.Join(why, ",") != ","+events.NotRunRepeated+","+events.NotRunLoop {
		t.Errorf("tool.result notRun = %q, want the run call, then repeated, then loop", why)
	}
	if len(recs) != 3 || recs[1].NotRun != events.NotRunRepeated || recs[2].NotRun != events.NotRunLoop {
		t.Errorf("records %+v do not keep why the calls did not run", recs)
	}
	// the sentence that stopped the run is kept with it: the chat reopened says it again
	opened, err := a.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Notes) != 1 || opened.Notes[0].StopReason != events.StopLoop || opened.Notes[0].Message != fin[0].Message || opened.Notes[0].RunID != fin[0].RunID {
		t.Errorf("opened notes %+v, want the loop sentence of run %s", opened.Notes, fin[0].RunID)
	}
}

func TestACycleOfCallsThatChangesNothingStopsAsALoop(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		return toolTurn(echoCall(strconv.Itoa(len(req.Messages) % 4 / 2)))
	}}
	a, _, _ := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	out := runFake(t, a, "go")
	if out.StopReason != events.StopLoop || len(m.reqs) != 6 || !strings.Contains(out.Note, "repeated the calls") {
		t.Fatalf("stop %q after %d model calls, note %q", out.StopReason, len(m.reqs), out.Note)
	}
}

func TestTheLoopLimitIsASetting(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("", "echo", `{"text":"again"}`)) }}
	a, db, _ := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{LoopRepeats: 5}); err != nil {
		t.Fatal(err)
	}
	out := runFake(t, a, "go")
	if out.StopReason != events.StopLoop || len(m.reqs) != 5 {
		t.Fatalf("stop %q after %d model calls, want loop after 5", out.StopReason, len(m.reqs))
	}
	if err := db.PutSettings(store.Settings{LoopRepeats: 1}); err == nil {
		t.Fatal("a loop limit of 1 was accepted: every call would stop the run")
	}
}

func TestTheScriptedLooperStopsAsALoopOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "looper", approve: ApproveAuto})
	ctx := context.Background()
	out, err := h.agent.RunOnce(ctx, "", "list forever", RunOptions{Think: "on"})
	if err != nil || out.StopReason != events.StopLoop {
		t.Fatalf("stop %q, err %v; events %s", out.StopReason, err, summary(h.rec.events()))
	}
	if n := len(ofType(h.rec.events(), events.MessageStarted)); n != 3 {
		t.Fatalf("model calls = %d, want 3", n)
	}
	if !strings.Contains(out.Note, `list_dir {"path":"."} 3 times in a row`) {
		t.Fatalf("note %q", out.Note)
	}
}
