package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/store"
)

// storedChat writes a fresh database with fill and closes it, as a process that ends leaves
// it; it returns the database's path and the chat fill made. The store's clock stands still:
// a thinking that took no time takes none however slow the machine.
func storedChat(t *testing.T, fill func(db *store.DB) store.Chat) (path string, chat store.Chat) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "p.db")
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	db, err := store.Open(path, store.Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	chat = fill(db)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path, chat
}

// chatsFixture writes a chat with thinking, a tool call and its result into a fresh database.
func chatsFixture(t *testing.T) (path string, chat store.Chat) {
	t.Helper()
	return storedChat(t, func(db *store.DB) store.Chat {
		chat, err := db.CreateChat(store.Chat{Model: "qwen3:4b", Workspace: "/tmp/w"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, Content: "Write hello.txt", Complete: true}); err != nil {
			t.Fatal(err)
		}
		run, _ := db.StartRun(store.Run{ChatID: chat.ID, Model: "qwen3:4b"})
		cp, err := db.NewMessageSaver(chat.ID, store.Message{RunID: run.ID})
		if err != nil {
			t.Fatal(err)
		}
		_ = cp.AddThinking("The user wants a file.")
		_ = cp.AddText("Writing it now.")
		_ = cp.AddToolCalls(store.ToolCall{ID: "call_1", Name: "write_file", Args: json.RawMessage(`{"path":"hello.txt","content":"\u003cp\u003ehi\u003c/p\u003e"}`)})
		_ = db.PutToolCall(store.ToolCallRecord{ID: "call_1", ChatID: chat.ID, RunID: run.ID, MessageID: cp.ID(),
			Name: "write_file", Pending: true, StartedAt: time.Now()})
		_, _ = db.CompleteToolCall(chat.ID, "call_1", store.ToolResult{OK: true, Output: "wrote 2 bytes with ``` inside"})
		_, _ = db.AppendMessage(chat.ID, store.Message{Role: store.RoleTool, ToolName: "write_file", ToolCallID: "call_1", Content: "wrote 2 bytes"})
		_ = cp.Finish("stop", &store.Usage{PromptTokens: 12, EvalTokens: 7})
		_, _ = db.FinishRun(run.ID, "completed", nil)
		return chat
	})
}

func runChats(args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = chatsCommand(context.Background(), args, IO{In: strings.NewReader(""), Out: &o, Err: &e})
	return code, o.String(), e.String()
}

func TestChatsListShowsTheChats(t *testing.T) {
	path, chat := chatsFixture(t)
	code, out, errOut := runChats("list", "--db", path)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"ID", chat.ID, "qwen3:4b", "Write hello.txt"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runChats("--db", path, "list", "--json")
	var chats []store.Chat
	if code != 0 || json.Unmarshal([]byte(out), &chats) != nil || len(chats) != 1 || chats[0].MessageCount != 3 {
		t.Errorf("list --json = %d %s", code, out)
	}
}

func TestChatsExportMarkdownFoldsThinkingAndShowsToolCalls(t *testing.T) {
	path, chat := chatsFixture(t)
	code, out, errOut := runChats("export", chat.ID[:10], "--format", "md", "--db", path)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"# Write hello.txt",
		"<summary>Thinking",
		"> The user wants a file.",
		"Writing it now.",
		"**Tool call `write_file`** (`call_1`): ok",
		`"path": "hello.txt"`,
		`"content": "<p>hi</p>"`, // as written, not as JSON escapes it
		"````\nwrote 2 bytes with ``` inside\n````",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(0.0 s)") {
		t.Errorf("a thinking time that was not measured is given as 0.0 s:\n%s", out)
	}
	if strings.Contains(out, "## Tool") {
		t.Errorf("the tool message is repeated beside its call:\n%s", out)
	}
}

func TestChatsExportJSONHoldsEverything(t *testing.T) {
	path, chat := chatsFixture(t)
	code, out, errOut := runChats("export", chat.ID, "--format=json", "--db", path)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got store.Transcript
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Chat.ID != chat.ID || len(got.Messages) != 3 || len(got.ToolCalls) != 1 || len(got.Runs) != 1 {
		t.Errorf("export = %+v", got)
	}
	if !strings.Contains(out, `"toolCallId": "call_1"`) {
		t.Errorf("JSON names are not camelCase:\n%s", out)
	}
}

func TestChatsShowPrintsTheConversation(t *testing.T) {
	path, chat := chatsFixture(t)
	code, out, _ := runChats("show", chat.ID, "--db", path)
	if code != ExitCompleted || !strings.Contains(out, "→ write_file") || !strings.Contains(out, "Writing it now.") {
		t.Errorf("show = %d:\n%s", code, out)
	}
}

