package cli

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/model/ollama"
)

// refusingURL is a loopback address where nothing listens.
func refusingURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

// TestCommandsWithoutAServerOrAnOllamaToStartSayThereIsNoServer: with nothing answering and
// no ollama program anywhere, run (with or without a model), models and pull each say in one
// line that there is no server and how to get one; run never says "no model chosen" first.
func TestCommandsWithoutAServerOrAnOllamaToStartSayThereIsNoServer(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no ollama on it
	t.Setenv("PROTOTYPER_DB", "")
	url := refusingURL(t)
	db := filepath.Join(t.TempDir(), "p.db")
	for _, tc := range []struct {
		name string
		cmd  func(context.Context, []string, IO) int
		args []string
	}{
		{"run without a model", runCommand, []string{"--workspace", t.TempDir(), "hi"}},
		{"run with a model", runCommand, []string{"--workspace", t.TempDir(), "--model", "m", "hi"}},
		{"models", modelsCommand, nil},
		{"pull", pullCommand, []string{"qwen3:4b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runIn(context.Background(), tc.cmd, append([]string{"--ollama", url, "--db", db}, tc.args...)...)
			if code != ExitFailed || strings.Count(errOut, "\n") != 1 {
				t.Fatalf("exit %d, stderr %q; want exit 1 and one line", code, errOut)
			}
			for _, want := range []string{"Ollama is not running at " + url, "no ollama program was found", "https://ollama.com/download"} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q does not say %q", errOut, want)
				}
			}
			if strings.Contains(errOut, "no model chosen") || strings.Contains(errOut, "`ollama serve`") {
				t.Errorf("stderr %q gives advice that does not run here", errOut)
			}
		})
	}
}

// TestNoServerOnAnotherMachineIsNotToldToStartOneHere: the serve command a hint names starts a
// server on this machine only, so a remote address that does not answer gets no such hint.
func TestNoServerOnAnotherMachineIsNotToldToStartOneHere(t *testing.T) {
	got := terminalWords(&ollama.NotRunningError{URL: "http://10.0.0.7:11434"})
	if strings.Contains(got, "serve`") || !strings.Contains(got, "start it on that machine") {
		t.Errorf("terminalWords = %q; want no local serve command for a remote address", got)
	}
}
