package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
	"prototyper/store/storetest"
)

// runMain runs the command line as a user would, and returns its exit status and output.
// Flags go before a PROMPT: `run` reads everything after it as the prompt.
func runMain(args ...string) (code int, out, errOut string) {
	return runIn(context.Background(), func(_ context.Context, args []string, io IO) int { return Main(args, io) }, args...)
}

// checkOneLine fails unless errOut is exactly one line, holding every want, with no trace of
// a Go panic.
func checkOneLine(t *testing.T, errOut string, want ...string) {
	t.Helper()
	if strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "\n") {
		t.Errorf("stderr is not one line:\n%s", errOut)
	}
	for _, bad := range []string{"goroutine", "panic", ".go:", "bbolt"} {
		if strings.Contains(errOut, bad) {
			t.Errorf("stderr shows %q:\n%s", bad, errOut)
		}
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("stderr lacks %q:\n%s", w, errOut)
		}
	}
}

// deadRunChat leaves a chat as a process killed while a tool ran leaves it: the run still
// marked live, its tool call pending.
func deadRunChat(t *testing.T) (path string, chat store.Chat) {
	return oneCallChat(t, nil)
}

// oneCallChat stores a chat whose run has one write_file call, pending; end, when not nil,
// then ends the call and the run.
func oneCallChat(t *testing.T, end func(db *store.DB, chatID, runID string)) (path string, chat store.Chat) {
	t.Helper()
	return storedChat(t, func(db *store.DB) store.Chat {
		chat, _ := db.CreateChat(store.Chat{Model: "qwen3:4b"})
		_, _ = db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, Content: "Write big.txt"})
		run, _ := db.StartRun(store.Run{ChatID: chat.ID})
		cp, _ := db.NewMessageSaver(chat.ID, store.Message{RunID: run.ID})
		_ = cp.AddToolCalls(store.ToolCall{ID: "call_1", Name: "write_file", Args: json.RawMessage(`{"path":"big.txt"}`)})
		if err := db.PutToolCall(store.ToolCallRecord{ID: "call_1", ChatID: chat.ID, RunID: run.ID, MessageID: cp.ID(),
			Name: "write_file", Pending: true, StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if end != nil {
			end(db, chat.ID, run.ID)
		}
		return chat
	})
}

// readOut runs the command of args, which must complete, and returns its stdout.
func readOut(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errOut := runMain(args...)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return out
}

// TestChatsShowAndExportReadACallStoppedWhileItRanAsStopped: the user stopped the run while
// the call ran; show and export say it was stopped, never that it failed.
func TestChatsShowAndExportReadACallStoppedWhileItRanAsStopped(t *testing.T) {
	path, chat := oneCallChat(t, func(db *store.DB, chatID, runID string) {
		if _, err := db.CompleteToolCall(chatID, "call_1", store.ToolResult{Output: "stopped: by the user", Stopped: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.FinishRun(runID, events.StopAborted, nil); err != nil {
			t.Fatal(err)
		}
	})
	for name, args := range map[string][]string{
		"show":      {"chats", "show", chat.ID, "--db", path},
		"export md": {"chats", "export", chat.ID, "--db", path},
	} {
		if out := readOut(t, args...); !strings.Contains(out, "stopped while it ran") || strings.Contains(out, "failed") {
			t.Errorf("%s: the call should read stopped while it ran, never failed:\n%s", name, out)
		}
	}
	var got store.Transcript
	if err := json.Unmarshal([]byte(readOut(t, "chats", "export", chat.ID, "--format", "json", "--db", path)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.ToolCalls) != 1 || !got.ToolCalls[0].Stopped {
		t.Errorf("tool calls = %+v, want the record stopped", got.ToolCalls)
	}
}

func TestChatsShowAndExportReadADeadRunsCallAsInterrupted(t *testing.T) {
	path, chat := deadRunChat(t)
	before, _ := os.ReadFile(path)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"show", []string{"chats", "show", chat.ID, "--db", path}, "interrupted (no result recorded)"},
		{"export md", []string{"chats", "export", chat.ID, "--db", path}, "**Tool call `write_file`** (`call_1`): interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if out := readOut(t, tc.args...); !strings.Contains(out, tc.want) || strings.Contains(out, "running") {
				t.Errorf("the call of the dead run should read %q, never running:\n%s", tc.want, out)
			}
		})
	}
	t.Run("export json", func(t *testing.T) {
		var got store.Transcript
		if err := json.Unmarshal([]byte(readOut(t, "chats", "export", chat.ID, "--format", "json", "--db", path)), &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Runs) != 1 || got.Runs[0].Live || got.Runs[0].StopReason != store.StopInterrupted {
			t.Errorf("runs = %+v, want the run not live, stopped as interrupted", got.Runs)
		}
		if len(got.ToolCalls) != 1 || !got.ToolCalls[0].Pending || !got.Interrupted(got.ToolCalls[0]) {
			t.Errorf("tool calls = %+v, want the record as stored (pending), read as interrupted", got.ToolCalls)
		}
	})
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("a reader wrote to the database")
	}
}

