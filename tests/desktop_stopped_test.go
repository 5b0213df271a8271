package tests

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// stopWhileStreaming starts a slow answer and stops it with Esc while it streams.
func stopWhileStreaming(t *testing.T) *desktopRun {
	t.Helper()
	slow := pacedAnswers(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond, 1)
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)
	r.app.key("Escape")
	r.waitLog(t, events.RunFinished, true, 60*time.Second)
	r.waitStopped(t)
	return r
}

// waitStopped waits until the window says "Stopped." on a line of its own (a notice is read
// with its neighbours' texts), and fails t when it does not within 20 s.
func (r *desktopRun) waitStopped(t *testing.T) {
	t.Helper()
	if len(r.app.waitTexts(func(s string) bool { return slices.Contains(strings.Split(s, "\n"), "Stopped.") }, 20*time.Second)) == 0 {
		t.Fatalf("the window does not say \"Stopped.\" under the stopped answer (%s)", r.app.screenshot("not-stopped.png"))
	}
}

// TestDesktopAStoppedAnswerOffersContinueAndRegenerate: after "Stopped." the chat offers a way
// on, by keyboard: Continue sends a message asking the model to go on, in the same chat;
// Regenerate asks again, keeping the stopped answer as an earlier version.
func TestDesktopAStoppedAnswerOffersContinueAndRegenerate(t *testing.T) {
	layoutCanMatter(t)
	t.Run("continue", func(t *testing.T) {
		r := stopWhileStreaming(t)
		const name = "Continue the stopped answer"
		r.app.focus(name)
		r.app.waitFocus(rolePushButton, name, 20*time.Second)
		r.app.screenshot("stopped-offers-continue.png")
		r.app.key("Return")
		r.waitLogN(t, events.RunStarted, 2, true, 60*time.Second)
		r.app.waitTexts(func(s string) bool { return strings.TrimSpace(s) == "Continue" }, 20*time.Second)
		r.app.waitNoControl(rolePushButton, name, 20*time.Second)
		if versions := r.app.controls(rolePushButton, "Earlier version"); len(versions) != 0 {
			t.Errorf("Continue made a new version of the chat instead of going on in it (%s)", r.app.screenshot("continued.png"))
		}
	})
	t.Run("regenerate", func(t *testing.T) {
		r := stopWhileStreaming(t)
		const name = "Regenerate the stopped answer"
		r.app.focus(name)
		r.app.waitFocus(rolePushButton, name, 20*time.Second)
		r.app.key("Return")
		r.waitLogN(t, events.RunStarted, 2, true, 60*time.Second)
		r.app.waitControl(rolePushButton, "Earlier version", 30*time.Second)
		r.app.screenshot("stopped-regenerated.png")
	})
}

// TestDesktopAnAnswerCutShortOffersContinueAfterARestart: an answer the user stopped, or one
// a kill cut short, still offers Continue once the app is opened again, and Continue goes on in
// that chat: a new run that completes.
func TestDesktopAnAnswerCutShortOffersContinueAfterARestart(t *testing.T) {
	for _, how := range []string{"stopped", "killed"} {
		t.Run(how, func(t *testing.T) {
			slow := pacedAnswers(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond, 1)
			r := startDesktopRunWith(t, chattyModel, store.Settings{}, "Write a long answer", withArgs("--ollama", slow))
			r.waitLog(t, events.TextDelta, true, 60*time.Second)
			if how == "stopped" {
				r.app.key("Escape")
				r.waitLog(t, events.RunFinished, true, 60*time.Second)
				r.waitStopped(t)
			}
			r.kill(t)
			r.relaunch(t, chattyModel, "bridge-"+how+"-reopened")
			const name = "Continue the stopped answer"
			r.app.waitControl(rolePushButton, name, 30*time.Second)
			r.app.screenshot("reopened-" + how + "-offers-continue.png")
			r.app.focus(name)
			r.app.waitFocus(rolePushButton, name, 20*time.Second)
			r.app.key("Return")
			r.waitLog(t, events.RunStarted, true, 60*time.Second)
			r.waitLog(t, events.RunFinished, true, 60*time.Second)
			r.app.waitNoControl(rolePushButton, name, 20*time.Second)
			_, db := r.finish(t, "reopened-"+how+"-continued.png")
			chat := theOneChat(t, db)
			msgs, err := db.Messages(chat.ID)
			if err != nil || len(msgs) != 4 || msgs[2].Content != "Continue" || !msgs[3].Complete {
				t.Fatalf("messages %d (%v): want the prompt, the cut answer, Continue and its whole answer, in one chat", len(msgs), err)
			}
			if runs, _ := db.RunsOf(chat.ID); len(runs) != 2 || runs[1].StopReason != events.StopCompleted {
				t.Errorf("runs %+v: want the cut one and the continued one, completed", runs)
			}
		})
	}
}

