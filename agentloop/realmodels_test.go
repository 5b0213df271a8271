package agentloop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// The ways real local models misbehave, played by scripted models on the real server.

func TestStrayThinkTagsOfAModelThatCannotThinkBecomeReasoningOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "stray"})
	out := h.runOnce(t, "hi", RunOptions{Think: "off"})
	evs := h.rec.events()
	if th, tx := textDeltas(evs, events.ThinkingDelta), textDeltas(evs, events.TextDelta); th != "Hidden plan." || tx != "Visible answer." {
		t.Fatalf("thinking %q, text %q; events %s", th, tx, summary(evs))
	}
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != "Visible answer." || last.Thinking != "Hidden plan." {
		t.Fatalf("stored %+v", last)
	}
}

func TestACallWrittenAsTextIsExecutedOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "texter", approve: ApproveAuto})
	out := h.runCompleted(t, "write t.txt")
	if got, ok := h.file(t, "t.txt"); !ok || got != "from text" {
		t.Fatalf("t.txt = %q, %v; events %s", got, ok, summary(h.rec.events()))
	}
	calls := ofType(h.rec.events(), events.ToolCall)
	if len(calls) == 0 || !calls[0].Recovered {
		t.Fatalf("tool.call events %+v", calls)
	}
	if tx := textDeltas(h.rec.events(), events.TextDelta); tx != "Wrote t.txt." {
		t.Fatalf("text %q: the call was shown as text", tx)
	}
	if r := roles(h.messages(t, out.ChatID)); r != "UATA" {
		t.Fatalf("roles %q", r)
	}
}

func TestATextMentioningAToolIsNotExecutedOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "mentioner", approve: ApproveAuto})
	out := h.runCompleted(t, "explain")
	if _, ok := h.file(t, "t.txt"); ok || len(ofType(h.rec.events(), events.ToolCall)) != 0 {
		t.Fatal("a mention of a tool was executed")
	}
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != `I could call write_file with {"path": "t.txt"}.` {
		t.Fatalf("answer %q", last.Content)
	}
}

func TestAnEmptyTurnIsAskedAgainOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "silent"})
	out := h.runCompleted(t, "hi")
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UAA" || msgs[1].Content != "" || msgs[2].Content != "Here it is." || out.Note != "" {
		t.Fatalf("messages %+v, note %q; events %s", msgs, out.Note, summary(h.rec.events()))
	}
}

func TestAgentsMdReachesTheRealServersPrompt(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "plain"})
	// the scripted model's vocabulary has no words: each byte of the instructions is a token
	instructions := strings.Repeat("Indent with tabs. ", 40)
	if err := os.WriteFile(filepath.Join(h.workspace, "AGENTS.md"), []byte(instructions), 0o644); err != nil {
		t.Fatal(err)
	}
	out := h.runOnce(t, "hi", RunOptions{Think: "off"})
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop %q; events %s", out.StopReason, summary(h.rec.events()))
	}
	done := ofType(h.rec.events(), events.MessageCompleted)
	if u := done[len(done)-1].Usage; u.PromptTokens < len(instructions) {
		t.Fatalf("the server evaluated %d prompt tokens; the %d bytes of AGENTS.md did not reach it", u.PromptTokens, len(instructions))
	}
	if msgs := h.messages(t, out.ChatID); roles(msgs) != "SUA" || msgs[2].Content != "Just text." {
		t.Fatalf("messages %q: the shown instructions must not change what the model answers", roles(msgs))
	}
}

func TestAPromptTheRealServerCutIsSaid(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "reader", approve: ApproveAuto})
	if err := h.db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	// 15400 bytes: each is a token of the scripted model, seven times its context
	if err := os.WriteFile(filepath.Join(h.workspace, "big.txt"), []byte(strings.Repeat("abcdefghij\n", 1400)), 0o644); err != nil {
		t.Fatal(err)
	}
	h.runOnce(t, "read big.txt", RunOptions{})
	done := ofType(h.rec.events(), events.MessageCompleted)
	cut := ofType(h.rec.events(), events.ContextCut)
	if len(cut) != 1 || cut[0].NumCtx != 2048 || done[len(done)-1].Usage.ContextTokens != 2048 {
		t.Fatalf("context.cut events %s; usage %s", summary(cut), summary(done))
	}
}

// untilOffered sends long messages to the chat (a new one when chatID is "") until a run
// pauses on a summary offer, and returns the chat and that run's outcome.
func (h *harness) untilOffered(t *testing.T, chatID string) (string, Outcome) {
	t.Helper()
	return h.untilOlderTurns(t, chatID, "", func(out Outcome) bool { return out.StopReason == events.StopAwaitingSummary })
}

// untilOlderTurns sends long messages to the chat with the policy summarize until done says
// a run's outcome is the one awaited.
func (h *harness) untilOlderTurns(t *testing.T, chatID, summarize string, done func(Outcome) bool) (string, Outcome) {
	t.Helper()
	for i := 0; i < 8; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		out, err := h.agent.RunOnce(ctx, chatID, fmt.Sprintf("%d %s", i, strings.Repeat("x", 700)),
			RunOptions{Think: "off", Summarize: summarize})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		chatID = out.ChatID
		if done(out) {
			return chatID, out
		}
	}
	t.Fatalf("the older messages never stopped fitting after eight long messages; events %s", summary(h.rec.events()))
	return "", Outcome{}
}

