package agentloop

import (
	"context"
	"slices"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

func TestThinkingThenOneToolCallThenAnswerWritesTheFileAndKeepsTheChat(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAuto})
	out := h.runCompleted(t, "write hello.txt")
	if got, ok := h.file(t, "hello.txt"); !ok || got != "hello" {
		t.Fatalf("hello.txt = %q (exists %v), want \"hello\"", got, ok)
	}
	evs := h.rec.events()
	// the checkpoint (hello.txt's pre-image, committed with the pending record) comes before the call runs
	want := []string{"run.started", "message.started", "tool.call:pending", "message.completed", "checkpoint",
		"tool.call:running", "tool.result", "message.started", "message.completed", "run.finished"}
	if got := typesOf(evs); !slices.Equal(got, want) {
		t.Fatalf("events\n got %v\nwant %v", got, want)
	}
	wantPhases := []events.Phase{events.PhaseSubmitted, events.PhaseStreaming, events.PhaseTools,
		events.PhaseContinuing, events.PhaseStreaming, events.PhaseIdle}
	if got := phasesOf(evs); !slices.Equal(got, wantPhases) {
		t.Fatalf("phases\n got %v\nwant %v", got, wantPhases)
	}
	var thinking, text string
	for _, e := range evs {
		switch e.Type {
		case events.ThinkingDelta:
			thinking += e.Text
		case events.TextDelta:
			text += e.Text
		}
	}
	if !strings.Contains(thinking, "I should write the file.") || text != "I wrote hello.txt." {
		t.Fatalf("thinking %q, text %q", thinking, text)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Seq <= evs[i-1].Seq || evs[i].ChatID != out.ChatID || evs[i].RunID != out.RunID {
			t.Fatalf("event %d out of order or of another run: %+v", i, evs[i])
		}
	}
	res := ofType(evs, events.ToolResult)[0]
	if res.OK == nil || !*res.OK || res.DurationMs == nil {
		t.Fatalf("tool.result = %+v, want ok with a duration", res)
	}

	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UATA" {
		t.Fatalf("stored roles %q, want UATA", roles(msgs))
	}
	if tm := msgs[2]; tm.ToolName != "write_file" || tm.ToolCallID != msgs[1].ToolCalls[0].ID {
		t.Fatalf("tool message %+v does not answer call %+v", tm, msgs[1].ToolCalls[0])
	}
	if !msgs[3].Complete || msgs[3].Content != "I wrote hello.txt." || msgs[3].Usage == nil {
		t.Fatalf("final message = %+v", msgs[3])
	}
	recs, _ := h.db.ToolCalls(out.ChatID)
	if len(recs) != 1 || recs[0].Pending || !recs[0].OK || recs[0].Approval == nil || recs[0].Approval.By != ByPolicy {
		t.Fatalf("tool records = %+v", recs)
	}
	run, _ := h.db.Run(out.RunID)
	if run.Live || run.StopReason != events.StopCompleted {
		t.Fatalf("run record = %+v", run)
	}
	if p := h.agent.Phase(out.ChatID); p != events.PhaseIdle {
		t.Fatalf("phase after the run = %q", p)
	}
}

func TestTwoToolCallsOfOneMessageRunAndAnswerInCallOrder(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "twocalls", approve: ApproveAuto})
	out := h.runCompleted(t, "write a and b")
	for name, want := range map[string]string{"a.txt": "A", "b.txt": "B"} {
		if got, _ := h.file(t, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UATTA" {
		t.Fatalf("roles %q", roles(msgs))
	}
	calls := msgs[1].ToolCalls
	if msgs[2].ToolCallID != calls[0].ID || msgs[3].ToolCallID != calls[1].ID {
		t.Fatalf("results not in call order: %v %v for %v", msgs[2].ToolCallID, msgs[3].ToolCallID, calls)
	}
	pending := 0
	for _, e := range ofType(h.rec.events(), events.ToolCall) {
		if e.State == events.ToolStatePending {
			pending++
		}
	}
	if pending != 2 {
		t.Fatalf("pending tool.call events = %d, want 2", pending)
	}
}

