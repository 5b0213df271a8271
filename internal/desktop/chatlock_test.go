package desktop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// holdingOllama stands in for an Ollama whose model, asked with the newest message
// "delete it", calls delete_path on victim (a call that waits for the user's approval), and
// otherwise streams a word and holds its answer open until the request ends: a run stays live
// until it is stopped. The model of each chat request is sent on asked.
func holdingOllama(t *testing.T, asked chan<- string) string {
	t.Helper()
	return ollamatest.Serve(t, ollamatest.Routes{
		"/api/show": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `{"model_info":{"general.architecture":"llama","llama.context_length":16384},"capabilities":["completion","tools"]}`)
		},
		"/api/chat": func(w http.ResponseWriter, r *http.Request) {
			var req struct {
				Model    string
				Messages []struct{ Role, Content string }
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			asked <- req.Model
			if n := len(req.Messages); n > 0 && req.Messages[n-1].Content == "delete it" {
				_, _ = io.WriteString(w, `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"delete_path","arguments":{"path":"victim"}}}]},"done":true,"done_reason":"stop"}`+"\n")
				return
			}
			_, _ = io.WriteString(w, `{"message":{"role":"assistant","content":"Working"},"done":false}`+"\n")
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		},
	})
}

// checkForgotten fails unless nothing is left of the deleted chat id: not in the store (the
// chat, its messages, its runs, a live run), not in the agent (a phase, a run, a queue, a
// paused call), and, once closeDesk closed the session, no error said about it (a run writing
// to the deleted chat says so).
func checkForgotten(t *testing.T, d *Desktop, id string, closeDesk func() []events.Event) {
	t.Helper()
	var missing *store.NotFoundError
	if _, err := d.db.Chat(id); !errors.As(err, &missing) {
		t.Errorf("the deleted chat reads back: %v", err)
	}
	if msgs, _ := d.db.Messages(id); len(msgs) > 0 {
		t.Errorf("the deleted chat keeps %d messages", len(msgs))
	}
	if runs, _ := d.db.RunsOf(id); len(runs) > 0 {
		t.Errorf("the deleted chat keeps %d runs", len(runs))
	}
	live, err := d.db.LiveRuns()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range live {
		if r.ChatID == id {
			t.Errorf("run %s of the deleted chat is still marked live", r.ID)
		}
	}
	if p := d.agent.Phase(id); p != events.PhaseIdle {
		t.Errorf("the agent says the deleted chat is %s", p)
	}
	if run := d.agent.LiveRun(id); run != "" {
		t.Errorf("the agent keeps run %s of the deleted chat", run)
	}
	if q := d.agent.Queued(id); len(q) > 0 {
		t.Errorf("the agent keeps the deleted chat's queue %q", q)
	}
	for _, e := range closeDesk() {
		if e.ChatID == id && e.Type == events.Error {
			t.Errorf("an error was said about the deleted chat: %s", e.Message)
		}
	}
}

// A chat deleted while its run streams, with a message sent to it at the same moment, is
// gone for good once the delete returns: its run ended before the chat went (writing nothing
// to a deleted chat), and the message either went with the chat or found none; no run, queue
// or phase of it stays in the agent.
func TestADeleteRacingARunAndASendLeavesNothingOfTheChat(t *testing.T) {
	asked := make(chan string, 16)
	url := holdingOllama(t, asked)
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: url}, Workspace: t.TempDir(), Model: "m"})
			res, err := d.Send(context.Background(), "", "first")
			if err != nil {
				t.Fatal(err)
			}
			<-asked // the run streams
			var deleteErr error
			atOnce(func() { deleteErr = d.DeleteChat(res.ChatID) }, func() {
				// sent before the delete it lands and goes with the chat; after, it finds none
				_, _ = d.Send(context.Background(), res.ChatID, fmt.Sprint("second ", i))
			})
			if deleteErr != nil {
				t.Fatal(deleteErr)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := d.Stop(ctx); err != nil { // every run the app started has ended
				t.Fatal(err)
			}
			drain(asked)
			checkForgotten(t, d, res.ChatID, closeDesk)
		})
	}
}

