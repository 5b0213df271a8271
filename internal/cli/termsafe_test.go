package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"prototyper/model/ollama"
	"prototyper/store"
)

func TestSanitizeRemovesWhatATerminalWouldObey(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text", "Hello, world", "Hello, world"},
		{"newlines and tabs stay", "a\tb\nc\n", "a\tb\nc\n"},
		{"unicode stays", "héllo → 世界 🙂", "héllo → 世界 🙂"},
		{"window title (OSC 0, BEL)", "before\x1b]0;pwned\x07after", "beforeafter"},
		{"window title (OSC 2, ST)", "x\x1b]2;pwned\x1b\\y", "xy"},
		{"hyperlink (OSC 8)", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"clipboard write (OSC 52)", "\x1b]52;c;cm0gLXJmIH4=\x07ok", "ok"},
		{"unterminated OSC ends at the line", "a\x1b]0;title\nnext", "a\nnext"},
		{"clear screen", "\x1b[2J\x1b[Hclean", "clean"},
		{"colours", "\x1b[1;31mred\x1b[0m", "red"},
		{"private mode (hide cursor)", "\x1b[?25lx", "x"},
		{"cursor up over earlier lines", "ok\x1b[3A\x1b[2Kfake", "okfake"},
		{"two-byte sequences (save cursor, reset)", "\x1b7a\x1b8\x1bc", "a"},
		{"charset designation", "\x1b(0lqk\x1b(B", "lqk"},
		{"DCS string", "\x1bPq#0;2;0;0;0\x1b\\z", "z"},
		{"APC string", "\x1b_Gf=100;AAAA\x1b\\z", "z"},
		{"a lone ESC at the end", "text\x1b", "text"},
		{"a lone ESC before text", "\x1b\x01x", "x"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"8-bit OSC with ST", "a\u009d0;t\u009cb", "ab"},
		{"other C1 controls", "a\u0085b\u008dc", "abc"},
		{"carriage return hides a line", "rm -rf /\rls", "rm -rf /ls"},
		{"backspace, bell, NUL, DEL", "a\bb\x07c\x00d\x7fe", "abcde"},
		{"bidi override (Trojan Source)", "access\u202e\u2066// admin\u2069\u2066", "access// admin"},
		{"bidi embeddings", "\u202aa\u202bb\u202cc\u202dd", "abcd"},
		{"invalid UTF-8", "a\xffb\xc2", "a\ufffdb\ufffd"},
		{"a raw 8-bit CSI byte", "a\x9b2Jb", "a\ufffd2Jb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCellKeepsTableColumnsAndLines(t *testing.T) {
	if got := cell("a\tb\nc\x1b[31m"); got != "a b c" {
		t.Errorf("cell = %q", got)
	}
}

// checkTermSafe fails when out holds anything a terminal would act on.
func checkTermSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	if loc := terminalControlRE.FindStringIndex(out); loc != nil {
		t.Fatalf("Sanitize(%q) = %q keeps %q", in, out, out[loc[0]:loc[1]])
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]0;t\x07", "\x1b[2J", "\u009b31m", "\u202e", "a\xffb", "\x1b", "\x1bP\x1b\\",
		"\x1b]8;;u\x1b\\l\x1b]8;;\x1b\\", "é\u009c", "\x1b[\xc3\xa9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		checkTermSafe(t, in, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
		if len(out) > len(in)*3 {
			t.Fatalf("grew from %d to %d bytes", len(in), len(out))
		}
		// text with nothing to remove is kept as it is
		if utf8.ValidString(in) && !terminalControlRE.MatchString(in) && out != in {
			t.Fatalf("Sanitize(%q) = %q changed safe text", in, out)
		}
		// split anywhere, each half sanitized alone is still safe
		for i := 0; i <= len(in); i += 1 + len(in)/7 {
			checkTermSafe(t, in, Sanitize(in[:i])+Sanitize(in[i:]))
		}
	})
}

func BenchmarkSanitizePlainText(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Sanitize(s)
	}
}

func BenchmarkSanitizeWithEscapes(b *testing.B) {
	s := strings.Repeat("\x1b[1;31mred\x1b[0m and \x1b]0;title\x07 text ", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Sanitize(s)
	}
}

// hostile is text a model or a server could send to take over the terminal: a new window
// title, a cleared screen, a line rewritten, a clipboard write, text reversed.
const hostile = "\x1b]0;pwned\x07\x1b[2J\x1b[H\rspoof\x1b]52;c;cm0gLXJm\x07 \u202eevil\u202c \u009b31m"

// terminalControlRE matches anything in printed output that a terminal would act on.
var terminalControlRE = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// rendererOwn takes out what the run's terminal renderer writes itself (dim, colors, reset,
// erase to the end of the line, the carriage return that rewrites the status line), leaving
// what came from elsewhere for [checkNoTerminalControl].
var rendererOwn = strings.NewReplacer("\x1b[2m", "", "\x1b[0m", "", "\x1b[K", "", "\x1b[32m", "", "\x1b[31m", "", "\r", "")

// checkNoTerminalControl fails t when out, printed for what, holds anything a terminal acts on.
func checkNoTerminalControl(t *testing.T, what, out string) {
	t.Helper()
	if loc := terminalControlRE.FindStringIndex(out); loc != nil {
		t.Errorf("%s prints %q to the terminal:\n%q", what, out[loc[0]:loc[1]], out)
	}
}

