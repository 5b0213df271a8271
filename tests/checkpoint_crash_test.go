package tests

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// The checkpoint crash test re-runs this test binary as a child (TestCheckpointCrashChild)
// that lets an agent rewrite and create files in a workspace as fast as it can, each call
// checkpointed. The child prints "checkpoint" as soon as a call's pre-image is committed,
// before the tool writes. The parent kills it with SIGKILL, half the time right after such a
// line (between the pre-image and the write), half the time at a random moment, and then
// undoes the whole chat: every file must be back exactly as it was before the chat, and every
// file the chat created gone. A change whose pre-image was not stored could not be put back.

const (
	checkpointCrashEnv   = "PROTOTYPER_CHECKPOINT_CRASH"
	checkpointCrashKills = 10
	checkpointCrashFiles = 4
)

// crashFileContent is what file k holds before the chat.
func crashFileContent(k int) string { return fmt.Sprintf("file %d as the user left it\n", k) }

// crashWriter is a model that, for each message, writes one file: one of the user's files,
// or a new one, with a large content (so that the kill often lands while it is written).
type crashWriter struct{ n atomic.Int64 }

func (m *crashWriter) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m *crashWriter) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	if req.Messages[len(req.Messages)-1].Role != store.RoleUser {
		return model.Turn{Content: "done", DoneReason: model.DoneStop}, nil
	}
	i := m.n.Add(1)
	path := fmt.Sprintf("f%d.txt", i%checkpointCrashFiles)
	if i%3 == 0 {
		path = fmt.Sprintf("new/n%d.txt", i)
	}
	content := fmt.Sprintf("%d|%s", i, strings.Repeat("x", 512<<10))
	args := fmt.Sprintf(`{"path":%q,"content":%q}`, path, content)
	return model.Turn{DoneReason: model.DoneStop,
		ToolCalls: []store.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "write_file", Args: []byte(args)}}}, nil
}

// TestCheckpointCrashChild is the child of TestCheckpointCrashKilledBetweenPreImageAndWrite.
func TestCheckpointCrashChild(t *testing.T) {
	dir := os.Getenv(checkpointCrashEnv)
	if dir == "" {
		t.Skip("runs only as the child of the checkpoint crash test")
	}
	db := openChildDB(filepath.Join(dir, "p.db"), store.Options{LockTimeout: 10 * time.Second})
	emit := agentloop.EmitterFunc(func(e events.Event) {
		if e.Type == events.Checkpoint {
			os.Stdout.WriteString("checkpoint\n")
		}
	})
	ws := filepath.Join(dir, "ws")
	agent := agentloop.Wire(db, &crashWriter{}, emit, agentloop.WireOptions{Workspace: ws})
	chat := ""
	os.Stdout.WriteString("ready\n")
	// each call's half-megabyte content soon overflows the context: the older turns are left
	// out, never offered for a summary (an offer would pause the chat and end the writing)
	opts := agentloop.RunOptions{Model: "crash", Approve: agentloop.ApproveAuto, Workspace: ws, Summarize: store.SummarizeNever}
	for {
		out, err := agent.RunOnce(context.Background(), chat, "write", opts)
		if err != nil {
			fmt.Fprintln(os.Stderr, "child run:", err)
			os.Exit(3)
		}
		chat = out.ChatID
	}
}

func TestCheckpointCrashKilledBetweenPreImageAndWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process many times")
	}
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	for kill := range checkpointCrashKills {
		dir := t.TempDir()
		ws := filepath.Join(dir, "ws")
		if err := os.Mkdir(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		for k := range checkpointCrashFiles {
			if err := os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.txt", k)), []byte(crashFileContent(k)), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		afterCheckpoint := kill%2 == 0
		checkpoints := checkpointCrashChild(t, dir, r, afterCheckpoint)
		if afterCheckpoint && checkpoints == 0 {
			t.Fatalf("kill %d: the child never recorded a checkpoint", kill)
		}
		restoreAll(t, dir, kill)
	}
}

// checkpointCrashChild runs the child and kills it, right after a checkpoint line (after a few
// of them) or at a random moment; it returns how many checkpoints the child announced.
func checkpointCrashChild(t *testing.T, dir string, r *rand.Rand, afterCheckpoint bool) int {
	t.Helper()
	cmd, pipe, errBuf := startTestChild(t, "TestCheckpointCrashChild", checkpointCrashEnv+"="+dir)
	want := 1 + r.IntN(4)
	seen := 0
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		br := bufio.NewReader(pipe)
		deadline := time.Now().Add(time.Duration(50+r.IntN(700)) * time.Millisecond)
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			if line == "checkpoint\n" {
				seen++
				if afterCheckpoint && seen >= want {
					_ = cmd.Process.Signal(syscall.SIGKILL) // the pre-image is on disk; the write is not done
					return
				}
			}
			if !afterCheckpoint && time.Now().After(deadline) {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				return
			}
		}
	}()
	select {
	case <-killed:
	case <-time.After(60 * time.Second):
		t.Errorf("the child wrote nothing for a minute; stderr:\n%s", errBuf.String())
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	killTestChild(t, cmd, errBuf)
	return seen
}

// restoreAll undoes every run of the chat the child left and checks that the workspace is as
// it was before the chat.
func restoreAll(t *testing.T, dir string, kill int) {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "p.db"), store.Options{})
	if err != nil {
		t.Fatalf("kill %d: open after the kill: %v", kill, err)
	}
	defer db.Close()
	ws := filepath.Join(dir, "ws")
	chats, err := db.ListChats()
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) == 1 {
		runs, err := db.RunsOf(chats[0].ID)
		if err != nil || len(runs) == 0 {
			t.Fatalf("kill %d: runs %v, %v", kill, runs, err)
		}
		agent := agentloop.Wire(db, &crashWriter{}, agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{Workspace: ws})
		defer agent.Shutdown(context.Background())
		first := runs[0]
		for _, r := range runs {
			if r.StartedAt.Before(first.StartedAt) {
				first = r
			}
		}
		if _, err := agent.Undo(context.Background(), chats[0].ID, agentloop.UndoOptions{FromRun: first.ID}); err != nil &&
			!strings.Contains(err.Error(), "nothing to undo") {
			t.Fatalf("kill %d: undo of the whole chat: %v", kill, err)
		}
	}
	entries, _ := os.ReadDir(ws)
	var names []string
	for _, e := range entries {
		// A write killed before its rename leaves its temporary file (".NAME.tmp-…"), never a
		// changed file: it is not a change to take back.
		if strings.HasPrefix(e.Name(), ".") && strings.Contains(e.Name(), ".tmp-") {
			t.Logf("kill %d: a killed write left %s", kill, e.Name())
			continue
		}
		names = append(names, e.Name())
	}
	if len(names) != checkpointCrashFiles {
		t.Errorf("kill %d: the workspace holds %v after the undo, want only the user's %d files", kill, names, checkpointCrashFiles)
	}
	for k := range checkpointCrashFiles {
		p := filepath.Join(ws, fmt.Sprintf("f%d.txt", k))
		got, err := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if err != nil || string(got) != crashFileContent(k) || fi.Mode().Perm() != 0o640 {
			t.Errorf("kill %d: f%d.txt after the undo = %.40q (%v), %v; want it as the user left it", kill, k, got, fi.Mode().Perm(), err)
		}
	}
}
