package agentloop

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/tools"
)

func TestMentionedPathsAreWordsThatStartWithAt(t *testing.T) {
	got := mentionedPaths("see @src/app.go, then @README.md. mail me@example.com or @src/app.go again (@docs/a.md)")
	want := []string{"src/app.go", "README.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("mentionedPaths = %q, want %q", got, want)
	}
}

func TestAFileNamedWithAtGoesWithTheMessageAndIsStoredWithIt(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn { return answer("ok") }}
	a, db, _ := fakeHarness(t, m, func(c *Config) {
		c.Workspace = ws
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
	})
	out := runFake(t, a, "what is in @notes.txt? ask @alice")
	last := m.reqs[0].Messages[len(m.reqs[0].Messages)-1]
	if last.Content != "what is in @notes.txt? ask @alice\n\n<file path=\"notes.txt\">\nbuy milk\n</file>" {
		t.Fatalf("the model read %q", last.Content)
	}
	msgs, _ := db.Messages(out.ChatID)
	if msgs[0].Content != "what is in @notes.txt? ask @alice" || len(msgs[0].Files) != 1 || msgs[0].Files[0].Path != "notes.txt" {
		t.Fatalf("stored %+v", msgs[0])
	}
}

func TestAFileOutsideTheWorkspaceIsNeverAttached(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	_ = os.Mkdir(ws, 0o755)
	_ = os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("hunter2"), 0o644)
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn { return answer("ok") }}
	a, db, _ := fakeHarness(t, m, func(c *Config) {
		c.Workspace = ws
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
	})
	_, err := a.RunOnce(context.Background(), "", "read @../secret.txt", RunOptions{})
	if !errors.Is(err, ErrBadMention) || !strings.Contains(err.Error(), "@../secret.txt") || len(m.reqs) != 0 {
		t.Fatalf("err = %v after %d requests", err, len(m.reqs))
	}
	noChats(t, db)
}