func TestOlderMessagesAreSummarizedOrLeftOutWithoutAnOfferAsTheRunSaysOnTheRealServer(t *testing.T) {
	for _, c := range []struct {
		summarize string
		said      events.Type
	}{
		{store.SummarizeAlways, events.MessageStarted}, // the summary's
		{store.SummarizeNever, events.ContextTruncated},
	} {
		t.Run(c.summarize, func(t *testing.T) {
			h := newHarness(t, harnessOptions{model: "noter"})
			if err := h.db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
				t.Fatal(err)
			}
			said := func() bool {
				for _, e := range ofType(h.rec.events(), c.said) {
					if c.said == events.ContextTruncated || e.Kind == events.KindSummary {
						return true
					}
				}
				return false
			}
			h.untilOlderTurns(t, "", c.summarize, func(out Outcome) bool {
				if out.StopReason != events.StopCompleted {
					t.Fatalf("stop reason %q", out.StopReason)
				}
				return said()
			})
			if offers := ofType(h.rec.events(), events.SummaryOffered); len(offers) != 0 {
				t.Fatalf("offers with --summarize %s: %s", c.summarize, summary(offers))
			}
		})
	}
}

func TestAnOfferOnTheRealServerIsStoppedOrWaitsAcrossARestart(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "noter"})
	if err := h.db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	chatID, out := h.untilOffered(t, "")
	if err := h.agent.Stop(chatID); err != nil || h.agent.Phase(chatID) != events.PhaseIdle {
		t.Fatalf("stop: %v, phase %s", err, h.agent.Phase(chatID))
	}
	if answered := ofType(h.rec.events(), events.SummaryAnswered); len(answered) != 1 || answered[0].Choice != store.SummaryChoiceNone {
		t.Fatalf("answers %s", summary(answered))
	}

	// the next offer waits for an agent started anew on the same store
	chatID, out = h.untilOffered(t, chatID)
	if err := h.agent.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := h.agent.cfg
	cfg.Emitter = newRecorder()
	again := NewAgent(cfg)
	t.Cleanup(func() { again.Shutdown(context.Background()) })
	if again.Phase(chatID) != events.PhaseAwaitingSummary || again.LiveRun(chatID) != out.RunID {
		t.Fatalf("after the restart: phase %s, run %q", again.Phase(chatID), again.LiveRun(chatID))
	}
	if err := again.AnswerSummary(chatID, store.SummaryChoiceSummarize); err != nil {
		t.Fatal(err)
	}
	cfg.Emitter.(*recorder).waitFor(t, "the resumed run", finished(1))
	msgs := h.messages(t, chatID)
	if sum := msgs[len(msgs)-2]; sum.SummaryOf == "" || sum.Content != "Noted." {
		t.Fatalf("messages %q: no summary after the restart", roles(msgs))
	}
}

func TestOlderMessagesAreOfferedThenSummarizedOrLeftOutOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "noter"})
	if err := h.db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	chatID, _ := h.untilOffered(t, "")
	if h.agent.Phase(chatID) != events.PhaseAwaitingSummary {
		t.Fatalf("phase %s", h.agent.Phase(chatID))
	}
	if err := h.agent.AnswerSummary(chatID, store.SummaryChoiceSummarize); err != nil {
		t.Fatal(err)
	}
	h.rec.waitFor(t, "the summarized run", func(evs []events.Event) bool {
		fin := ofType(evs, events.RunFinished)
		return fin[len(fin)-1].StopReason == events.StopCompleted && len(ofType(evs, events.SummaryAnswered)) == 1
	})
	msgs := h.messages(t, chatID)
	if sum := msgs[len(msgs)-2]; sum.SummaryOf == "" || sum.Content != "Noted." {
		t.Fatalf("messages %q; no summary before the answer", roles(msgs))
	}

	// later, the user leaves the next older messages out
	_, out := h.untilOffered(t, chatID)
	truncated := len(ofType(h.rec.events(), events.ContextTruncated))
	if err := h.agent.AnswerSummary(chatID, store.SummaryChoiceLeaveOut); err != nil {
		t.Fatal(err)
	}
	evs := h.rec.waitFor(t, "the run with the older messages left out", func(evs []events.Event) bool {
		return len(ofType(evs, events.SummaryAnswered)) == 2 && ofType(evs, events.RunFinished)[len(ofType(evs, events.RunFinished))-1].RunID != out.RunID
	})
	h.rec.waitFor(t, "its end", finished(len(ofType(evs, events.RunStarted))))
	if got := len(ofType(h.rec.events(), events.ContextTruncated)); got != truncated+1 {
		t.Fatalf("%d context.truncated after leaving out, %d before", got, truncated)
	}
}