// seedQuestion keeps a chat in ws titled as its one question, text, and the run that question
// started.
func seedQuestion(tb testing.TB, db *store.DB, ws, text string) (store.Chat, store.Run) {
	tb.Helper()
	c, err := db.CreateChat(store.Chat{Title: text, Workspace: ws})
	if err != nil {
		tb.Fatal(err)
	}
	run, _, err := db.StartRunWith(store.Run{ChatID: c.ID}, store.Message{Role: store.RoleUser, Content: text, Complete: true})
	if err != nil {
		tb.Fatal(err)
	}
	return c, run
}

// seedStoppedAnswerWithCall keeps, in the window's folder, a chat whose one answer the user
// stopped after it said something and while the command it asked for ran, as the app leaves
// it, and opens the window on it.
func seedStoppedAnswerWithCall(tb testing.TB, db *store.DB, ws string) store.Chat {
	tb.Helper()
	c, run := seedQuestion(tb, db, ws, "Run the tests")
	args := json.RawMessage(`{"command":"sleep 600"}`)
	answer, err := db.AppendMessage(c.ID, store.Message{Role: store.RoleAssistant, RunID: run.ID, Content: "I will run the tests now.",
		ToolCalls: []store.ToolCall{{ID: "call_1", Name: "run_command", Args: args}}, Complete: true, DoneReason: "stop"})
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Now()
	if err := db.PutToolCall(store.ToolCallRecord{ID: "call_1", ChatID: c.ID, RunID: run.ID, MessageID: answer.ID, Name: "run_command", Args: args,
		Workspace: ws, Output: "stopped: the run was stopped while the command ran", Stopped: true, StartedAt: now, FinishedAt: now}); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.AppendMessage(c.ID, store.Message{Role: store.RoleTool, RunID: run.ID, ToolName: "run_command", ToolCallID: "call_1",
		Content: "stopped: the run was stopped while the command ran", Complete: true}); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.FinishRun(run.ID, events.StopAborted, nil); err != nil {
		tb.Fatal(err)
	}
	if err := db.SetOpenChat(c.ID); err != nil {
		tb.Fatal(err)
	}
	return c
}

// TestDesktopAStoppedAnswerWithACallOffersOneRegenerate: an answer stopped after its text and
// while its command ran offers Regenerate once, beside Continue under the stopped run: a screen
// reader and the keyboard reach one Regenerate, not the answer's own as well.
func TestDesktopAStoppedAnswerWithACallOffersOneRegenerate(t *testing.T) {
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, "",
		withSeed(func(db *store.DB, ws string) { seedStoppedAnswerWithCall(t, db, ws) }))
	r.app.waitControl(rolePushButton, "Continue the stopped answer", 30*time.Second)
	var regenerates []string
	for _, name := range r.app.names(rolePushButton) {
		if strings.Contains(strings.ToLower(name), "regenerate") {
			regenerates = append(regenerates, name)
		}
	}
	if len(regenerates) != 1 || regenerates[0] != `"Regenerate the stopped answer"` {
		t.Errorf("the window offers %v, want one Regenerate, the stopped answer's (%s)", regenerates, r.app.screenshot("stopped-call-regenerate.png"))
	}
	r.finish(t, "stopped-call-regenerate.png")
}

