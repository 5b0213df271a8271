package tests

import (
	"slices"
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
	client := ollama.New(ollamatest.BaseURL(t))
	ctx := ollamatest.Context(t)
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

	r.wantWritten(t, "notes.txt", "from text\n") // the call written as text ran
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