func TestInvalidArgumentsGoBackToTheModelWhichCorrectsTheCall(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "fixer", approve: ApproveAuto})
	out := h.runCompleted(t, "write x")
	tms := toolMessages(h.messages(t, out.ChatID))
	if len(tms) != 2 || !strings.Contains(tms[0].Content, "content") || !strings.Contains(tms[0].Content, "schema") {
		t.Fatalf("tool messages %+v: the first should name the missing content", tms)
	}
	if got, _ := h.file(t, "x.txt"); got != "fixed" {
		t.Fatalf("x.txt = %q", got)
	}
	res := ofType(h.rec.events(), events.ToolResult)
	if len(res) != 2 || *res[0].OK || !*res[1].OK {
		t.Fatalf("results %+v", res)
	}
	// the invalid call never ran: no running card for it
	for _, e := range ofType(h.rec.events(), events.ToolCall) {
		if e.State == events.ToolStateRunning && e.ToolCallID == res[0].ToolCallID {
			t.Fatal("an invalid call was shown running")
		}
	}
}

func TestAPathOutsideTheWorkspaceIsRefusedAndTheRunContinues(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "escaper", approve: ApproveAuto})
	out := h.runCompleted(t, "write outside")
	if _, ok := h.file(t, "../outside.txt"); ok {
		t.Fatal("a file was written outside the workspace")
	}
	tms := toolMessages(h.messages(t, out.ChatID))
	if len(tms) != 1 || !strings.Contains(tms[0].Content, "outside") {
		t.Fatalf("tool message %+v should say the path is outside the workspace", tms)
	}
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != "I cannot write there." {
		t.Fatalf("last message %+v", last)
	}
}

func TestAModelThatNeverStopsCallingToolsStopsAtMaxSteps(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "looper", approve: ApproveAuto})
	if err := h.db.PutSettings(store.Settings{LoopRepeats: 10}); err != nil { // the loop guard would stop it first
		t.Fatal(err)
	}
	out := h.runOnce(t, "list forever", RunOptions{MaxSteps: 3})
	if out.StopReason != events.StopMaxSteps {
		t.Fatalf("stop reason %q, want max_steps", out.StopReason)
	}
	if n := len(ofType(h.rec.events(), events.MessageStarted)); n != 3 {
		t.Fatalf("model calls = %d, want 3", n)
	}
	if r := roles(h.messages(t, out.ChatID)); r != "UATATAT" {
		t.Fatalf("roles %q: every call keeps its result", r)
	}
}

func TestASmallNumPredictStopsWithLengthAfterThreeContinuations(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "talker"})
	out := h.runOnce(t, "count", RunOptions{NumPredict: 6})
	if out.StopReason != events.StopLength {
		t.Fatalf("stop reason %q, want length", out.StopReason)
	}
	done := ofType(h.rec.events(), events.MessageCompleted)
	if len(done) != 1+maxLengthContinuations {
		t.Fatalf("model calls = %d, want %d", len(done), 1+maxLengthContinuations)
	}
	for _, e := range done {
		if e.DoneReason != "length" {
			t.Fatalf("done reason %q", e.DoneReason)
		}
	}
	// the continuation prompts are not stored: the chat is the user's message and the answers
	if r := roles(h.messages(t, out.ChatID)); r != "UAAAA" {
		t.Fatalf("roles %q", r)
	}
}