// TestDesktopAnAnswerStoppedEarlierSaysWhoStoppedIt: reopened, a chat whose first answer was
// stopped before a later run answered says under that answer who stopped it: "Stopped." where
// the user did (as the live view said), "Cut short" where the app quit or was killed.
func TestDesktopAnAnswerStoppedEarlierSaysWhoStoppedIt(t *testing.T) {
	for _, c := range []struct {
		how, want string
		end       func(db *store.DB, runID string) error
	}{
		{"stopped", "Stopped.", func(db *store.DB, id string) error { _, err := db.FinishRun(id, events.StopAborted, nil); return err }},
		{"quit", "Cut short: the app closed before the answer ended.", func(db *store.DB, id string) error {
			if _, err := db.FinishRun(id, events.StopAborted, nil); err != nil {
				return err
			}
			_, err := db.UpdateRun(id, func(r *store.Run) { r.Quit = true })
			return err
		}},
	} {
		t.Run(c.how, func(t *testing.T) {
			r := startDesktopRunWith(t, chattyModel, store.Settings{}, "", withSeed(func(db *store.DB, ws string) {
				chat, first := seedQuestion(t, db, ws, "Write a long answer")
				if _, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleAssistant, RunID: first.ID, Content: "part0 part1 part2", DoneReason: events.StopAborted}); err != nil {
					t.Fatal(err)
				}
				if err := c.end(db, first.ID); err != nil {
					t.Fatal(err)
				}
				later, _, err := db.StartRunWith(store.Run{ChatID: chat.ID}, store.Message{Role: store.RoleUser, Content: "Go on", Complete: true})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleAssistant, RunID: later.ID, Content: "part3 part4.", Complete: true, DoneReason: "stop"}); err != nil {
					t.Fatal(err)
				}
				if _, err := db.FinishRun(later.ID, events.StopCompleted, nil); err != nil {
					t.Fatal(err)
				}
				if err := db.SetOpenChat(chat.ID); err != nil {
					t.Fatal(err)
				}
			}))
			// the line of its own under the answer (a notice with no control is read with its neighbours)
			said := r.app.waitTexts(func(s string) bool { return slices.Contains(strings.Split(s, "\n"), c.want) }, 30*time.Second)
			if len(said) == 0 || len(r.app.textsWith("Stopped before the end.")) != 0 {
				t.Errorf("the window does not say %q, or says \"Stopped before the end.\" (%s)", c.want, r.app.screenshot("stopped-earlier-"+c.how+".png"))
			}
			r.finish(t, "stopped-earlier-"+c.how+".png")
		})
	}
}

// TestDesktopAReopenedChatSaysWhetherTheUserStoppedAnAnswerOrTheAppClosedOnIt: an answer the
// user stopped (Esc), followed by another run, reads "Stopped." once the app is opened again;
// one the app closed on while it streamed reads as cut short by the app.
func TestDesktopAReopenedChatSaysWhetherTheUserStoppedAnAnswerOrTheAppClosedOnIt(t *testing.T) {
	for _, c := range []struct{ how, want string }{
		{"stopped", "Stopped."},
		{"closed", "Cut short: the app closed before the answer ended."},
	} {
		t.Run(c.how, func(t *testing.T) {
			slow := pacedAnswers(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond, 1)
			r := startDesktopRunWith(t, chattyModel, store.Settings{}, "Write a long answer", withArgs("--ollama", slow))
			r.waitLog(t, events.TextDelta, true, 60*time.Second)
			if c.how == "stopped" {
				r.app.key("Escape")
				r.waitLog(t, events.RunFinished, true, 60*time.Second)
				r.waitStopped(t)
				r.sendAndWait(t, "Something else", 2)
			}
			r.reopen(t, chattyModel, "bridge-"+c.how+"-reopened")
			said := r.app.waitTexts(func(s string) bool { return slices.Contains(strings.Split(s, "\n"), c.want) }, 30*time.Second)
			if len(said) == 0 || len(r.app.textsWith("Stopped before the end.")) != 0 {
				t.Errorf("reopened, the chat does not say %q under the answer, or says \"Stopped before the end.\" (%s)", c.want, r.app.screenshot("reopened-"+c.how+".png"))
			}
			r.finish(t, "reopened-"+c.how+".png")
		})
	}
}
