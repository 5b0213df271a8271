package tests

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
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

// The undo crash test makes one run rewrite many files, then re-runs this test binary as a
// child (TestUndoCrashChild) that undoes the run, or redoes it, and kills the child with
// SIGKILL at many points: at spread delays after it begins, and right after a chosen file of
// the restore was written (mid-restore for certain). After each kill, a plain undo (or redo,
// the one the child was doing) must complete, the files must be byte for byte what it puts
// back, and no temporary file may be left. Then the next child does the other.

const (
	undoCrashEnv   = "PROTOTYPER_UNDO_CRASH"
	undoCrashKills = 32
	undoCrashFiles = 100
)

// undoCrashPath is where file k of the run is: spread over folders.
func undoCrashPath(k int) string { return fmt.Sprintf("d%d/f%03d.txt", k%5, k) }

// undoCrashOdd are the files of the folder "odd", which the run deletes: names no model could
// give (control characters, bytes that are not UTF-8), put back by an undo all the same.
var undoCrashOdd = []string{"odd/esc\x1b[1mbold.txt", "odd/caf\xe9.txt", "odd/new\nline", "odd/plain.txt"}

// undoCrashContent is what file k holds before the run (version 0) or after it (1).
func undoCrashContent(k, version int) string {
	return fmt.Sprintf("file %d, version %d\n%s", k, version, strings.Repeat(fmt.Sprintf("%d.%d ", k, version), 2000))
}

// undoCrashWriter is a model whose one turn writes every file with its version 1.
type undoCrashWriter struct{}

func (undoCrashWriter) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (undoCrashWriter) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	if req.Messages[len(req.Messages)-1].Role != store.RoleUser {
		return model.Turn{Content: "done", DoneReason: model.DoneStop}, nil
	}
	var calls []store.ToolCall
	for k := range undoCrashFiles {
		args := fmt.Sprintf(`{"path":%q,"content":%q}`, undoCrashPath(k), undoCrashContent(k, 1))
		calls = append(calls, store.ToolCall{ID: fmt.Sprintf("c%d", k), Name: "write_file", Args: []byte(args)})
	}
	calls = append(calls, store.ToolCall{ID: "rm", Name: "delete_path", Args: []byte(`{"path":"odd","recursive":true}`)})
	return model.Turn{DoneReason: model.DoneStop, ToolCalls: calls}, nil
}

// TestUndoCrashChild is the child of TestUndoAndRedoKilledAtAnyMomentContinueAndLeaveNoTemporaryFile:
// it undoes (or redoes) the chat named in its environment, saying "begin" first.
func TestUndoCrashChild(t *testing.T) {
	env := os.Getenv(undoCrashEnv)
	if env == "" {
		t.Skip("runs only as the child of the undo crash test")
	}
	dir, op, chat := splitUndoCrashEnv(env)
	db := openChildDB(filepath.Join(dir, "p.db"), store.Options{LockTimeout: 10 * time.Second})
	agent := agentloop.Wire(db, undoCrashWriter{}, agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{})
	os.Stdout.WriteString("begin\n")
	var err error
	if op == "redo" {
		_, err = agent.Redo(context.Background(), chat, agentloop.UndoOptions{})
	} else {
		_, err = agent.Undo(context.Background(), chat, agentloop.UndoOptions{})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "child "+op+":", err)
		os.Exit(3)
	}
	os.Stdout.WriteString("done\n")
	os.Exit(0)
}

func splitUndoCrashEnv(env string) (dir, op, chat string) {
	parts := strings.SplitN(env, "|", 3)
	return parts[0], parts[1], parts[2]
}

func TestUndoAndRedoKilledAtAnyMomentContinueAndLeaveNoTemporaryFile(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a child process many times")
	}
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	for k := range undoCrashFiles {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ws, undoCrashPath(k))), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ws, undoCrashPath(k)), undoCrashContent(k, 0), 0o640)
	}
	if err := os.Mkdir(filepath.Join(ws, "odd"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i, p := range undoCrashOdd {
		writeFile(t, filepath.Join(ws, p), undoCrashContent(-i, 0), 0o640)
	}
	chat := undoCrashRun(t, dir, ws)
	wantVersion(t, ws, 1)

	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11))
	op, version := "undo", 0 // what the next child does, and the version it leaves
	var took time.Duration   // how long an undo took, uninterrupted: the spread of the delays
	midway := 0
	for kill := range undoCrashKills {
		if kill == 0 {
			took = undoCrashChild(t, dir, chat, op, nil)
		} else {
			var at undoCrashKill
			if kill%2 == 0 {
				at.after = time.Duration(r.Int64N(int64(took) + 1))
			} else {
				k := 1 + r.IntN(undoCrashFiles-10) // a file written before the last few: mid-restore
				at.written = filepath.Join(ws, undoCrashPath(k))
				at.content = undoCrashContent(k, version)
			}
			undoCrashChild(t, dir, chat, op, &at)
			if undoCrashPending(t, dir) {
				midway++
			}
			undoCrashContinue(t, dir, ws, chat, op, kill)
		}
		wantVersion(t, ws, version)
		undoCrashNoLeftovers(t, ws, kill)
		if t.Failed() {
			t.Fatalf("kill %d (%s) left the files wrong", kill, op)
		}
		if op == "undo" {
			op, version = "redo", 1
		} else {
			op, version = "undo", 0
		}
	}
	t.Logf("%d of %d kills landed while an undo or redo was under way", midway, undoCrashKills-1)
	if midway == 0 {
		t.Errorf("no kill landed while an undo or redo was under way")
	}
}

