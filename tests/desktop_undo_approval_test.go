package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// pausedRunModel edits a.txt (allowed without asking), then writes b.txt (asked), then answers:
// its run waits for the user part-way.
var pausedRunModel = ollamatest.Model{Name: "e2e-paused-run", Scripts: ollamatest.Scripts{
	"SU":     ollamatest.ToolCall("edit_file", map[string]any{"path": "a.txt", "old_string": "original", "new_string": "edited"}),
	"SUAT":   ollamatest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "new\n"}),
	"SUATAT": []string{"Edited a.txt and created b.txt."},
}}

// A run that waited for an approval part-way is one change: the window shows one Undo for it,
// and one Alt+Z puts back every file it changed, before and after the approval.
func TestDesktopOneAltZUndoesARunThatWaitedForAnApproval(t *testing.T) {
	r := startDesktopRunWith(t, pausedRunModel, store.Settings{Think: "off",
		ToolApproval: map[string]string{"edit_file": "auto", "write_file": "ask"}}, "")
	r.writeFile(t, "a.txt", "original\n", 0o600)
	r.app.typeText("Edit a.txt, then create b.txt")
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	r.wantFile(t, "a.txt", "edited\n", 0o600)
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "b.txt", "new\n", 0o644)
	r.app.waitControlNamed(rolePushButton, "Undo the run that changed", 20*time.Second)
	var undos []string
	for _, n := range r.app.names(rolePushButton) {
		if strings.HasPrefix(n, `"Undo the run that changed`) {
			undos = append(undos, n)
		}
	}
	if len(undos) != 1 || !strings.Contains(undos[0], "a.txt") || !strings.Contains(undos[0], "b.txt") {
		t.Fatalf("the window offers %v, want one Undo for the run's two files (%s)", undos, r.app.screenshot("undo-approved-run-before.png"))
	}

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "b.txt", "", 0)
	r.app.waitNoControl(rolePushButton, undos[0][1:len(undos[0])-1], 20*time.Second)
	_, db := r.finish(t, "undo-approved-run.png")
	changes, _ := db.Changes(theOneChat(t, db).ID)
	if len(changes) != 2 || changes[0].Kind != store.ChangeRun || changes[1].Kind != store.ChangeUndo || len(changes[1].Reverts) != 1 {
		t.Errorf("changes %+v, want the run's one change and the undo that took it back", changes)
	}
}
