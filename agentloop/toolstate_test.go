package agentloop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// The state of a stored call's card is decided here, once, for every reader: the table is the
// one docs/ARCHITECTURE.md ("Tool-call state") and frontend/src/test/contract/README.md state.
func TestAStoredCallsCardStateFollowsItsRecordInOneOrder(t *testing.T) {
	done := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	deny := &store.Approval{Decision: store.DecisionDeny, By: "user"}
	cases := []struct {
		name      string
		r         store.ToolCallRecord
		ofLiveRun bool
		want      string
	}{
		{"denied, whatever else", store.ToolCallRecord{Approval: deny, NotRun: events.NotRunReplied, Pending: true}, true, CardDenied},
		{"not run (the user replied)", store.ToolCallRecord{NotRun: events.NotRunReplied, Output: "the user replied"}, false, CardNotRun},
		{"not run wins over awaiting approval", store.ToolCallRecord{NotRun: events.NotRunReplied, AwaitingApproval: true}, true, CardNotRun},
		{"not run wins over a stop", store.ToolCallRecord{NotRun: events.NotRunStopped, Stopped: true, FinishedAt: done}, false, CardNotRun},
		{"awaiting approval", store.ToolCallRecord{AwaitingApproval: true}, false, CardAwaitingApproval},
		{"pending, its run live", store.ToolCallRecord{Pending: true}, true, CardRunning},
		{"pending, no live run", store.ToolCallRecord{Pending: true}, false, CardInterrupted},
		{"finished ok", store.ToolCallRecord{OK: true, FinishedAt: done}, false, CardCompleted},
		{"completed despite a stop", store.ToolCallRecord{OK: true, Stopped: true, FinishedAt: done}, false, CardCompleted},
		{"stopped while it ran", store.ToolCallRecord{Stopped: true, Output: "stopped: the user stopped the run"}, false, CardStopped},
		{"a tool error", store.ToolCallRecord{Output: "no such file", FinishedAt: done}, false, CardFailed},
		{"a stand-in result stored before notRun existed", store.ToolCallRecord{Output: "not run: the user replied"}, false, CardFailed},
		{"neither started nor finished, its run live", store.ToolCallRecord{}, true, CardPending},
		{"neither started nor finished, no live run", store.ToolCallRecord{}, false, CardInterrupted},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := RecordState(c.r, c.ofLiveRun); got != c.want {
				t.Errorf("RecordState = %q, want %q", got, c.want)
			}
		})
	}
}

func TestARecordIsOfTheLiveRunWhenItNamesNoOtherRun(t *testing.T) {
	records := []store.ToolCallRecord{
		{ID: "mine", RunID: "r2", Pending: true},
		{ID: "unnamed", Pending: true},
		{ID: "older", RunID: "r1", Pending: true},
	}
	got := recordStates(records, "r2", Undone{})
	want := map[string]string{"mine": CardRunning, "unnamed": CardRunning, "older": CardInterrupted}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
	if s := recordStates(records, "", Undone{}); s["mine"] != CardInterrupted || s["unnamed"] != CardInterrupted {
		t.Errorf("no live run: %v, want every pending record interrupted", s)
	}
}

func TestAnOpenedChatSaysTheStateOfEachCard(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if trail(req) == "U" {
			return toolTurn(tc("c1", "echo", `{"text":"hi"}`), tc("c2", "launch_rockets", `{}`))
		}
		return answer("ok")
	}}
	a, _, _ := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	out := runFake(t, a, "go")
	opened, err := a.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.ToolCalls) != 2 || opened.ToolStates["c1"] != CardCompleted || opened.ToolStates["c2"] != CardFailed {
		t.Errorf("tool states %v of %d records, want c1 completed and c2 failed", opened.ToolStates, len(opened.ToolCalls))
	}
}

// slowCompletion is a store whose disk takes a while to confirm a call's result.
type slowCompletion struct{ Store }

func (s slowCompletion) CompleteToolCall(chatID, id string, res store.ToolResult) (store.ToolCallRecord, error) {
	r, err := s.Store.CompleteToolCall(chatID, id, res)
	time.Sleep(30 * time.Millisecond)
	return r, err
}

// TestACallsCardAndItsRecordSayTheSameDuration: the duration a call's result carries is the
// one its record keeps, so a chat reopened says what the card said live, however long the
// record took to write.
func TestACallsCardAndItsRecordSayTheSameDuration(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAuto, cfg: func(c *Config) {
		c.Store = slowCompletion{c.Store}
	}})
	out := h.runCompleted(t, "write hello.txt")
	res := ofType(h.rec.events(), events.ToolResult)[0]
	recs, err := h.db.ToolCalls(out.ChatID)
	if err != nil || len(recs) != 1 {
		t.Fatalf("tool records = %+v, %v", recs, err)
	}
	if res.DurationMs == nil || *res.DurationMs != recs[0].DurationMs {
		t.Fatalf("the result says %v ms, its record %d ms", res.DurationMs, recs[0].DurationMs)
	}
}

// The window's opened-chat fixtures (frontend/src/test/contract, read by its contract test)
// carry the card states this package gives their records: each file's toolStates is what
// [RecordState] says, and so is the state its expect names for a card.
func TestTheWindowsFixturesCarryTheCardStatesGoGives(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "frontend", "src", "test", "contract", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var fixture struct {
				OpenedChat
				Expect map[string]string `json:"expect"`
			}
			if err := json.Unmarshal(raw, &fixture); err != nil {
				t.Fatal(err)
			}
			want := recordStates(fixture.ToolCalls, fixture.LiveRunID, Undone{}) // the fixtures hold no change records
			if os.Getenv("PROTOTYPER_PRINT_STATES") != "" {
				out, _ := json.Marshal(want)
				t.Logf("STATES %s %s", filepath.Base(f), out)
			}
			for id, state := range want {
				if fixture.ToolStates[id] != state {
					t.Errorf("toolStates[%s] = %q, RecordState gives %q", id, fixture.ToolStates[id], state)
				}
			}
			if len(fixture.ToolStates) != len(want) {
				t.Errorf("toolStates %v, want %v", fixture.ToolStates, want)
			}
			for id, state := range fixture.Expect {
				if want[id] != state {
					t.Errorf("expect[%s] = %q, RecordState gives %q", id, state, want[id])
				}
			}
		})
	}
}