func TestAskApprovalPausesThenAllowRunsTheCall(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAsk})
	out := h.runOnce(t, "write hello.txt", RunOptions{})
	if out.StopReason != events.StopAwaitingApproval || len(out.Awaiting) != 1 {
		t.Fatalf("outcome %+v, want paused on one call", out)
	}
	if _, ok := h.file(t, "hello.txt"); ok {
		t.Fatal("the call ran before it was approved")
	}
	if p := h.agent.Phase(out.ChatID); p != events.PhaseAwaitingApproval || p.Busy() {
		t.Fatalf("phase %q, want awaiting_approval (not busy)", p)
	}
	run, _ := h.db.Run(out.RunID)
	if run.Phase != events.PhaseAwaitingApproval || len(run.State) == 0 {
		t.Fatalf("paused run record %+v has no state to resume from", run)
	}
	if err := h.agent.Decide(out.Awaiting[0].CallID, DecisionAllow, ""); err != nil {
		t.Fatal(err)
	}
	evs := h.rec.waitFor(t, "the resumed run", finished(2))
	last := ofType(evs, events.RunFinished)[1]
	if last.StopReason != events.StopCompleted {
		t.Fatalf("resumed run ended %q", last.StopReason)
	}
	if got, _ := h.file(t, "hello.txt"); got != "hello" {
		t.Fatalf("hello.txt = %q", got)
	}
	if started := ofType(evs, events.RunStarted); started[1].Trigger != "approval" {
		t.Fatalf("resumed run trigger %q", started[1].Trigger)
	}
	if r := roles(h.messages(t, out.ChatID)); r != "UATA" {
		t.Fatalf("roles %q", r)
	}
}

func TestAskApprovalDeniedTellsTheModelWhy(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAsk})
	out := h.runOnce(t, "write hello.txt", RunOptions{})
	if err := h.agent.Decide(out.Awaiting[0].CallID, DecisionDeny, "not now"); err != nil {
		t.Fatal(err)
	}
	h.rec.waitFor(t, "the resumed run", finished(2))
	if _, ok := h.file(t, "hello.txt"); ok {
		t.Fatal("a denied call ran")
	}
	tms := toolMessages(h.messages(t, out.ChatID))
	if len(tms) != 1 || tms[0].Content != "denied by the user: not now" {
		t.Fatalf("tool messages %+v", tms)
	}
	rec, _ := h.db.ToolCall(out.ChatID, out.Awaiting[0].CallID)
	if rec.Approval == nil || rec.Approval.Decision != DecisionDeny || rec.Approval.By != ByUser || rec.Pending {
		t.Fatalf("record %+v", rec)
	}
}

func TestAskApprovalAnsweredByANewMessageGetsAStandInResult(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAsk})
	out := h.runOnce(t, "write hello.txt", RunOptions{})
	if _, err := h.agent.Send(context.Background(), out.ChatID, "no, leave it"); err != nil {
		t.Fatal(err)
	}
	evs := h.rec.waitFor(t, "the new run", finished(2))
	if s := ofType(evs, events.RunFinished)[1].StopReason; s != events.StopCompleted {
		t.Fatalf("new run ended %q", s)
	}
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UATUA" {
		t.Fatalf("roles %q: the stand-in result sits next to its call, then the new message", roles(msgs))
	}
	if msgs[2].Content != "the user replied instead of approving" || msgs[3].Content != "no, leave it" {
		t.Fatalf("messages %+v", msgs)
	}
	// not a failure: the call did not run because the user replied
	if res := ofType(evs, events.ToolResult); len(res) != 1 || res[0].NotRun != events.NotRunReplied {
		t.Errorf("tool.result %+v, want notRun %q", res, events.NotRunReplied)
	}
	if recs, _ := h.db.ToolCalls(out.ChatID); len(recs) != 1 || recs[0].NotRun != events.NotRunReplied {
		t.Errorf("records %+v, want notRun %q", recs, events.NotRunReplied)
	}
	if err := h.agent.Decide(out.Awaiting[0].CallID, DecisionAllow, ""); err == nil {
		t.Fatal("a call answered by a message can still be decided")
	}
}

func TestAPausedRunResumesAfterARestart(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAsk})
	out := h.runOnce(t, "write hello.txt", RunOptions{})
	// a new agent on the same store: as after closing and opening the app
	again := NewAgent(h.agent.cfg)
	t.Cleanup(func() { again.Shutdown(context.Background()) })
	if p := again.Phase(out.ChatID); p != events.PhaseAwaitingApproval {
		t.Fatalf("phase after restart %q", p)
	}
	if err := again.Decide(out.Awaiting[0].CallID, DecisionAllow, ""); err != nil {
		t.Fatal(err)
	}
	h.rec.waitFor(t, "the resumed run", finished(2))
	if got, _ := h.file(t, "hello.txt"); got != "hello" {
		t.Fatalf("hello.txt = %q", got)
	}
}

