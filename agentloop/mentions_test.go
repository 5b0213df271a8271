package agentloop

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/model"
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
	writeFile(t, ws, "notes.txt", "buy milk\n")
	m := &fakeModel{turn: func(req model.Request) model.Turn { return answer("ok") }}
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
	writeFile(t, dir, "secret.txt", "hunter2")
	ws := filepath.Dir(writeFile(t, dir, "ws/notes.txt", "buy milk\n"))
	m := &fakeModel{turn: func(req model.Request) model.Turn { return answer("ok") }}
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

// The app's configuration is attached no more than a tool reads it: an @-mention of the
// workspace's MCP servers refuses the message with the sentence read_file says.
func TestTheAppsConfigurationIsNeverAttached(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, ".prototyper/mcp.json", `{"mcpServers":{"x":{"command":"/usr/bin/true"}}}`)
	m := &fakeModel{turn: func(req model.Request) model.Turn { return answer("ok") }}
	a, db, _ := fakeHarness(t, m, func(c *Config) {
		c.Workspace = ws
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{ConfigDirs: appConfigDirs()})
	})
	for _, p := range []string{".prototyper/mcp.json", "src/../.prototyper/./mcp.json"} {
		_, err := a.RunOnce(context.Background(), "", "what is in @"+p, RunOptions{})
		if !errors.Is(err, ErrBadMention) || !strings.Contains(err.Error(), "is Prototyper's own configuration") || len(m.reqs) != 0 {
			t.Fatalf("@%s: err = %v after %d requests", p, err, len(m.reqs))
		}
	}
	noChats(t, db)
}