// undoCrashRun makes the chat whose run writes every file, and closes the database.
func undoCrashRun(t *testing.T, dir, ws string) string {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	agent := agentloop.Wire(db, undoCrashWriter{}, agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{Workspace: ws})
	defer agent.Shutdown(context.Background())
	out, err := agent.RunOnce(context.Background(), "", "rewrite them all",
		agentloop.RunOptions{Model: "crash", Approve: agentloop.ApproveAuto, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return out.ChatID
}

// undoCrashKill is when the child is killed: a delay after it begins, or as soon as a file
// holds what the restore writes there.
type undoCrashKill struct {
	after            time.Duration
	written, content string
}

// undoCrashChild runs a child doing op and kills it as at says (nil: lets it finish); it
// returns how long op took from "begin".
func undoCrashChild(t *testing.T, dir, chat, op string, at *undoCrashKill) time.Duration {
	t.Helper()
	cmd, pipe, errBuf := startTestChild(t, "TestUndoCrashChild", undoCrashEnv+"="+dir+"|"+op+"|"+chat)
	br := bufio.NewReader(pipe)
	if line, err := br.ReadString('\n'); err != nil || line != "begin\n" {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		t.Fatalf("the child said %q (%v); stderr:\n%s", line, err, errBuf.String())
	}
	began := time.Now()
	switch {
	case at == nil:
		if line, err := br.ReadString('\n'); err != nil || line != "done\n" {
			t.Fatalf("the child's %s said %q (%v); stderr:\n%s", op, line, err, errBuf.String())
		}
	case at.written != "":
		want := []byte(at.content)
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
			if got, err := os.ReadFile(at.written); err == nil && bytes.Equal(got, want) {
				break
			}
			if cmd.ProcessState != nil {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	default:
		time.Sleep(at.after)
	}
	killTestChild(t, cmd, errBuf)
	return time.Since(began)
}

// undoCrashPending reports whether the killed child left an undo or redo under way.
func undoCrashPending(t *testing.T, dir string) bool {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	js, err := db.Reverts("")
	if err != nil {
		t.Fatal(err)
	}
	return len(js) > 0
}

// undoCrashContinue does op again, plainly, after the child doing it was killed: it must
// complete (or find it was done before the kill).
func undoCrashContinue(t *testing.T, dir, ws, chat, op string, kill int) {
	t.Helper()
	db, err := store.Open(filepath.Join(dir, "p.db"), store.Options{})
	if err != nil {
		t.Fatalf("kill %d: open after the kill: %v", kill, err)
	}
	defer db.Close()
	agent := agentloop.Wire(db, undoCrashWriter{}, agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{Workspace: ws})
	defer agent.Shutdown(context.Background())
	if op == "redo" {
		_, err = agent.Redo(context.Background(), chat, agentloop.UndoOptions{})
		if errors.Is(err, agentloop.ErrNothingToRedo) {
			err = nil // the child's redo was done before the kill
		}
	} else {
		_, err = agent.Undo(context.Background(), chat, agentloop.UndoOptions{})
		if errors.Is(err, agentloop.ErrNothingToUndo) {
			err = nil
		}
	}
	if err != nil {
		t.Fatalf("kill %d: plain %s after the kill: %v", kill, op, err)
	}
	if js, err := db.Reverts(chat); err != nil || len(js) > 0 {
		t.Fatalf("kill %d: after the plain %s, %d undos or redos are still under way (%v)", kill, op, len(js), err)
	}
}

// wantVersion checks that every file holds the given version, byte for byte, with its mode.
func wantVersion(t *testing.T, ws string, version int) {
	t.Helper()
	for k := range undoCrashFiles {
		p := filepath.Join(ws, undoCrashPath(k))
		got, err := os.ReadFile(p)
		if err != nil || string(got) != undoCrashContent(k, version) {
			t.Errorf("%q holds %.30q (%v), want version %d", undoCrashPath(k), got, err, version)
			continue
		}
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o640 {
			t.Errorf("%q: mode %v (%v), want 0640", undoCrashPath(k), fi.Mode().Perm(), err)
		}
	}
	entries, err := os.ReadDir(filepath.Join(ws, "odd"))
	if version == 1 {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the folder odd holds %d entries (%v), want it deleted", len(entries), err)
		}
		return
	}
	if len(entries) != len(undoCrashOdd) {
		t.Errorf("the folder odd holds %d entries (%v), want its %d back", len(entries), err, len(undoCrashOdd))
	}
	for i, p := range undoCrashOdd {
		if got, err := os.ReadFile(filepath.Join(ws, p)); err != nil || string(got) != undoCrashContent(-i, 0) {
			t.Errorf("%q holds %.30q (%v), want it back as it was", p, got, err)
		}
	}
}

func undoCrashNoLeftovers(t *testing.T, ws string, kill int) {
	t.Helper()
	filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("kill %d: a temporary file is left: %s", kill, p)
		}
		return nil
	})
}

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
	var runs []store.Run
	if len(chats) == 1 {
		if runs, err = db.RunsOf(chats[0].ID); err != nil {
			t.Fatalf("kill %d: runs %v, %v", kill, runs, err)
		}
	}
	// A chat killed before its first run was recorded (the kill came as the child started)
	// ran nothing: there is nothing to undo, and the workspace must be as the user left it.
	if len(runs) > 0 {
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
