package desktop

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/store"
)

func TestAChatMovedToAnotherFolderKeepsItAndNewChatsTakeIt(t *testing.T) {
	ws1, ws2 := t.TempDir(), t.TempDir()
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: ws1, Model: "qwen3:0.6b"})
	c, err := d.db.CreateChat(store.Chat{Workspace: ws1, Model: "qwen3:0.6b", Title: "first"})
	if err != nil {
		t.Fatal(err)
	}
	moved, err := d.SetChatWorkspace(c.ID, ws2)
	if err != nil || moved.Workspace != ws2 {
		t.Fatalf("SetChatWorkspace = %+v, %v", moved, err)
	}
	if stored, _ := d.db.Chat(c.ID); stored.Workspace != ws2 || stored.Model != "qwen3:0.6b" {
		t.Errorf("stored chat = %+v, want it in %s with its model", stored, ws2)
	}
	if cfg, _ := d.Config(); cfg.Workspace != ws2 {
		t.Errorf("new chats take %s, want the folder last used %s", cfg.Workspace, ws2)
	}
	if s, _ := d.db.Settings(); s.Workspace != ws2 {
		t.Errorf("the next start presets %s, want %s", s.Workspace, ws2)
	}
	changed, err := d.SetChatModel(c.ID, " gemma3:1b ")
	if err != nil || changed.Model != "gemma3:1b" || changed.Workspace != ws2 {
		t.Fatalf("SetChatModel = %+v, %v", changed, err)
	}
	if cfg, _ := d.Config(); cfg.Model != "gemma3:1b" {
		t.Errorf("new chats take %s, want the model last used", cfg.Model)
	}
}

func TestAChatWaitingForTheAnswerToASummaryOfferKeepsItsModelAndFolder(t *testing.T) {
	path, ws := filepath.Join(t.TempDir(), "p.db"), t.TempDir()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := db.CreateChat(store.Chat{Workspace: ws, Model: "qwen3:0.6b"})
	run, _ := db.StartRun(store.Run{ChatID: c.ID, Model: "qwen3:0.6b", Phase: events.PhaseAwaitingSummary})
	state := `{"model":"qwen3:0.6b","calls":null,"offer":{"id":"o1","messages":3,"tokens":2500,"numCtx":2048,"model":"qwen3:0.6b"}}`
	if _, err := db.FinishRun(run.ID, events.StopAwaitingSummary, []byte(state)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1", DB: path}, Workspace: ws})
	for what, change := range map[string]func() error{
		"model":  func() error { _, err := d.SetChatModel(c.ID, "gemma3:1b"); return err },
		"folder": func() error { _, err := d.SetChatWorkspace(c.ID, t.TempDir()); return err },
	} {
		if err := change(); !errors.Is(err, agentloop.ErrChatNotIdle) || !strings.Contains(err.Error(), "waiting for your answer") {
			t.Errorf("changing the %s of a chat waiting on an offer: %v", what, err)
		}
	}
}

func TestAFolderThatIsNotThereIsRefusedWithASentence(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: t.TempDir()})
	c, _ := d.db.CreateChat(store.Chat{Workspace: "/w"})
	file := filepath.Join(t.TempDir(), "a.txt")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"", "  ", filepath.Join(t.TempDir(), "missing"), file} {
		if _, err := d.SetChatWorkspace(c.ID, dir); err == nil || strings.Contains(err.Error(), "stat ") {
			t.Errorf("SetChatWorkspace(%q) = %v, want one sentence refusing it", dir, err)
		}
		if _, err := d.UseFolder(dir); err == nil {
			t.Errorf("UseFolder(%q) accepted it", dir)
		}
	}
	if _, err := d.UseFolder(file); err == nil || !strings.Contains(err.Error(), "is a file, not a folder: pick the folder that holds it") {
		t.Errorf("UseFolder of a file: %v, want the sentence saying it is a file", err)
	}
	if stored, _ := d.db.Chat(c.ID); stored.Workspace != "/w" {
		t.Errorf("a refused folder changed the chat: %+v", stored)
	}
	if _, err := d.SetChatModel(c.ID, " "); err == nil {
		t.Error("an empty model was accepted")
	}
}

