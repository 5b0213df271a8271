package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/internal/tether"
	"prototyper/store"
	"prototyper/tools"
)

const devServerPage = `<!doctype html><html><head><title>Dev</title></head><body><h1>Served by the dev server</h1></body></html>`

// devServerCommand is the server devServerModel starts; its port doubles as a marker of its
// process.
const devServerCommand = "python3 -m http.server 8731 --bind 127.0.0.1"

// devServerModel writes a page and starts a server of the folder in the sandbox.
var devServerModel = ollamatest.Model{Name: "e2e-dev-server", Scripts: ollamatest.Scripts{
	"SU":     ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": devServerPage}),
	"SUAT":   ollamatest.ToolCall(tools.StartServer, map[string]any{"command": devServerCommand}),
	"SUATAT": []string{"The server runs on port 8731."},
}}

// serverProcesses lists the processes whose command line is devServerCommand's.
func serverProcesses() []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte("http.server\x008731")) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// In the real window: a run starts python3 -m http.server in the sandbox (asked, allowed with
// Alt+A); the Preview pane (Alt+P) offers it, shows its page through the app's forward and its
// log as it comes; the server keeps running after the run; Stop ends it and its process.
func TestDesktopPreviewPaneShowsADevServerAndStopEndsIt(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, devServerModel,
		store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "auto"}}, "Serve the page")
	r.waitLog(t, events.ToolApprovalRequest, true, 90*time.Second)
	if !r.app.says(devServerCommand) {
		t.Errorf("the approval card does not show the server's command: %s", r.app.screenshot("devserver-approval.png"))
	}
	if !r.app.says("This server keeps running after the run") {
		t.Errorf("the approval card does not say the server keeps running: %s", r.app.screenshot("devserver-approval.png"))
	}
	r.app.key("alt+a")
	r.waitResumedFinished(t, 90*time.Second) // the run paused for the approval, then went on
	if len(serverProcesses()) == 0 {
		t.Fatalf("the server does not run after its run ended")
	}

	r.app.key("alt+p")
	r.app.press("Preview the server at :8731")
	if !r.app.says("Served by the dev server") {
		t.Fatalf("the pane does not show the server's page: %s", r.app.screenshot("devserver-page.png"))
	}
	out := r.app.waitNamedText("Output of the server at :8731", 30*time.Second, "GET / HTTP/1.1")
	t.Logf("the server's output, as the window reads it:\n%s", out)
	r.app.screenshot("devserver-shown.png")

	r.app.press("Stop the server at :8731")
	if !r.app.says("The server was stopped.") {
		t.Errorf("the pane does not say the server stopped: %s", r.app.screenshot("devserver-stopped.png"))
	}
	for deadline := time.Now().Add(10 * time.Second); len(serverProcesses()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's process %v still runs after Stop", serverProcesses())
		}
	}
	if len(r.app.textsWith("Preview the server at :8731")) > 0 {
		t.Errorf("the pane still offers the stopped server")
	}
	if _, err := os.Stat(filepath.Join(r.workspace, "index.html")); err != nil {
		t.Errorf("the page the run wrote: %v", err)
	}
	_, db := r.finish(t, "devserver-stopped.png")
	chat := theOneChat(t, db)
	calls, _ := db.ToolCalls(chat.ID)
	var started bool
	for _, c := range calls {
		if c.Name == tools.StartServer && strings.Contains(c.Output, "listens on port 8731") {
			started = true
		}
	}
	if !started {
		t.Errorf("start_server's result: %+v", calls)
	}
}

// The window killed with SIGKILL while a server it started runs and is shown: the server, its
// sandbox and the dialer that reaches its port are all gone.
func TestDesktopADevServerEndsWhenTheWindowIsKilled(t *testing.T) {
	r := startDesktopRunWith(t, devServerModel,
		store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "auto", tools.StartServer: "auto"}}, "Serve the page")
	r.waitLogN(t, events.RunFinished, 1, true, 90*time.Second)
	r.app.key("alt+p")
	r.app.press("Preview the server at :8731")
	if !r.app.says("Served by the dev server") {
		t.Fatalf("the pane does not show the server's page: %s", r.app.screenshot("devserver-killed.png"))
	}
	server := serverProcesses()
	if len(server) == 0 {
		t.Fatal("the server does not run")
	}
	all := tether.Descendants(r.app.cmd.Process.Pid) // the server's sandbox, the dialer, the web view's
	killed := time.Now()
	_ = r.app.cmd.Process.Signal(syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); len(serverProcesses()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server %v outlived the window", serverProcesses())
		}
	}
	t.Logf("the server was gone %s after the window's SIGKILL", time.Since(killed).Round(time.Millisecond))
	_ = r.app.waitExit(10 * time.Second)
	waitTreeGone(t, all, 10*time.Second)
}
