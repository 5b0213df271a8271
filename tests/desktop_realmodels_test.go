package tests

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/agentloop/ollama"
	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// misbehavingModel does what real local models do: it writes its first call as JSON text,
// then lists the workspace again and again.
var misbehavingModel = ollamatest.Model{Name: "e2e-misbehaving", Scripts: ollamatest.Scripts{
	"SU": slices.Concat(ollamatest.Think("Write the notes."),
		[]string{"```json\n", `{"name": "write_file", "arguments": {"path": "notes.txt", "content": "from text\n"}}`, "\n```"}),
	"SUAT":              slices.Concat(ollamatest.Think("Look."), ollamatest.ToolCall("list_dir", map[string]any{"path": "."})),
	ollamatest.Fallback: slices.Concat(ollamatest.Think("Again."), ollamatest.ToolCall("list_dir", map[string]any{"path": "."})),
}}

// TestDesktopAColdModelALoopAndACallWrittenAsText: the model is not loaded when the message
// goes (the window says it is loading), its call written as text runs as a card, and its
// loop ends the run with the sentence naming the call.
func TestDesktopAColdModelALoopAndACallWrittenAsText(t *testing.T) {
	r := startDesktopRunWith(t, misbehavingModel, store.Settings{Think: "on", ToolApproval: map[string]string{"*": "auto"}}, "")
	client := ollama.New(mustHost(t, ollamatest.Get(t).URL()))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// the window preloads the model it starts with: wait for that, then unload it again
	for loaded := false; !loaded; time.Sleep(100 * time.Millisecond) {
		var err error
		if loaded, err = client.IsLoaded(ctx, misbehavingModel.Name); err != nil || ctx.Err() != nil {
			t.Fatalf("the window did not preload %s: %v", misbehavingModel.Name, err)
		}
	}
	if _, err := client.Load(ctx, misbehavingModel.Name, ollama.KeepAliveFor(0), nil); err != nil {
		t.Fatal(err)
	}
	for loaded := true; loaded; time.Sleep(50 * time.Millisecond) {
		loaded, _ = client.IsLoaded(ctx, misbehavingModel.Name)
	}

	r.app.typeText("Write notes.txt")
	r.app.key("Return")
	r.waitLog(t, events.ModelLoading, true, 60*time.Second)
	r.app.screenshot("e2e-misbehaving-loading.png")
	lines := r.waitFinished(t, 120*time.Second)
	shot, db := r.finish(t, "e2e-misbehaving.png")
	t.Logf("screenshot after the run: %s", shot)

	if got, err := os.ReadFile(filepath.Join(r.workspace, "notes.txt")); err != nil || string(got) != "from text\n" {
		t.Errorf("notes.txt = %q, %v; the call written as text should have run", got, err)
	}
	chats, err := db.ListChats()
	if err != nil || len(chats) != 1 {
		t.Fatalf("chats = %v, %v", chats, err)
	}
	runs, _ := db.RunsOf(chats[0].ID)
	if len(runs) != 1 || runs[0].StopReason != events.StopLoop {
		t.Fatalf("runs %+v; want one stopped as a loop", runs)
	}
	calls, _ := db.ToolCalls(chats[0].ID)
	if len(calls) != 4 || calls[0].Name != "write_file" || !calls[0].Recovered {
		t.Fatalf("tool records %+v; want the recovered write, one list_dir, the notice and the stopped call", calls)
	}
	// the two calls that ran were painted running before their results; the notice and the
	// stopped call never ran
	painted := map[string]bool{}
	sent := map[string]bool{}
	for _, l := range lines {
		if l.Kind == events.LogKindAck {
			for _, id := range l.Running {
				painted[id] = true
			}
			continue
		}
		for _, e := range l.Events {
			if e.Type == events.ToolResult {
				sent[e.ToolCallID] = painted[e.ToolCallID]
			}
		}
	}
	for i, c := range calls {
		ran := !c.StartedAt.IsZero()
		if ran != (i < 2) {
			t.Errorf("call %d (%s) ran: %v", i, c.Name, ran)
		}
		if ranPainted, ok := sent[c.ID]; !ok || ran && !ranPainted {
			t.Errorf("call %d (%s): result sent %v, painted running first %v", i, c.Name, ok, ranPainted)
		}
	}
}

// noterModel answers every message, and every request for a summary, with "Noted."
var noterModel = ollamatest.Model{Name: "e2e-noter", NoThinking: true, Scripts: ollamatest.Scripts{
	ollamatest.Fallback: {"Noted", "."},
}}

