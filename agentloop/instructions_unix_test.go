//go:build unix

package agentloop

import (
	"path/filepath"
	"syscall"
	"testing"

	"prototyper/store"
)

func TestAnAgentsMdThatIsNoFileIsNoInstructions(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan instructions, 1)
	go func() { done <- readInstructions(ws, store.Settings{}) }()
	if in := <-done; in.text() != "" {
		t.Fatalf("instructions %q from a pipe", in.text())
	}
}
