package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/store"
)

// TestACPAutoApproveNeverRunsAToolTheSettingsDeny: the editor's Auto-approve mode runs
// without asking what the settings would ask about, but a tool the settings deny stays
// denied, as in the window: no mode of the editor allows more than the window's settings.
func TestACPAutoApproveNeverRunsAToolTheSettingsDeny(t *testing.T) {
	db := dbWithToolApproval(t, map[string]string{"write_file": "deny"})
	a := startACP(t, db, "--model", acpWriterModel.Name)
	ws := t.TempDir()
	id := newACPSession(t, a.conn, ws, "auto")
	prompt(t, a.conn, id, sdk.TextBlock("Write hello.txt"))
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); err == nil {
		t.Error("Auto-approve wrote hello.txt, which the settings deny write_file")
	}
	if _, statuses, _ := callStatuses(a.client.of(id)); len(statuses) == 0 || statuses[len(statuses)-1] != sdk.ToolCallStatusFailed {
		t.Errorf("the call went %v, want failed (denied)", statuses)
	}
	if asked := a.client.askedCount(); asked != 0 {
		t.Errorf("%d permission requests, want none: a denied tool is not asked about", asked)
	}
}

// TestACPAutoApproveRunsWhatTheSettingsAskAboutWithoutAsking: in Auto-approve, a tool the
// settings ask about runs without a permission request.
func TestACPAutoApproveRunsWhatTheSettingsAskAboutWithoutAsking(t *testing.T) {
	db := dbWithToolApproval(t, map[string]string{"write_file": "ask"})
	a := startACP(t, db, "--model", acpWriterModel.Name)
	ws := t.TempDir()
	id := newACPSession(t, a.conn, ws, "auto")
	if resp := prompt(t, a.conn, id, sdk.TextBlock("Write hello.txt")); resp.StopReason != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from the editor\n" {
		t.Errorf("hello.txt = %q, %v; want it written", b, err)
	}
	if asked := a.client.askedCount(); asked != 0 {
		t.Errorf("%d permission requests, want none in Auto-approve", asked)
	}
}

// TestACPAutoApproveStillAsksAboutACallTheModelWroteAsText: a call the model wrote in its
// answer's text (it may have copied it from a file it read) is asked about even in
// Auto-approve, with the preview saying so; rejected, nothing is written.
func TestACPAutoApproveStillAsksAboutACallTheModelWroteAsText(t *testing.T) {
	a := startACP(t, filepath.Join(t.TempDir(), "p.db"), "--model", textWriterModel.Name)
	a.client.mu.Lock()
	a.client.answer = choose(sdk.PermissionOptionKindRejectOnce)
	a.client.mu.Unlock()
	ws := t.TempDir()
	id := newACPSession(t, a.conn, ws, "auto")
	prompt(t, a.conn, id, sdk.TextBlock("Write notes.txt"))
	a.client.mu.Lock()
	asked := a.client.asked
	a.client.mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("%d permission requests, want the text call asked about", len(asked))
	}
	said := ""
	for _, c := range asked[0].ToolCall.Content {
		if c.Content != nil && c.Content.Content.Text != nil {
			said += c.Content.Content.Text.Text
		}
	}
	if !strings.Contains(said, "as text") {
		t.Errorf("the request says %q, want that the model wrote the call as text", said)
	}
	if _, err := os.Stat(filepath.Join(ws, "notes.txt")); err == nil {
		t.Error("the rejected text call wrote notes.txt")
	}
}

// dbWithToolApproval is a new database whose settings approve tools as approval says.
func dbWithToolApproval(t *testing.T, approval map[string]string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "p.db")
	s, err := store.Open(db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.UpdateSettings(func(st *store.Settings) error {
		st.ToolApproval = approval
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return db
}
