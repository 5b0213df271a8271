//go:build unix

package agentloop

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

const linkedSecret = "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA\n"

// An AGENTS.md that read_file would refuse is refused too, with the sentence the chat shows;
// one it would read (a link that stays inside) is read.
func TestAnAgentsMdIsReadOnlyAsReadFileWouldReadIt(t *testing.T) {
	cases := []struct {
		name  string
		make  func(t *testing.T, ws, outside string)
		says  string // "" when it is read
		files tools.WorkspaceOptions
	}{
		{"a link to a key outside", func(t *testing.T, ws, outside string) {
			symlink(t, filepath.Join(outside, "id_ed25519"), filepath.Join(ws, "AGENTS.md"))
		}, "it is a link to OUTSIDE/id_ed25519, outside the workspace; put the instructions in a file inside the workspace", tools.WorkspaceOptions{}},
		{"a relative link that climbs out", func(t *testing.T, ws, outside string) {
			symlink(t, "../outside/id_ed25519", filepath.Join(ws, "AGENTS.md"))
		}, "it is a link to ../outside/id_ed25519, outside the workspace", tools.WorkspaceOptions{}},
		{"a hard link to a key outside", func(t *testing.T, ws, outside string) {
			if err := os.Link(filepath.Join(outside, "id_ed25519"), filepath.Join(ws, "AGENTS.md")); err != nil {
				t.Skipf("hard links are not possible here: %v", err)
			}
		}, "it is a hard link", tools.WorkspaceOptions{}},
		{"a pipe", func(t *testing.T, ws, outside string) {
			if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "it is not a regular file (a folder, a pipe or a device); make it a plain text file", tools.WorkspaceOptions{}},
		{"a binary file", func(t *testing.T, ws, outside string) {
			writeFile(t, ws, "AGENTS.md", "Use tabs.\x00\x01\x02")
		}, "it is a binary file, not text; write the instructions as plain text", tools.WorkspaceOptions{}},
		{"a link to the app's configuration", func(t *testing.T, ws, outside string) {
			writeFile(t, ws, ".prototyper/mcp.json", `{"mcpServers":{}}`)
			symlink(t, ".prototyper/mcp.json", filepath.Join(ws, "AGENTS.md"))
		}, "it leads to Prototyper's own files; put the instructions in a file of their own", tools.WorkspaceOptions{ConfigDirs: []string{tools.WorkspaceConfigDir}}},
		{"a link that stays inside", func(t *testing.T, ws, outside string) {
			writeFile(t, ws, "docs/agents.md", "Use tabs.\n")
			symlink(t, "docs/agents.md", filepath.Join(ws, "AGENTS.md"))
		}, "", tools.WorkspaceOptions{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
			writeFile(t, outside, "id_ed25519", linkedSecret)
			if err := os.Mkdir(ws, 0o755); err != nil {
				t.Fatal(err)
			}
			c.make(t, ws, outside)
			a, _, _ := fakeHarness(t, &fakeModel{turn: func(model.Request) model.Turn { return answer("ok") }}, func(cfg *Config) { cfg.Files = c.files })
			done := make(chan instructions, 1)
			go func() { done <- a.readInstructions(context.Background(), ws, store.Settings{}) }()
			in := <-done // a pipe must not keep it waiting
			if c.says == "" {
				if in.file != "Use tabs." || in.refused != "" {
					t.Fatalf("read %q, refused %q", in.file, in.refused)
				}
				return
			}
			want := "AGENTS.md was not read, so the model runs without it: " + strings.ReplaceAll(c.says, "OUTSIDE", outside)
			if in.file != "" || !strings.HasPrefix(in.refused, want) {
				t.Fatalf("read %q, refused %q; want %q", in.file, in.refused, want)
			}
			if strings.Contains(in.refused, ". ") || strings.Contains(in.refused, "\n") {
				t.Fatalf("%q is not one sentence", in.refused)
			}
		})
	}
}

// The reproduced fault: AGENTS.md linked to a private key sent the key to the model server
// with every message and kept it in the chat. Now neither the requests nor the database
// hold it; the chat says, live and reopened, why AGENTS.md was not read, and the run goes on.
func TestAnAgentsMdLinkedOutsideNeverReachesTheModelNorTheStore(t *testing.T) {
	base := t.TempDir()
	ws, outside := filepath.Join(base, "ws"), filepath.Join(base, "outside")
	key := writeFile(t, outside, "id_ed25519", linkedSecret)
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	symlink(t, key, filepath.Join(ws, "AGENTS.md"))
	m := &fakeModel{turn: func(req model.Request) model.Turn { return answer("ok") }}
	a, db, rec := fakeHarness(t, m, func(c *Config) { c.Workspace = ws })
	out := runFake(t, a, "hi")
	if _, err := a.RunOnce(context.Background(), out.ChatID, "again", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(linkedSecret)
	for i, req := range m.reqs {
		for _, msg := range req.Messages {
			if strings.Contains(msg.Content, "b3BlbnNzaC1rZXkt") {
				t.Fatalf("request %d carries the key in a %s message", i, msg.Role)
			}
		}
	}
	if len(m.reqs) != 2 || out.StopReason != events.StopCompleted {
		t.Fatalf("%d requests, stop %q: the runs go on without the instructions", len(m.reqs), out.StopReason)
	}
	msgs, _ := db.Messages(out.ChatID)
	if roles(msgs) != "UAUA" {
		t.Fatalf("stored %q: no message shows instructions that were not read", roles(msgs))
	}
	want := "AGENTS.md was not read, so the model runs without it: it is a link to " + key + ", outside the workspace; put the instructions in a file inside the workspace"
	var said []string
	for _, e := range ofType(rec.events(), events.Error) {
		if e.Code == CodeInstructionsRefused && e.Retryable != nil && !*e.Retryable {
			said = append(said, e.Message)
		}
	}
	if len(said) != 2 || said[0] != want {
		t.Fatalf("the chat said %q, want %q once per run", said, want)
	}
	runs, err := db.RunsOf(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if len(r.Notes) != 1 || r.Notes[0].Code != CodeInstructionsRefused || r.Notes[0].Message != want {
			t.Fatalf("run %s keeps %+v", r.ID, r.Notes)
		}
	}
	a.Shutdown(context.Background())
	db.Close()
	raw, err := os.ReadFile(db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret[len(secret)-20:])) {
		t.Fatal("the database file holds the key")
	}
}

func symlink(t testing.TB, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}