// countLogged counts the events of type typ the bridge sent, and returns the seq of the last.
func countLogged(lines []bridgeLine, typ events.Type) (n int, last uint64) {
	for _, l := range lines {
		for _, e := range l.Events {
			if e.Type == typ {
				n, last = n+1, e.Seq
			}
		}
	}
	return n, last
}

// sendUntilOffered types long messages into the composer, one run after the other, until the
// window has painted the offers-th offer to summarize older messages.
func (r *desktopRun) sendUntilOffered(t *testing.T, offers int) {
	t.Helper()
	for i := 0; i < 10; i++ {
		finished, _ := countLogged(readBridgeLog(t, r.bridgeLog), events.RunFinished)
		r.app.typeText(fmt.Sprintf("Note %d: %s", i, strings.Repeat("lorem ipsum ", 40)))
		r.app.key("Return")
		lines := r.waitLogN(t, events.RunFinished, finished+1, true, 120*time.Second)
		if n, _ := countLogged(lines, events.SummaryOffered); n == offers {
			return
		}
	}
	t.Fatalf("no offer to summarize after ten long messages; bridge log:\n%s", mustRead(r.bridgeLog))
}

// TestDesktopOlderMessagesOfferedThenSummarizedThenLeftOut: in a chat whose model has a small
// context, the window offers to summarize the messages that no longer fit; Alt+S has the model
// summarize them (the summary is painted in the chat); the next offer still waits after the app
// is quit and opened again, and Alt+O leaves them out. Both answers are kept with their runs.
func TestDesktopOlderMessagesOfferedThenSummarizedThenLeftOut(t *testing.T) {
	r := startDesktopRunWith(t, noterModel, store.Settings{ContextCap: 2048}, "")
	r.sendUntilOffered(t, 1)
	r.app.waitControl(rolePushButton, "Summarize", 20*time.Second)
	r.app.waitControl(rolePushButton, "Leave out", 20*time.Second)
	r.app.screenshot("e2e-summary-offer.png")
	finished, _ := countLogged(readBridgeLog(t, r.bridgeLog), events.RunFinished)
	r.app.key("alt+s")
	lines := r.waitLogN(t, events.RunFinished, finished+1, true, 120*time.Second)
	// the summary is the first message the resumed run starts, and the window painted it
	_, answered := countLogged(lines, events.SummaryAnswered)
	var summarySeq uint64
	for _, l := range lines {
		for _, e := range l.Events {
			if summarySeq == 0 && e.Type == events.MessageStarted && e.Seq > answered && answered > 0 {
				summarySeq = e.Seq
			}
		}
	}
	painted := false
	for _, l := range lines {
		painted = painted || summarySeq > 0 && l.Kind == events.LogKindAck && l.Seq >= summarySeq
	}
	if !painted {
		t.Fatalf("the summary (seq %d) was not painted; bridge log:\n%s", summarySeq, bridgeLogText(lines))
	}
	r.app.screenshot("e2e-summary-made.png")

	// the next offer waits across a restart of the app, and Alt+O leaves the older messages out
	r.sendUntilOffered(t, 2)
	r.reopen(t, noterModel, "e2e-summary-reopened")
	r.app.waitControl(rolePushButton, "Leave out", 20*time.Second)
	r.app.screenshot("e2e-summary-offer-reopened.png")
	r.app.key("alt+o")
	lines = r.waitLogN(t, events.RunFinished, 1, true, 120*time.Second)
	if n, _ := countLogged(lines, events.ContextTruncated); n == 0 {
		t.Fatalf("leaving out said nothing; bridge log:\n%s", bridgeLogText(lines))
	}
	_, db := r.finish(t, "e2e-summary-left-out.png")
	chats, err := db.ListChats()
	if err != nil || len(chats) != 1 {
		t.Fatalf("chats = %v, %v", chats, err)
	}
	runs, _ := db.RunsOf(chats[0].ID)
	var choices []string
	for _, run := range runs {
		for _, n := range run.Notes {
			if n.Offer != nil {
				choices = append(choices, n.Offer.Choice)
			}
		}
	}
	if !slices.Equal(choices, []string{store.SummaryChoiceSummarize, store.SummaryChoiceLeaveOut}) {
		t.Fatalf("the offers' answers kept: %q", choices)
	}
	msgs, _ := db.Messages(chats[0].ID)
	summaries := 0
	for _, m := range msgs {
		if m.SummaryOf != "" && m.Content == "Noted." {
			summaries++
		}
	}
	if summaries != 1 {
		t.Fatalf("%d summaries stored, want 1", summaries)
	}
}

func mustHost(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := ollama.ResolveHost(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
