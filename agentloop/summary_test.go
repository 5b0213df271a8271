package agentloop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// summaryHarness is an agent whose fake model echoes a long text in the first turn of a chat
// and answers the summary request with summary, in a context of 2048 tokens; the first run
// is done, and the next message does not fit.
func summaryHarness(t *testing.T, summary model.Turn) (a *Agent, m *fakeModel, db *store.DB, rec *recorder, summaryReqs *[]model.Request, chatID string) {
	t.Helper()
	return summaryHarnessWith(t, summary, nil)
}

// summaryHarnessWith is summaryHarness with cfg applied to the agent's Config.
func summaryHarnessWith(t *testing.T, summary model.Turn, cfg func(*Config)) (a *Agent, m *fakeModel, db *store.DB, rec *recorder, summaryReqs *[]model.Request, chatID string) {
	t.Helper()
	big := strings.Repeat("y", 4000)
	summaryReqs = &[]model.Request{}
	m = &fakeModel{turn: func(req model.Request) model.Turn {
		if req.Messages[0].Content == summaryRequestText {
			*summaryReqs = append(*summaryReqs, req)
			return summary
		}
		if trail(req) == "U" {
			return toolTurn(tc("", "echo", fmt.Sprintf(`{"text":%q}`, big)))
		}
		return answer("ok")
	}}
	a, db, rec = fakeHarness(t, m, cfg, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	return a, m, db, rec, summaryReqs, runFake(t, a, "first").ChatID
}

func TestOlderTurnsThatNoLongerFitAreSummarizedByTheModelInsteadOfLost(t *testing.T) {
	a, m, db, rec, reqs, chatID := summaryHarness(t, answer("<think>Condense.</think>The user had echo repeat a long text; it worked."))
	out := Outcome{ChatID: chatID}
	summaryReqs := *reqs
	if len(summaryReqs) != 0 {
		t.Fatalf("a summary was asked for a run whose turns fit")
	}
	if _, err := a.RunOnce(context.Background(), out.ChatID, "second", RunOptions{Summarize: store.SummarizeAlways}); err != nil {
		t.Fatal(err)
	}
	summaryReqs = *reqs
	if len(summaryReqs) != 1 || !strings.Contains(summaryReqs[0].Messages[1].Content, "USER:\nfirst") ||
		summaryReqs[0].Think != "off" || len(summaryReqs[0].Tools) != 0 {
		t.Fatalf("summary requests %+v", summaryReqs)
	}
	last := m.reqs[len(m.reqs)-1]
	if trail(last) != "SU" || last.Messages[1].Content != summaryIntro+"The user had echo repeat a long text; it worked." ||
		last.Messages[2].Content != "second" {
		t.Fatalf("the request after the summary: %s %+v", trail(last), last.Messages[1:])
	}
	msgs, _ := db.Messages(out.ChatID)
	sum := msgs[len(msgs)-2]
	if sum.Role != store.RoleSystem || sum.SummaryOf != msgs[3].ID || !strings.HasPrefix(sum.Content, "The user had echo") {
		t.Fatalf("stored %q; summary %+v", roles(msgs), sum)
	}
	started := ofType(rec.events(), events.MessageStarted)
	var shown bool
	for _, e := range started {
		shown = shown || e.Kind == events.KindSummary && e.MessageID == sum.ID && e.DroppedMessages == 4
	}
	if !shown {
		t.Fatalf("the summary was not shown: %s", summary(started))
	}

	// the next run sends the summary again, not the turns it stands for
	if _, err := a.RunOnce(context.Background(), out.ChatID, "third", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if last := m.reqs[len(m.reqs)-1]; trail(last) != "SUAU" || !strings.HasPrefix(last.Messages[1].Content, summaryIntro) || len(*reqs) != 1 {
		t.Fatalf("the next run: %s, %d summaries", trail(last), len(summaryReqs))
	}
}

func TestWhenTheSummaryFailsTheOldTurnsAreLeftOutAsBefore(t *testing.T) {
	a, _, db, rec, _, chatID := summaryHarness(t, model.Turn{DoneReason: "stop"}) // an empty summary
	if _, err := a.RunOnce(context.Background(), chatID, "second", RunOptions{Summarize: store.SummarizeAlways}); err != nil {
		t.Fatal(err)
	}
	if len(ofType(rec.events(), events.ContextTruncated)) == 0 {
		t.Fatal("no context.truncated: the turns left out were not said")
	}
	msgs, _ := db.Messages(chatID)
	for _, msg := range msgs {
		if msg.SummaryOf != "" {
			t.Fatalf("an empty summary was stored: %+v", msg)
		}
	}
}

// offerOf returns the summary offer kept with a run.
func offerOf(t *testing.T, db *store.DB, runID string) store.SummaryOffer {
	t.Helper()
	run, err := db.Run(runID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range run.Notes {
		if n.Offer != nil {
			return *n.Offer
		}
	}
	t.Fatalf("run %s keeps no offer: %+v", runID, run.Notes)
	return store.SummaryOffer{}
}

// pausedOnOffer sends "second" to the summary harness's chat through the window's path and
// waits until the run pauses on the offer.
func pausedOnOffer(t *testing.T, a *Agent, rec *recorder, chatID string) events.Event {
	t.Helper()
	if _, err := a.Send(context.Background(), chatID, "second"); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, "the offer's pause", func(evs []events.Event) bool {
		phases := phasesOf(evs)
		return len(phases) > 0 && phases[len(phases)-1] == events.PhaseAwaitingSummary
	})
	offered := ofType(evs, events.SummaryOffered)
	fin := ofType(evs, events.RunFinished)
	if len(offered) != 1 || fin[1].StopReason != events.StopAwaitingSummary || a.Phase(chatID) != events.PhaseAwaitingSummary {
		t.Fatalf("offers %s, finished %s, phase %s", summary(offered), summary(fin), a.Phase(chatID))
	}
	return offered[0]
}

func TestOlderTurnsThatNoLongerFitAreOfferedForASummaryAndSummarizedWhenTheUserSaysSo(t *testing.T) {
	a, m, db, rec, reqs, chatID := summaryHarness(t, answer("The user had echo repeat a long text."))
	requests := len(m.reqs)
	offer := pausedOnOffer(t, a, rec, chatID)
	if len(m.reqs) != requests || len(*reqs) != 0 {
		t.Fatal("the model was asked before the user answered the offer")
	}
	if offer.DroppedMessages != 3 || offer.NumCtx != 2048 || offer.Model != "fake" || offer.EstimatedTokens <= 2048 ||
		!strings.Contains(offer.Message, "3 earlier messages no longer fit in fake's context") {
		t.Fatalf("offer %+v", offer)
	}
	if kept := offerOf(t, db, offer.RunID); kept.ID != offer.OfferID || kept.Choice != "" {
		t.Fatalf("kept offer %+v", kept)
	}
	if err := a.AnswerSummary(chatID, store.SummaryChoiceSummarize); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, "the resumed run", finished(3))
	if len(*reqs) != 1 || trail(m.reqs[len(m.reqs)-1]) != "SU" {
		t.Fatalf("%d summaries; last request %s", len(*reqs), trail(m.reqs[len(m.reqs)-1]))
	}
	answered := ofType(evs, events.SummaryAnswered)
	if len(answered) != 1 || answered[0].Choice != store.SummaryChoiceSummarize || answered[0].OfferID != offer.OfferID {
		t.Fatalf("answers %s", summary(answered))
	}
	if kept := offerOf(t, db, offer.RunID); kept.Choice != store.SummaryChoiceSummarize {
		t.Fatalf("the answer was not kept: %+v", kept)
	}
	if started := ofType(evs, events.RunStarted); started[len(started)-1].Trigger != events.TriggerSummary {
		t.Fatalf("the resumed run's trigger %q", started[len(started)-1].Trigger)
	}
	if err := a.AnswerSummary(chatID, store.SummaryChoiceLeaveOut); !errors.Is(err, ErrNoSummaryOffer) {
		t.Fatalf("a second answer: %v", err)
	}
}

func TestOlderTurnsTheUserLeavesOutAreLeftOutAndSaid(t *testing.T) {
	a, m, db, rec, reqs, chatID := summaryHarness(t, answer("unused"))
	offer := pausedOnOffer(t, a, rec, chatID)
	if err := a.AnswerSummary(chatID, store.SummaryChoiceLeaveOut); err != nil {
		t.Fatal(err)
	}
	evs := rec.waitFor(t, "the resumed run", finished(3))
	if len(*reqs) != 0 || len(ofType(evs, events.ContextTruncated)) != 1 {
		t.Fatalf("%d summaries; events %s", len(*reqs), summary(evs))
	}
	if last := m.reqs[len(m.reqs)-1]; trail(last) != "AU" || last.Messages[2].Content != "second" {
		t.Fatalf("the request after leaving out: %s", trail(last))
	}
	if kept := offerOf(t, db, offer.RunID); kept.Choice != store.SummaryChoiceLeaveOut {
		t.Fatalf("the answer was not kept: %+v", kept)
	}
}

func TestWithSummarizeNeverOlderTurnsAreLeftOutWithoutAnOffer(t *testing.T) {
	a, _, _, rec, reqs, chatID := summaryHarness(t, answer("unused"))
	out, err := a.RunOnce(context.Background(), chatID, "second", RunOptions{Summarize: store.SummarizeNever})
	if err != nil || out.StopReason != events.StopCompleted {
		t.Fatal(out.StopReason, err)
	}
	if evs := rec.events(); len(*reqs) != 0 || len(ofType(evs, events.SummaryOffered)) != 0 || len(ofType(evs, events.ContextTruncated)) != 1 {
		t.Fatalf("%d summaries; events %s", len(*reqs), summary(evs))
	}
}

func TestTheSettingDecidesWhatHappensToOlderTurns(t *testing.T) {
	a, _, db, rec, reqs, chatID := summaryHarness(t, answer("A summary."))
	if err := db.PutSettings(store.Settings{ContextCap: 2048, OlderTurns: store.SummarizeAlways}); err != nil {
		t.Fatal(err)
	}
	if out, err := a.RunOnce(context.Background(), chatID, "second", RunOptions{}); err != nil || out.StopReason != events.StopCompleted {
		t.Fatal(out.StopReason, err)
	}
	if len(*reqs) != 1 || len(ofType(rec.events(), events.SummaryOffered)) != 0 {
		t.Fatalf("%d summaries with the setting always", len(*reqs))
	}
	if err := db.PutSettings(store.Settings{OlderTurns: "sometimes"}); err == nil {
		t.Fatal("a setting that is no choice was saved")
	}
}

func TestStopWhileTheOfferWaitsClosesItUnansweredAndKeepsTheMessageSentMeanwhile(t *testing.T) {
	a, m, db, rec, _, chatID := summaryHarness(t, answer("A summary."))
	offer := pausedOnOffer(t, a, rec, chatID)
	requests := len(m.reqs)
	if _, err := a.Send(context.Background(), chatID, "and this"); err != nil {
		t.Fatal(err)
	}
	if a.Phase(chatID) != events.PhaseAwaitingSummary || len(m.reqs) != requests {
		t.Fatalf("a message sent while the offer waits started something: phase %s", a.Phase(chatID))
	}
	if err := a.Stop(chatID); err != nil {
		t.Fatal(err)
	}
	if a.Phase(chatID) != events.PhaseIdle {
		t.Fatalf("phase after Stop: %s", a.Phase(chatID))
	}
	if kept := offerOf(t, db, offer.RunID); kept.Choice != store.SummaryChoiceNone {
		t.Fatalf("the stopped offer %+v", kept)
	}
	if err := a.AnswerSummary(chatID, store.SummaryChoiceSummarize); !errors.Is(err, ErrNoSummaryOffer) {
		t.Fatalf("an answer after Stop: %v", err)
	}
	// the message sent meanwhile was stored as it was sent: it stays in the chat and the
	// next run reads it
	if _, err := a.RunOnce(context.Background(), chatID, "third", RunOptions{Summarize: store.SummarizeNever}); err != nil {
		t.Fatal(err)
	}
	if last := m.reqs[len(m.reqs)-1]; trail(last) != "AUUU" || last.Messages[len(last.Messages)-2].Content != "and this" {
		t.Fatalf("the message sent while the offer waited is not read after the Stop: %s", trail(last))
	}
}

func TestStopJustBeforeTheOfferIsMadeEndsTheRunStoppedWithNoOfferWaiting(t *testing.T) {
	a, _, db, rec, _, chatID := summaryHarness(t, answer("A summary."))
	gate := make(chan struct{})
	a.cfg.Store = gatedStore{a.cfg.Store, gate}
	var once sync.Once
	rec.mu.Lock()
	rec.react = func(e events.Event) {
		// the queued message joins the run right before the request the offer precedes
		if e.Type == events.MessageStarted && e.Trigger == events.TriggerSteering {
			once.Do(func() { _ = a.Stop(chatID) })
		}
	}
	rec.mu.Unlock()
	for _, text := range []string{"second", "and this"} {
		if _, err := a.Send(context.Background(), chatID, text); err != nil {
			t.Fatal(err)
		}
	}
	close(gate)
	evs := rec.waitFor(t, "the stopped run", finished(2))
	fin := ofType(evs, events.RunFinished)
	if fin[1].StopReason != events.StopAborted || a.Phase(chatID) != events.PhaseIdle {
		t.Fatalf("stopped as the offer was made: %s, phase %s", summary(fin), a.Phase(chatID))
	}
	run, err := db.Run(fin[1].RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range run.Notes {
		if n.Offer != nil && n.Offer.Choice == "" {
			t.Fatalf("an offer waits in the stopped run: %+v", n.Offer)
		}
	}
	if err := a.AnswerSummary(chatID, store.SummaryChoiceSummarize); !errors.Is(err, ErrNoSummaryOffer) {
		t.Fatalf("an answer after the Stop: %v", err)
	}
}

// gatedStore is a store whose reads of a chat's history wait for gate: a run reads it before
// its first request, a message's admission does not.
type gatedStore struct {
	Store
	gate chan struct{}
}

func (g gatedStore) Messages(chatID string) ([]store.Message, error) {
	<-g.gate
	return g.Store.Messages(chatID)
}

func TestLeaveOutHoldsForTheChatSoLaterMessagesAreNotOfferedAgain(t *testing.T) {
	a, _, _, rec, reqs, chatID := summaryHarness(t, answer("unused"))
	pausedOnOffer(t, a, rec, chatID)
	if err := a.AnswerSummary(chatID, store.SummaryChoiceLeaveOut); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the resumed run", finished(3))
	out, err := a.RunOnce(context.Background(), chatID, "third", RunOptions{})
	if err != nil || out.StopReason != events.StopCompleted {
		t.Fatal(out.StopReason, err)
	}
	evs := rec.events()
	if offers := ofType(evs, events.SummaryOffered); len(offers) != 1 || len(*reqs) != 0 {
		t.Fatalf("after leave out: %d offers, %d summaries", len(offers), len(*reqs))
	}
	if truncated := ofType(evs, events.ContextTruncated); len(truncated) < 2 {
		t.Fatalf("the later turn did not say it left messages out: %s", summary(truncated))
	}
}

func TestAnAnswerThatCannotResumeTheChatLeavesTheOfferWaiting(t *testing.T) {
	a, m, db, rec, _, chatID := summaryHarness(t, answer("A summary."))
	offer := pausedOnOffer(t, a, rec, chatID)
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := a.AnswerSummary(chatID, store.SummaryChoiceSummarize); !errors.Is(err, ErrShutDown) {
		t.Fatalf("an answer to a shut down agent: %v", err)
	}
	if kept := offerOf(t, db, offer.RunID); kept.Choice != "" || len(ofType(rec.events(), events.SummaryAnswered)) != 0 {
		t.Fatalf("an answer that started nothing was kept or said: %+v", kept)
	}
	b := NewAgent(Config{Model: m, Store: db, Emitter: newRecorder(), Tools: a.cfg.Tools, DefaultModel: "fake", Approve: ApproveAuto})
	t.Cleanup(func() { b.Shutdown(context.Background()) })
	if b.Phase(chatID) != events.PhaseAwaitingSummary {
		t.Fatalf("after the failed answer and a restart the chat is %s", b.Phase(chatID))
	}
}

func TestAQueuedMessageJoinsTheRunTheAnswerResumes(t *testing.T) {
	a, m, _, rec, _, chatID := summaryHarness(t, answer("A summary."))
	pausedOnOffer(t, a, rec, chatID)
	if _, err := a.Send(context.Background(), chatID, "and this"); err != nil {
		t.Fatal(err)
	}
	if err := a.AnswerSummary(chatID, store.SummaryChoiceLeaveOut); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the resumed run", finished(3))
	if last := m.reqs[len(m.reqs)-1]; trail(last) != "AUU" || last.Messages[3].Content != "and this" {
		t.Fatalf("the queued message did not join the resumed run: %s", trail(last))
	}
}

func TestAnOfferWaitingAtARestartWaitsAfterIt(t *testing.T) {
	a, m, db, rec, _, chatID := summaryHarness(t, answer("A summary."))
	pausedOnOffer(t, a, rec, chatID)
	if _, err := a.Send(context.Background(), chatID, "and this"); err != nil {
		t.Fatal(err)
	}
	if err := a.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	rec2 := newRecorder()
	b := NewAgent(Config{Model: m, Store: db, Emitter: rec2, Tools: a.cfg.Tools, DefaultModel: "fake", Approve: ApproveAuto})
	t.Cleanup(func() { b.Shutdown(context.Background()) })
	if b.Phase(chatID) != events.PhaseAwaitingSummary {
		t.Fatalf("after a restart the chat is %s", b.Phase(chatID))
	}
	if err := b.AnswerSummary(chatID, store.SummaryChoiceSummarize); err != nil {
		t.Fatal(err)
	}
	rec2.waitFor(t, "the resumed run", finished(1))
	msgs, _ := db.Messages(chatID)
	if !slices.ContainsFunc(msgs, func(m store.Message) bool { return m.SummaryOf != "" }) {
		t.Fatalf("no summary after the restart: %q", roles(msgs))
	}
	// the message sent while the offer waited outlived the restart and reached the model
	last := m.reqs[len(m.reqs)-1]
	if got := last.Messages[len(last.Messages)-1].Content; got != "and this" {
		t.Fatalf("the message sent before the restart was lost: the last request ends with %q", got)
	}
}

func TestATerminalAnswersTheOfferWithoutPausing(t *testing.T) {
	a, _, _, rec, reqs, chatID := summaryHarness(t, answer("A summary."))
	asked := offererFunc(func(ctx context.Context, _ string, o store.SummaryOffer) (string, error) {
		return store.SummaryChoiceSummarize, nil
	})
	out, err := a.RunOnce(context.Background(), chatID, "second", RunOptions{Offerer: asked})
	if err != nil || out.StopReason != events.StopCompleted || len(*reqs) != 1 {
		t.Fatal(out.StopReason, err, len(*reqs))
	}
	phases := phasesOf(rec.events())
	if !slices.Contains(phases, events.PhaseAwaitingSummary) {
		t.Fatalf("phases %v", phases)
	}
}

func TestStopWhileTheTerminalAsksEndsTheRunAborted(t *testing.T) {
	a, _, db, _, reqs, chatID := summaryHarness(t, answer("A summary."))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := offererFunc(func(asking context.Context, _ string, _ store.SummaryOffer) (string, error) {
		cancel() // the user interrupts while the terminal asks, however long the run took to get here
		<-asking.Done()
		return "", asking.Err()
	})
	out, _ := a.RunOnce(ctx, chatID, "second", RunOptions{Offerer: stopped})
	if out.StopReason != events.StopAborted || len(*reqs) != 0 {
		t.Fatalf("stop reason %q, %d summaries", out.StopReason, len(*reqs))
	}
	if kept := offerOf(t, db, out.RunID); kept.Choice != store.SummaryChoiceNone {
		t.Fatalf("the offer the run was stopped on %+v", kept)
	}
}

type offererFunc func(ctx context.Context, chatID string, o store.SummaryOffer) (string, error)

func (f offererFunc) OfferSummary(ctx context.Context, chatID string, o store.SummaryOffer) (string, error) {
	return f(ctx, chatID, o)
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

// The offer writes token counts as every label and sentence does (vocab.TokenCount), so that
// the offer and the window's context gauge never disagree on one figure.
func TestTheOfferCountsTokensAsTheGaugeDoes(t *testing.T) {
	got := OfferSentence(store.SummaryOffer{Messages: 3, Model: "qwen3:4b", Tokens: 9318, NumCtx: 8192})
	if want := "(9.1K of 8K tokens)"; !strings.Contains(got, want) {
		t.Errorf("the offer says %q, want it to hold %q", got, want)
	}
}