// damagedDatabases writes, next to a good database, every kind of damaged file a user can
// end up with, and returns their paths by kind.
func damagedDatabases(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.db")
	db, err := store.Open(good, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		c, _ := db.CreateChat(store.Chat{})
		for j := range 10 {
			_, _ = db.AppendMessage(c.ID, store.Message{Role: store.RoleUser, Content: strings.Repeat("x", 500*j)})
		}
	}
	db.Close()
	raw, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	garbage := make([]byte, 64<<10)
	rand.New(rand.NewSource(7)).Read(garbage)
	scrambled := append([]byte(nil), raw...)
	rng := rand.New(rand.NewSource(3))
	for at := 2 * 4096; at+16 <= len(raw); at += 4096 {
		rng.Read(scrambled[at : at+16]) // every page's header
	}
	paths := map[string]string{}
	for kind, data := range map[string][]byte{
		"cut after the meta pages": raw[:3*4096],
		"cut in a page":            raw[:7*4096+100],
		"cut in half":              raw[:len(raw)/2],
		"cut short":                raw[:100],
		"random bytes":             garbage,
		"pages overwritten":        scrambled,
	} {
		p := filepath.Join(dir, strings.ReplaceAll(kind, " ", "-")+".db")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		paths[kind] = p
	}
	return paths
}

func TestDamagedDatabaseIsOneSentenceAndExit1(t *testing.T) {
	t.Setenv("PROTOTYPER_DB", filepath.Join(t.TempDir(), "never-used.db"))
	for kind, path := range damagedDatabases(t) {
		for _, cmd := range [][]string{
			{"chats", "list"},
			{"chats", "list", "--json"},
			{"chats", "show", "0123"},
			{"chats", "export", "0123", "--format", "json"},
			{"run", "--model", "m", "--ollama", "http://127.0.0.1:9"},
		} {
			t.Run(kind+"/"+strings.Join(cmd, " "), func(t *testing.T) {
				args := append([]string{cmd[0], "--db", path}, cmd[1:]...)
				if cmd[0] == "run" {
					args = append(args, "hi")
				}
				code, out, errOut := runMain(args...)
				if code != ExitFailed {
					t.Errorf("exit %d, want %d", code, ExitFailed)
				}
				if out != "" {
					t.Errorf("stdout: %q", out)
				}
				checkOneLine(t, errOut, "the chat database "+path+" is damaged", "move it away")
			})
		}
	}
}

func TestDamagedDatabaseNamesTheBackupToGoBackTo(t *testing.T) {
	paths := damagedDatabases(t)
	path := paths["cut in half"]
	good, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "good.db"))
	backup := store.BackupPath(path, store.CurrentSchema())
	if err := os.WriteFile(backup, good, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runMain("chats", "list", "--db", path)
	if code != ExitFailed {
		t.Errorf("exit %d", code)
	}
	checkOneLine(t, errOut, "copy from before the last upgrade is at "+backup, "rename the copy to "+path)
}

// A file whose schema says a newer Prototyper wrote it, and one a process was killed in
// before its first commit (no bucket at all).
func TestNewerAndUnfinishedDatabasesSayWhatTheyAre(t *testing.T) {
	dir := t.TempDir()
	newer := filepath.Join(dir, "newer.db")
	db, err := store.Open(newer, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.SetSchema(t, newer, store.CurrentSchema()+1)
	unfinished := filepath.Join(dir, "unfinished.db")
	storetest.KilledBeforeFirstCommit(t, unfinished)
	empty := filepath.Join(dir, "empty.db")
	_ = os.WriteFile(empty, nil, 0o600)

	for _, tc := range []struct {
		name string
		args []string
		code int
		out  string
		says []string
	}{
		{"newer: list", []string{"chats", "list", "--db", newer}, ExitFailed, "", []string{"newer Prototyper", "update Prototyper"}},
		{"newer: run", []string{"run", "--model", "m", "--db", newer, "hi"}, ExitFailed, "", []string{"newer Prototyper"}},
		{"unfinished: list", []string{"chats", "list", "--db", unfinished}, ExitCompleted, "No chats yet", nil},
		{"unfinished: show", []string{"chats", "show", "x", "--db", unfinished}, ExitFailed, "", []string{"no database yet"}},
		{"empty: list", []string{"chats", "list", "--db", empty}, ExitCompleted, "No chats yet", nil},
		{"empty: show", []string{"chats", "show", "x", "--db", empty}, ExitFailed, "", []string{"no database yet"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runMain(tc.args...)
			if code != tc.code || !strings.Contains(out, tc.out) {
				t.Errorf("exit %d, stdout %q; want exit %d and %q", code, out, tc.code, tc.out)
			}
			if strings.Contains(errOut, "schema 0") || strings.Contains(errOut, "must be upgraded") {
				t.Errorf("an unfinished file is no old schema: %s", errOut)
			}
			if tc.code != ExitCompleted {
				checkOneLine(t, errOut, tc.says...)
			}
		})
	}
}

func TestOllamaFlagThatIsNotAURLSaysWhatOneLooksLike(t *testing.T) {
	db := filepath.Join(t.TempDir(), "p.db")
	for _, args := range [][]string{
		{"models", "--ollama", "not a url"},
		{"pull", "--ollama", "not a url", "qwen3:0.6b"},
		{"models", "--ollama", "ftp://host"},
		{"run", "--ollama", "not a url", "--model", "m", "--db", db, "hi"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, errOut := runMain(args...)
			if code != ExitUsage {
				t.Errorf("exit %d, want %d (usage)", code, ExitUsage)
			}
			checkOneLine(t, errOut, "--ollama must be a URL such as http://127.0.0.1:11434")
			if strings.Contains(errOut, "parse ") || strings.Contains(errOut, "%20") {
				t.Errorf("a raw parse error: %s", errOut)
			}
		})
	}
	t.Run("OLLAMA_HOST", func(t *testing.T) {
		t.Setenv("OLLAMA_HOST", "not a host")
		code, _, errOut := runMain("models")
		if code != ExitUsage {
			t.Errorf("exit %d", code)
		}
		checkOneLine(t, errOut, "OLLAMA_HOST must be the address of an Ollama server")
	})
	t.Run("desktop flags", func(t *testing.T) {
		var e bytes.Buffer
		_, err := ParseDesktopFlags([]string{"--ollama", "not a url"}, &e)
		if err == nil || !strings.Contains(err.Error(), "--ollama must be a URL such as") {
			t.Errorf("err = %v", err)
		}
		if _, err := ParseDesktopFlags([]string{"--ollama", "127.0.0.1:11434"}, &e); err != nil {
			t.Errorf("a valid address refused: %v", err)
		}
	})
}