func TestChatsFailures(t *testing.T) {
	path, _ := chatsFixture(t)
	for _, tc := range []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no action", []string{"--db", path}, ExitUsage, "list, show ID or export ID"},
		{"unknown action", []string{"frobnicate", "--db", path}, ExitUsage, "unknown action"},
		{"show without id", []string{"show", "--db", path}, ExitUsage, "one chat ID"},
		{"bad format", []string{"export", "x", "--format", "pdf", "--db", path}, ExitUsage, "use md or json"},
		{"unknown chat", []string{"show", "nope", "--db", path}, ExitFailed, "chats list"},
		{"no database", []string{"show", "x", "--db", filepath.Join(t.TempDir(), "none.db")}, ExitFailed, "no database yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runChats(tc.args...)
			if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, errOut, tc.wantCode, tc.wantErr)
			}
		})
	}
}

func TestChatsListWithoutDatabaseSaysNoChats(t *testing.T) {
	code, out, _ := runChats("list", "--db", filepath.Join(t.TempDir(), "none.db"))
	if code != ExitCompleted || !strings.Contains(out, "No chats yet") {
		t.Errorf("exit %d: %s", code, out)
	}
}

func TestChatsWhileTheAppRunsSaysSoAndExits(t *testing.T) {
	path, _ := chatsFixture(t)
	app, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()
	code, _, errOut := runChats("list", "--db", path)
	want := "Prototyper is already running (database locked: " + path + ")"
	if code != ExitFailed || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 with %q", code, errOut, want)
	}
}

// `chats show` and the Markdown export say what became of a call in the state the window draws
// its card in: one rule (agentloop.RecordState), the same order.
func TestChatsSayWhatBecameOfACallAsTheWindowDrawsIt(t *testing.T) {
	done := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	live := store.Transcript{Runs: []store.Run{{ID: "live", Live: true}, {ID: "gone"}}}
	cases := []struct {
		name string
		r    store.ToolCallRecord
		want string
	}{
		{"a call that completed despite a stop is ok", store.ToolCallRecord{RunID: "gone", OK: true, Stopped: true, FinishedAt: done, DurationMs: 12}, "ok, 12 ms"},
		{"a call stopped before it started is not run", store.ToolCallRecord{RunID: "gone", NotRun: events.NotRunStopped, Stopped: true, FinishedAt: done}, "not run (stopped)"},
		{"a call answered by a reply is not run, not awaiting", store.ToolCallRecord{RunID: "gone", NotRun: events.NotRunReplied, AwaitingApproval: true}, "not run (replied)"},
		{"a call stopped while it ran", store.ToolCallRecord{RunID: "gone", Stopped: true, Output: "stopped", DurationMs: 5}, "stopped while it ran, 5 ms"},
		{"a pending call of a live run", store.ToolCallRecord{RunID: "live", Pending: true}, "running"},
		{"a pending call of a run gone", store.ToolCallRecord{RunID: "gone", Pending: true}, "interrupted (no result recorded)"},
		{"a call not started of a live run", store.ToolCallRecord{RunID: "live"}, "waiting to run"},
		{"a call not started of a run gone", store.ToolCallRecord{RunID: "gone"}, "interrupted (no result recorded)"},
		{"denied", store.ToolCallRecord{Approval: &store.Approval{Decision: store.DecisionDeny, By: "user", Reason: "no"}}, "denied by user: no"},
		{"a tool error", store.ToolCallRecord{RunID: "gone", Output: "boom", FinishedAt: done, DurationMs: 3}, "failed, 3 ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := toolStatus(live, agentloop.Undone{}, c.r); got != c.want {
				t.Errorf("toolStatus = %q, want %q", got, c.want)
			}
		})
	}
}

func TestChatsExportWritesCountsAndSpeedsAsTheWindowDoes(t *testing.T) {
	path, chat := storedChat(t, func(db *store.DB) store.Chat {
		chat, err := db.CreateChat(store.Chat{Model: "qwen3:4b", Workspace: "/tmp/w"})
		if err != nil {
			t.Fatal(err)
		}
		run, _ := db.StartRun(store.Run{ChatID: chat.ID, Model: "qwen3:4b"})
		if _, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, RunID: run.ID, Content: "Read the project", Complete: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleAssistant, RunID: run.ID, Content: "Read.", Complete: true, DoneReason: "stop",
			Usage: &store.Usage{PromptTokens: 12345, EvalTokens: 950, TokensPerSec: 29207.4}}); err != nil {
			t.Fatal(err)
		}
		return chat
	})
	code, out, errOut := runChats("export", chat.ID, "--format", "md", "--db", path)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if want := "stop · 12K prompt tokens, 950 generated, 29,207 tok/s"; !strings.Contains(out, want) {
		t.Errorf("the answer's figures are not written %q:\n%s", want, out)
	}
}

func TestACheckIsSaidWithItsSpeedWrittenAsTheWindowDoes(t *testing.T) {
	if got := checkBadge(store.ModelCheck{Passed: 5, Total: 6, AnswerTokensPerSec: 12345.6}); got != "5/6, 12,346 tok/s" {
		t.Errorf("checkBadge = %q", got)
	}
}