// hostileChat stores a chat whose every text came from a hostile model.
func hostileChat(t *testing.T) (path string, chat store.Chat) {
	t.Helper()
	return storedChat(t, func(db *store.DB) store.Chat {
		chat, _ := db.CreateChat(store.Chat{Model: "qwen3" + hostile, Workspace: "/w" + hostile})
		_, _ = db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, Content: "Hi " + hostile})
		run, _ := db.StartRun(store.Run{ChatID: chat.ID})
		cp, _ := db.NewMessageSaver(chat.ID, store.Message{RunID: run.ID})
		_ = cp.AddThinking("thinking " + hostile)
		_ = cp.AddText("answer " + hostile)
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		args, _ := json.Marshal(map[string]string{"path": "a.txt" + hostile})
		name := "write_file" + hostile
		must(cp.AddToolCalls(store.ToolCall{ID: "call_1", Name: name, Args: args},
			// valid JSON may hold C1 and bidi characters unescaped
			store.ToolCall{ID: "call_2", Name: name, Args: json.RawMessage("{\"raw\":\"\u009b2J \u202eevil\"}")}))
		_ = db.PutToolCall(store.ToolCallRecord{ID: "call_1", ChatID: chat.ID, RunID: run.ID, MessageID: cp.ID(), Name: name,
			Pending: true, StartedAt: time.Now()})
		_, _ = db.CompleteToolCall(chat.ID, "call_1", store.ToolResult{OK: false, Output: "output " + hostile})
		_ = db.PutToolCall(store.ToolCallRecord{ID: "call_2", ChatID: chat.ID, RunID: run.ID, MessageID: cp.ID(), Name: name,
			Approval: &store.Approval{Decision: store.DecisionDeny, By: "hook", Reason: "reason " + hostile}})
		_, _ = db.AppendMessage(chat.ID, store.Message{Role: store.RoleTool, ToolName: name, ToolCallID: "other", Content: "tool " + hostile})
		must(cp.Finish("stop", nil))
		_, _ = db.FinishRun(run.ID, "completed", nil)
		return chat
	})
}

func TestChatsPrintNoTerminalControlFromTheModel(t *testing.T) {
	path, chat := hostileChat(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string // the visible text survives
	}{
		{"list", []string{"chats", "list", "--db", path}, []string{"Hi ", "qwen3"}},
		{"show", []string{"chats", "show", chat.ID, "--db", path}, []string{"answer", "spoof", "evil", "output", "reason", "thinking", "tool "}},
		{"export md", []string{"chats", "export", chat.ID, "--db", path}, []string{"answer", "spoof", "evil", "output", "reason"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runMain(tc.args...)
			if code != ExitCompleted {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			checkNoTerminalControl(t, tc.name, out)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("lost %q:\n%s", w, out)
				}
			}
		})
	}
}

func TestChatsJSONKeepsTheExactTextEscaped(t *testing.T) {
	path, chat := hostileChat(t)
	code, out, errOut := runMain("chats", "export", chat.ID, "--format", "json", "--db", path)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	checkNoTerminalControl(t, "export json", out)
	var got store.Transcript
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if got.Chat.Model != "qwen3"+hostile || got.Messages[1].Content != "answer "+hostile || got.ToolCalls[0].Output != "output "+hostile {
		t.Errorf("the JSON does not hold the exact text: %+v", got)
	}

	code, out, _ = runMain("chats", "list", "--json", "--db", path)
	checkNoTerminalControl(t, "list --json", out)
	var chats []store.Chat
	if code != ExitCompleted || json.Unmarshal([]byte(out), &chats) != nil || chats[0].Model != "qwen3"+hostile {
		t.Errorf("list --json = %d %s", code, out)
	}
}

func TestModelsAndPullPrintNoTerminalControlFromTheServer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		enc := json.NewEncoder(w)
		switch r.URL.Path {
		case "/api/tags":
			_ = enc.Encode(map[string]any{"models": []map[string]any{
				{"name": "evil" + hostile, "size": 1, "details": map[string]string{"parameter_size": "1B" + hostile}},
			}})
		case "/api/show":
			w.WriteHeader(http.StatusInternalServerError)
			_ = enc.Encode(map[string]string{"error": "no " + hostile})
		case "/api/pull":
			for _, p := range []map[string]any{
				{"status": "pulling manifest" + hostile},
				{"status": "pulling x", "digest": "sha256:" + hostile, "total": 10, "completed": 5},
				{"error": "failed " + hostile},
			} {
				_ = enc.Encode(p)
			}
		}
	}))
	t.Cleanup(srv.Close)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"models", []string{"models", "--ollama", srv.URL}},
		{"pull", []string{"pull", "--ollama", srv.URL, "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, out, errOut := runMain(tc.args...)
			checkNoTerminalControl(t, tc.name+" stdout", out)
			checkNoTerminalControl(t, tc.name+" stderr", errOut)
			if !strings.Contains(out+errOut, "spoof") {
				t.Errorf("the server's text is gone rather than cleaned:\n%s\n%s", out, errOut)
			}
		})
	}

	t.Run("pull bars on a terminal", func(t *testing.T) {
		var out bytes.Buffer
		v := newPullView(&out, true, time.Now)
		_ = v.update(ollama.PullProgress{Status: "pulling manifest" + hostile})
		_ = v.update(ollama.PullProgress{Status: "pulling x", Digest: "sha256:a" + hostile, Total: 10, Completed: 5})
		v.finish()
		// the view's own cursor movements are all it may write
		own := regexp.MustCompile(`\x1b\[(\d+A|2K)`)
		checkNoTerminalControl(t, "pull view", strings.ReplaceAll(own.ReplaceAllString(out.String(), ""), "\r", ""))
	})
}
