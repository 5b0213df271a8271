package tests

import (
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// longPath is deep enough that the card's line cannot hold it whole in any layout.
const longPath = "site/assets/a/folder/name/that/goes/on/and/on/and/on/and/on/until/it/no/longer/fits/components/ToolCard.tsx"

// cardsModel writes a file at a long path, searches the workspace, reads a file that is not
// there (a failed call), then asks to delete the file (the user replies instead); after the
// reply it lists the workspace again and again (the loop guard refuses the repeats, then
// stops the run).
var cardsModel = ollamatest.Model{Name: "e2e-cards", Scripts: ollamatest.Scripts{
	"SU":       slices.Concat(ollamatest.Think("Write it."), ollamatest.ToolCall("write_file", map[string]any{"path": longPath, "content": "hello\n"})),
	"SUAT":     slices.Concat(ollamatest.Think("Find it."), ollamatest.ToolCall("search_files", map[string]any{"pattern": "hello", "path": "."})),
	"SUATAT":   slices.Concat(ollamatest.Think("Read it."), ollamatest.ToolCall("read_file", map[string]any{"path": "missing.txt"})),
	"SUATATAT": slices.Concat(ollamatest.Think("Remove it."), ollamatest.ToolCall("delete_path", map[string]any{"path": longPath})),
	// after the reply: the same call until the loop guard stops the run
	ollamatest.Fallback: slices.Concat(ollamatest.Think("Look."), ollamatest.ToolCall("list_dir", map[string]any{"path": "."})),
}}

// The tool cards of issue #16 and #17 in the real window, by keyboard only: a long path keeps
// its file name, a search shows its pattern, a failed call says why on its card; a call the
// user answered by replying, and the calls the loop guard refused, read "not run" (neutral,
// with the reason); the loop's stop sentence comes back when the chat is opened from the store;
// a listing of the workspace reads "the workspace", not "."; the run that wrote the long path
// changed that file (the folders it made are counted apart).
// The screenshots (tests/artifacts/cards-*.png) show each.
func TestDesktopToolCardsSayWhatACallIsAboutAndWhyItFailedOrDidNotRun(t *testing.T) {
	r := startDesktopRunWith(t, cardsModel,
		store.Settings{Think: "on", ToolApproval: map[string]string{"*": "auto", "delete_path": "ask"}}, "Make the site")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	time.Sleep(time.Second)
	r.app.screenshot("cards-path-search-failed.png")

	// quit while the delete waits; the window opened again shows the chat with the card
	// waiting, and the focus stays in the composer: the user replies instead of approving
	r.reopen(t, cardsModel, "bridge-reply")
	r.app.typeText("No, leave it")
	r.app.key("Return")
	replied := r.waitLog(t, events.RunFinished, true, 60*time.Second)
	time.Sleep(time.Second)
	r.app.screenshot("cards-not-run-live.png")

	// opened from the store: the cards still read "not run" and the loop's sentence is there;
	// the listing of the workspace says so in words, never "."
	r.reopen(t, cardsModel, "bridge-reopened")
	r.app.waitControl(rolePushButton, "Open the workspace", 20*time.Second)
	// the first run's Undo names the file it wrote, not the folders the write made for it
	r.app.waitControl(rolePushButton, "Undo the run that changed "+longPath, 20*time.Second)
	if dots := r.app.controls(rolePushButton, "Open ."); len(dots) != 0 {
		t.Errorf("%d buttons named %q: the listing of the workspace reads as \".\"", len(dots), "Open .")
	}
	shot, db := r.finish(t, "cards-reopened.png")
	t.Logf("the reopened chat: %s", shot)

	if !r.hasFile(longPath) {
		t.Error("the file at the long path is gone or was never written")
	}
	chat := theOneChat(t, db)
	calls, _ := db.ToolCalls(chat.ID)
	var got []string
	for _, c := range calls {
		state := "failed"
		switch {
		case c.NotRun != "":
			state = "not run (" + c.NotRun + ")"
		case c.OK:
			state = "ok"
		}
		got = append(got, c.Name+" "+state)
	}
	want := []string{"write_file ok", "search_files ok", "read_file failed", "delete_path not run (replied)",
		"list_dir ok", "list_dir not run (repeated)", "list_dir not run (loop)"}
	if !slices.Equal(got, want) {
		t.Errorf("tool calls:\n got %v\nwant %v", got, want)
	}
	// a call that did not run was never painted running; the one that ran was
	painted := map[string]bool{}
	for _, l := range replied {
		for _, id := range l.Running {
			painted[id] = true
		}
	}
	for _, c := range calls[3:] {
		if painted[c.ID] != (c.NotRun == "") {
			t.Errorf("%s (not run: %q) painted running: %v", c.Name, c.NotRun, painted[c.ID])
		}
	}
	runs, err := db.RunsOf(chat.ID)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs = %+v, %v; want the paused one and the one stopped as a loop", runs, err)
	}
	loop := runs[1]
	if loop.StopReason != events.StopLoop || len(loop.Notes) != 1 || loop.Notes[0].StopReason != events.StopLoop ||
		!strings.Contains(loop.Notes[0].Message, "list_dir") {
		t.Errorf("the loop's run = stop %q, notes %+v; want its sentence naming list_dir kept with it", loop.StopReason, loop.Notes)
	}
}