func TestStopDuringStreamingKeepsThePartialAnswer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "talker"})
	var chatID string
	stopped := false
	h.rec.react = func(e events.Event) {
		if e.Type == events.TextDelta && !stopped {
			stopped = true
			chatID = e.ChatID
			if err := h.agent.Stop(e.ChatID); err != nil {
				t.Error(err)
			}
		}
	}
	out := h.runOnce(t, "count", RunOptions{})
	if out.StopReason != events.StopAborted {
		t.Fatalf("stop reason %q, want aborted", out.StopReason)
	}
	msgs := h.messages(t, chatID)
	if roles(msgs) != "UA" || msgs[1].Complete || !strings.HasPrefix(msgs[1].Content, "one") {
		t.Fatalf("messages %+v: the partial answer is kept, incomplete", msgs)
	}
	if strings.Contains(msgs[1].Content, "sixteen") {
		t.Fatal("the stream went on after the stop")
	}
}

func TestStopDuringASlowToolCancelsItAndStartsNothingElse(t *testing.T) {
	release := make(chan struct{}) // never closed: only the stop ends the tool
	h := newHarness(t, harnessOptions{model: "slow", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)}})
	h.rec.react = func(e events.Event) {
		if e.Type == events.ToolCall && e.State == events.ToolStateRunning {
			go h.agent.Stop(e.ChatID)
		}
	}
	out := h.runOnce(t, "wait", RunOptions{})
	if out.StopReason != events.StopAborted {
		t.Fatalf("stop reason %q", out.StopReason)
	}
	if n := len(ofType(h.rec.events(), events.MessageStarted)); n != 1 {
		t.Fatalf("model calls %d: none may start after the stop", n)
	}
	recs, _ := h.db.ToolCalls(out.ChatID)
	if len(recs) != 1 || recs[0].Pending || recs[0].OK {
		t.Fatalf("records %+v: the cancelled call is recorded, failed", recs)
	}
	if r := roles(h.messages(t, out.ChatID)); r != "UAT" {
		t.Fatalf("roles %q", r)
	}
}

func TestASteeringMessageDuringToolsSkipsTheRestOfTheBatch(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOptions{model: "steered", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)}})
	h.rec.react = func(e events.Event) {
		if e.Type == events.ToolCall && e.State == events.ToolStateRunning && e.Name == "wait" {
			if p := h.agent.Phase(e.ChatID); p != events.PhaseTools {
				t.Errorf("phase during tools %q", p)
			}
			if _, err := h.agent.Send(context.Background(), e.ChatID, "write nothing"); err != nil {
				t.Error(err)
			}
			close(release)
		}
	}
	out := h.runCompleted(t, "wait then write")
	if _, ok := h.file(t, "a.txt"); ok {
		t.Fatal("the call after the steering message ran")
	}
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UATTUA" {
		t.Fatalf("roles %q", roles(msgs))
	}
	if msgs[3].Content != textSkippedForMessage || msgs[4].Content != "write nothing" {
		t.Fatalf("messages %+v", msgs)
	}
	if n := len(ofType(h.rec.events(), events.RunStarted)); n != 1 {
		t.Fatalf("runs %d: the message joins the live run", n)
	}
	var steering []events.Event
	for _, e := range ofType(h.rec.events(), events.MessageStarted) {
		if e.Role == store.RoleUser {
			steering = append(steering, e)
		}
	}
	if len(steering) != 1 || steering[0].Trigger != events.TriggerSteering || steering[0].MessageID != msgs[4].ID {
		t.Fatalf("user message.started %+v, want one with trigger steering and the injected message's id", steering)
	}
}