func TestOnlyAMessageOfTheUserCanBeEditedAndSentAgain(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: t.TempDir()})
	c, _ := d.db.CreateChat(store.Chat{Workspace: t.TempDir()})
	answer, _ := d.db.AppendMessage(c.ID, store.Message{Role: store.RoleAssistant, Content: "hi", Complete: true})
	if _, err := d.EditAndResend(t.Context(), c.ID, answer.ID, "x"); err == nil {
		t.Error("an answer was edited")
	}
	if _, err := d.EditAndResend(t.Context(), c.ID, answer.ID, " "); err == nil {
		t.Error("an empty text was sent")
	}
	if msgs, _ := d.db.Messages(c.ID); len(msgs) != 1 {
		t.Errorf("messages = %+v, want the chat as it was", msgs)
	}
}

func TestARefusedEditLeavesTheChatAsItWas(t *testing.T) {
	// no server answers at 127.0.0.1:1: the agent refuses the message before storing it
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: t.TempDir(), Model: "qwen3:0.6b"})
	c, _ := d.db.CreateChat(store.Chat{Workspace: t.TempDir(), Model: "qwen3:0.6b"})
	q, _ := d.db.AppendMessage(c.ID, store.Message{Role: store.RoleUser, Content: "make a"})
	_, _ = d.db.AppendMessage(c.ID, store.Message{Role: store.RoleAssistant, Content: "made a", Complete: true})
	if _, err := d.EditAndResend(t.Context(), c.ID, q.ID, "make b"); err == nil {
		t.Fatal("the edit was sent with no server")
	}
	msgs, _ := d.db.Messages(c.ID)
	if len(msgs) != 2 || msgs[0].Content != "make a" || msgs[1].Content != "made a" {
		t.Errorf("messages = %+v, want the chat as it was", msgs)
	}
	if v, _, _ := d.db.Versions(c.ID); len(v) != 0 {
		t.Errorf("versions = %+v, want none", v)
	}
}

func TestSearchChatsFindsTheWordsOfAChat(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: t.TempDir()})
	c, _ := d.db.CreateChat(store.Chat{Title: "landing page"})
	_, _ = d.db.AppendMessage(c.ID, store.Message{Role: store.RoleUser, Content: "use a dark hero section"})
	hits, err := d.SearchChats("HERO")
	if err != nil || len(hits) != 1 || hits[0].Chat.ID != c.ID || !strings.Contains(hits[0].Snippet, "hero") {
		t.Errorf("hits = %+v, %v", hits, err)
	}
}

func TestOllamaNotThereIsSaidAtOnce(t *testing.T) {
	// a port nothing listens on: connection refused, which a run would retry for seconds; the
	// user runs Ollama themselves (the window would otherwise start one there)
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: t.TempDir()})
	if _, err := d.db.UpdateSettings(func(s *store.Settings) error { s.ManualOllama = true; return nil }); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	st := d.OllamaStatus(t.Context())
	if st.Running || st.Error == "" {
		t.Fatalf("status = %+v, want not running with a reason", st)
	}
	// no timed assertion on the figure: one attempt means no backoff of 500 ms or more
	t.Logf("answered in %s", time.Since(start))
}

// A folder for new chats that is gone (or was never there: --workspace mistyped) is said when
// the window opens, not at the first message.
func TestTheConfigSaysWhenTheFolderOfNewChatsIsGone(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: missing})
	if c, err := d.Config(); err != nil || !strings.Contains(c.WorkspaceProblem, missing+" is not a folder that exists") {
		t.Errorf("config %q, %v; want the sentence saying the folder is not there", c.WorkspaceProblem, err)
	}
	if _, err := d.UseFolder(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if c, _ := d.Config(); c.WorkspaceProblem != "" {
		t.Errorf("config says %q of a folder that is there", c.WorkspaceProblem)
	}
}
