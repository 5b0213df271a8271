package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/tools"
)

func TestTheApprovalPromptShowsTheChangeItWouldMake(t *testing.T) {
	write := previewText(&tools.Preview{Path: "notes.md", Bytes: 15, Diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1,3 @@\n # Hello\n+\n+World\n"})
	if !strings.Contains(write, "This changes notes.md (15 bytes after)") || !strings.Contains(write, "+World") {
		t.Errorf("write preview:\n%s", write)
	}
	del := previewText(&tools.Preview{Path: "lib", Bytes: 3, NotUndoable: []string{"lib/big.bin"},
		Removes: []tools.Removal{{Path: "lib", Kind: tools.KindDir}, {Path: "lib/a.txt", Kind: tools.KindFile, Bytes: 3}}})
	for _, want := range []string{"This deletes 2 path(s), 3 bytes", "lib/a.txt (file, 3 bytes)", "lib/big.bin is too large to keep: this change cannot be undone"} {
		if !strings.Contains(del, want) {
			t.Errorf("delete preview lacks %q:\n%s", want, del)
		}
	}
	if previewText(nil) != "" {
		t.Error("a call without a preview shows nothing more")
	}
}

func TestOpenPathOpensOnlyWhatIsInsideTheChatsWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "index.html"), []byte("<h1>hi</h1>"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("no"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link"))
	record := filepath.Join(t.TempDir(), "opened")
	script := filepath.Join(t.TempDir(), "opener")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$1\" >> "+record+"\n"), 0o755)
	old := opener
	opener = script
	t.Cleanup(func() { opener = old })

	d, _ := openTestDesktop(t, DesktopOptions{Workspace: ws})
	chat, err := d.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.OpenPath(chat.ID, "index.html", false); err != nil {
		t.Fatal(err)
	}
	if err := d.OpenPath(chat.ID, "index.html", true); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../" + filepath.Base(outside) + "/secret.txt", "link", "/etc/passwd", "missing.txt"} {
		if err := d.OpenPath(chat.ID, bad, false); err == nil {
			t.Errorf("OpenPath(%q) opened something", bad)
		}
	}
	real, _ := filepath.EvalSymlinks(ws)
	want := []string{filepath.Join(real, "index.html"), real}
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := os.ReadFile(record)
		lines := strings.Fields(string(got))
		slices.Sort(lines)
		slices.Sort(want)
		if slices.Equal(lines, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("opened %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
