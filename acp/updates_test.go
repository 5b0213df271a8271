package acp

import (
	"bufio"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/events"
	"prototyper/store"
)

// wire records, in order, every message the agent side writes, and takes slow to write each
// in_progress update: an editor that reads its pipe late.
type wire struct {
	w    io.Writer
	slow time.Duration

	mu    sync.Mutex
	lines []string // each message when its write began, "<-" + message when it returned
}

func (w *wire) Write(p []byte) (int, error) {
	line := strings.TrimSpace(string(p))
	w.mu.Lock()
	w.lines = append(w.lines, line)
	w.mu.Unlock()
	if strings.Contains(line, `"in_progress"`) {
		time.Sleep(w.slow)
	}
	n, err := w.w.Write(p)
	w.mu.Lock()
	w.lines = append(w.lines, "<-"+line)
	w.mu.Unlock()
	return n, err
}

// index is the position of the first recorded line holding all of parts, or -1.
func (w *wire) index(parts ...string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
next:
	for i, l := range w.lines {
		for _, p := range parts {
			if !strings.Contains(l, p) {
				continue next
			}
		}
		return i
	}
	return -1
}

// serverOn is a Server whose connection writes through w and reads from r, with a chat of
// its own open as a session, delivering through a bridge of its sink.
func serverOn(t *testing.T, w io.Writer, r io.Reader) (*Server, *events.Bridge, string) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	c, err := db.CreateChat(store.Chat{Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{cfg: Config{DB: db}, sessions: map[string]*session{}, ready: make(chan struct{})}
	s.conn = sdk.NewAgentSideConnection(s, flushing{w}, r)
	close(s.ready)
	s.open(c.ID)
	b, err := events.NewBridge(updateSink{s}, events.WithLogFile(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return s, b, c.ID
}

// TestToolCallInProgressIsWrittenBeforeItsCompletedUpdateHoweverFastTheTool: a call whose
// result is emitted right after its running card, to an editor slow to read, still has its
// in_progress update written whole to stdout before its completed update begins.
func TestToolCallInProgressIsWrittenBeforeItsCompletedUpdateHoweverFastTheTool(t *testing.T) {
	agentOut, editorIn := io.Pipe()
	agentIn, _ := io.Pipe()
	w := &wire{w: editorIn, slow: 200 * time.Millisecond}
	go func() { // the editor reads what it is sent
		sc := bufio.NewScanner(agentOut)
		for sc.Scan() {
		}
	}()
	_, b, chat := serverOn(t, w, agentIn)
	ok := true
	args := json.RawMessage(`{"path":"a.txt"}`)
	b.Emit(events.Event{ChatID: chat, RunID: "r", Type: events.ToolCall, ToolCallID: "c1", Name: "read_file", Args: args, State: events.ToolStatePending})
	b.Emit(events.Event{ChatID: chat, RunID: "r", Type: events.ToolCall, ToolCallID: "c1", Name: "read_file", Args: args, State: events.ToolStateRunning})
	b.Emit(events.Event{ChatID: chat, RunID: "r", Type: events.ToolResult, ToolCallID: "c1", Name: "read_file", OK: &ok, Output: "a"})
	deadline := time.Now().Add(10 * time.Second)
	for w.index("<-", `"completed"`) < 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the completed update was never written: %q", w.lines)
		}
		time.Sleep(10 * time.Millisecond)
	}
	started := w.index(`"tool_call"`, `"pending"`)
	running := w.index("<-", `"in_progress"`)
	completed := w.index(`"completed"`)
	if started < 0 || running < 0 || completed < running || started > running {
		t.Errorf("written in this order: %q; want the pending call, the in_progress update written whole, then completed", w.lines)
	}
}

func TestDiffContentShowsEachHunkAsItsOldAndNewText(t *testing.T) {
	unified := "--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n@@ -10,2 +10,2 @@\n ten\n-eleven\n+ELEVEN\n"
	got := diffContent("/ws/f.txt", unified)
	if len(got) != 2 {
		t.Fatalf("%d contents, want one per hunk", len(got))
	}
	d := got[0].Diff
	if d == nil || d.Path != "/ws/f.txt" || d.OldText == nil || *d.OldText != "one\ntwo\nthree\n" || d.NewText != "one\nTWO\nthree\n" {
		t.Errorf("first hunk = %+v", d)
	}
	created := diffContent("/ws/n.txt", "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+new\n")
	if len(created) != 1 || created[0].Diff.OldText != nil || created[0].Diff.NewText != "new\n" {
		t.Errorf("a created file's diff = %+v, want no old text", created)
	}
}

func TestPromptNamesWorkspaceResourcesAsMentions(t *testing.T) {
	ws := "/home/u/site"
	text, images, err := promptOf(ws, []sdk.ContentBlock{
		sdk.TextBlock("Fix"),
		sdk.ResourceLinkBlock("index.html", "file:///home/u/site/src/index.html"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///etc/hosts", Text: "127.0.0.1 localhost"}}),
		sdk.ImageBlock("aGk=", "image/png"),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "Fix @src/index.html file:///etc/hosts:\n```\n127.0.0.1 localhost\n```"
	if text != want || len(images) != 1 || string(images[0]) != "hi" {
		t.Errorf("promptOf = %q, %q; want %q and the image", text, images, want)
	}
	if _, _, err := promptOf(ws, []sdk.ContentBlock{sdk.AudioBlock("aGk=", "audio/wav")}); err == nil {
		t.Error("audio was taken")
	}
}

// TestAFinishedCallKeepsNoCommandOutput: the output tail a command's updates carry is let go
// once its call has finished (a long session of commands would otherwise hold 64 KiB each).
func TestAFinishedCallKeepsNoCommandOutput(t *testing.T) {
	s, b, chat := serverOn(t, io.Discard, strings.NewReader(""))
	ok := true
	args := json.RawMessage(`{"command":"yes"}`)
	b.Emit(events.Event{ChatID: chat, RunID: "r", Type: events.ToolCall, ToolCallID: "c1", Name: "run_command", Args: args, State: events.ToolStateRunning})
	b.Emit(events.Event{ChatID: chat, RunID: "r", Type: events.ToolOutput, ToolCallID: "c1", Name: "run_command", Text: strings.Repeat("y\n", 1000)})
	b.Emit(events.Event{ChatID: chat, RunID: "r", Type: events.ToolResult, ToolCallID: "c1", Name: "run_command", OK: &ok, Output: "done"})
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	sess := s.session(sdk.SessionId(chat))
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if v := sess.calls["c1"]; v == nil || len(v.output) != 0 {
		t.Errorf("after its result the call keeps %d bytes of output, want none", len(v.output))
	}
}