func TestErrorLineSaysAFailedSaveOnce(t *testing.T) {
	path := "/data/prototyper.db"
	full := func(op string) error {
		return &store.WriteError{Op: op, Path: path, Err: &fs.PathError{Op: "write", Path: path, Err: syscall.ENOSPC}}
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"one error", errors.New("boom"), "boom"},
		{"the stream's save, then the flush after it",
			errors.Join(fmt.Errorf("chat: %w", full("update message")), full("update message")),
			"chat: could not save (update message) to /data/prototyper.db: no space left on device: free some disk space, then try again"},
		{"two saves of one full disk", errors.Join(full("update message"), full("finish run")),
			"could not save (update message) to /data/prototyper.db: no space left on device: free some disk space, then try again"},
		{"two different errors", errors.Join(errors.New("a"), errors.New("b")), "a; b"},
		{"the same sentence twice", errors.Join(errors.New("a"), errors.New("a")), "a"},
		{"a multi-line error", errors.New("first\nsecond"), "first second"},
		{"escape codes from a server", errors.New("model \x1b]0;pwned\x07said no"), "model said no"},
		{"two %w with words between", fmt.Errorf("x %w y %w", errors.New("a"), errors.New("b")), "x a y b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errorLine(tc.err); got != tc.want {
				t.Errorf("errorLine = %q\nwant        %q", got, tc.want)
			}
		})
	}
}

// The stream's save fails on a full disk, then the flush that keeps what arrived fails
// the same way: the loop reports both, and the user reads it once.
func TestFullDiskDuringAStreamIsSaidOnce(t *testing.T) {
	disk := storetest.MountSmallDisk(t, "1m")
	path := filepath.Join(disk, "prototyper.db")
	clock := time.Unix(0, 0)
	db, err := store.Open(path, store.Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	chat, _ := db.CreateChat(store.Chat{})
	cp, err := db.NewMessageSaver(chat.ID, store.Message{})
	if err != nil {
		t.Fatal(err)
	}
	storetest.FillDisk(t, disk)

	clock = clock.Add(2 * time.Second) // a save is due
	streamErr := cp.AddText(strings.Repeat("x", 100_000))
	flushErr := cp.Flush()
	if !errors.Is(streamErr, store.ErrWrite) || !errors.Is(flushErr, store.ErrWrite) {
		t.Fatalf("the disk did not fill: %v / %v", streamErr, flushErr)
	}
	line := errorLine(errors.Join(streamErr, flushErr))
	if strings.Count(line, path) != 1 || strings.Count(line, "free some disk space") != 1 || strings.Contains(line, "\n") {
		t.Errorf("the full disk should be said once, in one line: %q", line)
	}
}

func TestDesktopFlagThatIsUnknownIsReportedOnceByTheFlagPackage(t *testing.T) {
	var e strings.Builder
	_, err := ParseDesktopFlags([]string{"--bogus"}, &e)
	if !errors.Is(err, ErrUsageReported) {
		t.Fatalf("err = %v; want ErrUsageReported, so that the caller does not print it again", err)
	}
	if n := strings.Count(e.String(), "-bogus"); n != 1 {
		t.Errorf("the unknown flag is named %d times:\n%s", n, e.String())
	}
}
