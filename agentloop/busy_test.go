package agentloop

import (
	"math"
	"strings"
	"testing"

	"prototyper/events"
)

// The window draws "busy" (spinner, Stop, the list's dot) as Go sends it: on every phase
// event, on the chat list's rows and on an opened chat.
func TestPhaseEventsChatRowsAndOpenedChatsCarryBusy(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAsk})
	out := h.runOnce(t, "write hello.txt", RunOptions{})
	if out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("outcome %+v, want paused on a call", out)
	}
	phases := ofType(h.rec.events(), events.PhaseChanged)
	sawBusy, sawIdle := false, false
	for _, e := range phases {
		if e.Busy != e.Phase.Busy() {
			t.Errorf("phase %s sent with busy=%v", e.Phase, e.Busy)
		}
		sawBusy = sawBusy || e.Busy
		sawIdle = sawIdle || !e.Busy
	}
	if !sawBusy || !sawIdle {
		t.Fatalf("phase events %+v: want busy ones and a paused one", phases)
	}
	opened, err := h.agent.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if opened.Phase != events.PhaseAwaitingApproval || opened.Busy || opened.Chat.Busy {
		t.Errorf("opened paused chat: phase %s busy %v, row busy %v", opened.Phase, opened.Busy, opened.Chat.Busy)
	}
	if row := h.agent.Summary(opened.Chat.Chat); row.Busy != row.Phase.Busy() {
		t.Errorf("row %s busy %v", row.Phase, row.Busy)
	}
}

// The budget carries EstimateTokens' parameters: a client that applies them to a text's
// UTF-8 bytes gets Go's estimate, for any text.
func TestABudgetsParametersGiveGosEstimate(t *testing.T) {
	b := budgetOfA16KModel(t)
	texts := []string{"hello, world", "ünïcödé ✓ 𝄞"}
	long := strings.Repeat("x", 20000)
	for n := range len(long) + 1 { // every length up to 20,000 bytes: the rounding at multiples agrees too
		texts = append(texts, long[:n])
	}
	for _, text := range texts {
		client := int(math.Floor(float64(len(text))/b.CharsPerToken)) + b.PerMessageTokens
		if got := EstimateTokens(text); got != client {
			t.Errorf("%q: Go estimates %d, the budget's parameters give %d", text, got, client)
		}
	}
}