// A chat deleted while it waits for an approval takes the wait with it: the agent no longer
// says it waits, and the call can no longer be decided.
func TestDeletingAChatThatWaitsForAnApprovalForgetsTheWait(t *testing.T) {
	asked := make(chan string, 16)
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "victim"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: holdingOllama(t, asked)}, Workspace: ws, Model: "m"})
	res, err := d.Send(context.Background(), "", "delete it")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); d.agent.Phase(res.ChatID) != events.PhaseAwaitingApproval; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the chat is %s, want it waiting for the approval of delete_path", d.agent.Phase(res.ChatID))
		}
	}
	calls, err := d.db.ToolCalls(res.ChatID)
	if err != nil || len(calls) != 1 {
		t.Fatalf("tool calls = %v, %v", calls, err)
	}
	if err := d.DeleteChat(res.ChatID); err != nil {
		t.Fatal(err)
	}
	if err := d.Decide(calls[0].ID, agentloop.DecisionAllow, ""); !errors.Is(err, agentloop.ErrNoPendingApproval) {
		t.Errorf("deciding the deleted chat's call = %v, want %v", err, agentloop.ErrNoPendingApproval)
	}
	if _, err := os.Stat(filepath.Join(ws, "victim")); err != nil {
		t.Errorf("the call of the deleted chat ran: %v", err)
	}
	checkForgotten(t, d, res.ChatID, closeDesk)
}

// A chat's model, changed while a message to it starts a run, changes only between runs: a
// change that succeeds is the model of the run that starts, and a run that started first
// refuses the change.
func TestAModelChangeRacingARunEitherComesFirstOrIsRefused(t *testing.T) {
	asked := make(chan string, 16)
	url := holdingOllama(t, asked)
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: url}, Workspace: t.TempDir(), Model: "m"})
	for i := range 12 {
		chat, err := d.NewChat()
		if err != nil {
			t.Fatal(err)
		}
		var sendErr, changeErr error
		atOnce(func() { _, sendErr = d.Send(context.Background(), chat.ID, "go") },
			func() { _, changeErr = d.SetChatModel(chat.ID, "other") })
		if sendErr != nil {
			t.Fatal(sendErr)
		}
		ran := <-asked
		switch {
		case changeErr == nil && ran != "other":
			t.Errorf("round %d: the model changed to other while a run of %s was starting", i, ran)
		case changeErr != nil && !errors.Is(changeErr, agentloop.ErrChatNotIdle):
			t.Errorf("round %d: the change failed with %v", i, changeErr)
		}
		stopAndWait(t, d, chat.ID)
	}
}

// atOnce calls each of fns in a goroutine of its own, all released together, and returns when
// every one has: the calls race as the window's clicks would.
func atOnce(fns ...func()) {
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			fn()
		}()
	}
	close(start)
	wg.Wait()
}

// drain empties c of what the runs asked.
func drain(c <-chan string) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// An edit and resend racing a message to the same chat either comes first, and the message
// follows the edited one (shown, or waiting for the run), or is refused because the message's
// run started first: the message is never put aside into an earlier version under a live run.
func TestAnEditRacingAMessageNeverPutsTheMessageAside(t *testing.T) {
	asked := make(chan string, 16)
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: holdingOllama(t, asked)}, Workspace: t.TempDir(), Model: "m"})
	for i := range 10 {
		res, err := d.Send(context.Background(), "", "first")
		if err != nil {
			t.Fatal(err)
		}
		<-asked
		stopAndWait(t, d, res.ChatID)
		msgs, err := d.db.Messages(res.ChatID)
		if err != nil || len(msgs) == 0 || msgs[0].Role != store.RoleUser {
			t.Fatalf("messages = %v, %v", msgs, err)
		}
		var editErr, sendErr error
		atOnce(func() { _, editErr = d.EditAndResend(context.Background(), res.ChatID, msgs[0].ID, "edited") },
			func() { _, sendErr = d.Send(context.Background(), res.ChatID, "go") })
		if sendErr != nil {
			t.Fatal(sendErr)
		}
		if editErr != nil && !errors.Is(editErr, agentloop.ErrChatNotIdle) {
			t.Fatalf("round %d: the edit failed with %v", i, editErr)
		}
		<-asked // a run of the chat streams
		shown, err := d.db.Messages(res.ChatID)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, m := range shown {
			if m.Role == store.RoleUser {
				texts = append(texts, m.Content)
			}
		}
		texts = append(texts, d.agent.Queued(res.ChatID)...)
		if !slices.Contains(texts, "go") {
			t.Errorf("round %d: the message went into an earlier version; the chat shows and queues %q", i, texts)
		}
		if editErr == nil && !slices.Contains(texts, "edited") {
			t.Errorf("round %d: the edit succeeded but the chat shows and queues %q", i, texts)
		}
		stopAndWait(t, d, res.ChatID)
		drain(asked)
	}
}

// stopAndWait stops the chat's run and waits until the chat is idle.
func stopAndWait(t *testing.T, d *Desktop, chatID string) {
	t.Helper()
	if err := d.StopChat(chatID); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); d.agent.Phase(chatID) != events.PhaseIdle; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the stopped run of %s did not end", chatID)
		}
	}
}
