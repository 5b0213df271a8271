package agentloop

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// streamedTurn is one assistant message as the model streams it. Each step is a method,
// called in this order by [run.turn], one after another (the model calls receive for one
// delta at a time, before its Chat returns), so that the type needs no lock:
//
//   - fitPrompt: the history fitted to the context, older turns summarized or left out;
//   - stream: the request, with the wait for the model to load watched (loadwatch.go); each
//     delta is shown and saved (receive);
//   - endText: the text filters let go of what they hold, or the answer's calls written as
//     text are taken as calls;
//   - keepPartial, on failure: what arrived is kept, the message left incomplete;
//   - account: the turn's usage, and what its prompt count teaches the estimator;
//   - toolCalls: each call gets its own id and arguments that are an object;
//   - finish: the calls and the end of the message saved and said.
//
// The answer's text goes through two filters: inline reasoning becomes thinking (split), and
// the beginning of an answer that may be a call written as text waits until that is known
// (hold).
type streamedTurn struct {
	r    *run
	fit  fitResult          // the prompt as it fits the context
	defs []tools.Definition // the tools offered, as the request carries them (nil: in the system prompt)

	// saver keeps the streaming message (store.MessageSaver): it is saved now and then while
	// deltas arrive, at once at the tool-call boundary and at the end. nil until the answer
	// begins; saverErr is why it could not begin.
	saver    *store.MessageSaver
	saverErr error

	// asked is when the request left (again, after a retry's delay), firstToken the wait from
	// then to the answer's first text or thinking (0: none yet); see [events.Usage.FirstTokenMs].
	asked      time.Time
	firstToken time.Duration

	split vocab.ReasoningSplitter
	hold  textHold
	// recovered are the calls the answer wrote as text, taken as its calls (nil: none).
	recovered []writtenCall
}

// turn streams one assistant message: the run's control flow over the steps of a
// [streamedTurn].
func (r *run) turn() (store.Message, model.Turn, error) {
	t := &streamedTurn{r: r, hold: textHold{on: r.recoverCalls}}
	defer t.endSaver()
	if err := t.fitPrompt(); err != nil {
		return store.Message{}, model.Turn{}, err
	}
	turn, err := t.stream()
	if err = t.endText(turn, err); err != nil {
		return store.Message{}, turn, t.keepPartial(err)
	}
	usage := t.account(turn)
	m, err := t.finish(turn, t.toolCalls(turn), usage)
	return m, turn, err
}

// fitPrompt fits the run's history into the context: when older turns no longer fit, the
// run's answer to them (an offer, the setting) has them summarized or left out, and leaving
// messages out is said. It fails with errOfferWaits when the run pauses on a summary offer.
func (t *streamedTurn) fitPrompt() error {
	r := t.r
	system := []store.Message{{Role: store.RoleSystem, Content: r.system}}
	defs := formDefinitions(r.defs, r.history, r.compact)
	if r.written { // the tools are in the system prompt, counted there
		system[0].Content += writtenCallsPrompt(defs)
		defs = nil
	}
	t.defs = defs
	budget := promptBudget(r.numCtx, r.opts.NumPredict)
	t.fit = fitContext(r.est, system, condensed(r.history), defs, budget)
	if t.fit.dropped > 0 {
		// what is offered or summarized is the stored history
		if err := r.awaitCommit(); err != nil {
			return err
		}
		r.syncHistory()
		t.fit = fitContext(r.est, system, condensed(r.history), defs, budget)
	}
	if t.fit.dropped > 0 {
		choice, err := r.olderTurns(t.fit)
		if err != nil {
			return err
		}
		if choice == store.SummaryChoiceSummarize && r.summarize() {
			// older turns no longer fit: the model summarized them, the summary goes in their place
			t.fit = fitContext(r.est, system, condensed(r.history), defs, budget)
		}
	}
	if t.fit.dropped > 0 {
		r.emit(events.Event{Type: events.ContextTruncated, DroppedMessages: t.fit.dropped,
			EstimatedTokens: t.fit.estimated, NumCtx: r.numCtx})
	}
	return nil
}

// stream sends the fitted prompt and receives the answer, watching the wait for the model
// to load. When it returns without an error, the message has begun (also for an answer
// that brought no delta).
func (t *streamedTurn) stream() (model.Turn, error) {
	r := t.r
	req := model.Request{Model: r.opts.Model, Messages: t.fit.messages, Tools: t.defs, Think: r.opts.Think,
		NumCtx: r.numCtx, NumPredict: r.opts.NumPredict, FirstByteTimeout: r.opts.FirstByteTimeout,
		KeepAlive: r.keepAlive, MaxAnswerBytes: r.opts.MaxAnswerBytes}
	load := r.watchLoad(req.Model, req.NumCtx)
	t.asked = time.Now()
	turn, err := r.a.cfg.Model.Chat(r.ctx, req, func(d model.Delta) error { return t.receive(d, load) })
	if err != nil {
		load.stop()
		return turn, err
	}
	load.arrived()
	load.loaded(turn.LoadDuration)
	r.a.lastAnswer.note(req.Model, req.NumCtx)
	if t.firstToken == 0 { // an answer of calls alone: they arrived with its end
		t.firstToken = time.Since(t.asked)
	}
	t.begin()
	return turn, t.saverErr
}

// receive takes one delta of the answer: a retry is said, the first byte ends the wait for
// the model to load, and text and thinking are shown and saved.
func (t *streamedTurn) receive(d model.Delta, load *loadWatch) error {
	r := t.r
	if err := r.awaitCommit(); err != nil {
		return err
	}
	if err := r.ctx.Err(); err != nil {
		// stopped: lines already read (a fast model's whole answer) are not shown
		return err
	}
	if d.Retry != nil {
		r.emit(events.Event{Type: events.Retry, Attempt: d.Retry.Attempt, DelayMs: d.Retry.Delay.Milliseconds(),
			Reason: d.Retry.Reason})
		t.asked = time.Now().Add(d.Retry.Delay) // the request leaves again after the delay
		return nil
	}
	if t.firstToken == 0 && (d.Content != "" || d.Thinking != "") {
		t.firstToken = max(time.Since(t.asked), time.Millisecond)
	}
	load.arrived()
	if d.Started {
		return nil
	}
	t.begin()
	if t.saverErr != nil {
		return t.saverErr
	}
	thinking, text := t.split.Push(d.Content)
	return t.show(d.Thinking+thinking, t.hold.push(text))
}

// begin starts the assistant message, once: given its id, announced, the chat streaming.
// Nothing waits for the disk here: the message is first written by its saver's first save,
// after its first text went out. It begins after the run's commit, so that it follows the
// user's message.
func (t *streamedTurn) begin() {
	r := t.r
	if t.saver != nil || t.saverErr != nil {
		return
	}
	if t.saverErr = r.awaitCommit(); t.saverErr != nil {
		return
	}
	r.syncHistory()
	t.saver, t.saverErr = r.a.cfg.Store.NewMessageSaver(r.cs.id, store.Message{Role: store.RoleAssistant, RunID: r.id})
	if t.saverErr == nil {
		r.answered = true
		r.phase(events.PhaseStreaming)
		r.emit(events.Event{Type: events.MessageStarted, MessageID: t.saver.ID(), Role: store.RoleAssistant})
	}
}

// show says and saves what passed the filters. A delta is in the saver's stream journal
// before it goes out, so that what the window paints survives a kill -9; the message's save,
// which syncs the disk once a second, comes after, so the delta never waits for it.
func (t *streamedTurn) show(thinking, text string) error {
	r := t.r
	if thinking != "" {
		t.saver.AppendThinking(thinking)
		r.emit(events.Event{Type: events.ThinkingDelta, MessageID: t.saver.ID(), Text: thinking})
	}
	if text != "" {
		t.saver.AppendText(text)
		r.emit(events.Event{Type: events.TextDelta, MessageID: t.saver.ID(), Text: text})
	}
	return t.saver.SaveIfDue()
}

// endText ends the filters of an answer that began and was not stopped: what they still
// hold is shown, unless the whole answer is calls written as text (t.recovered). It returns
// err, or the failure to save what it showed.
func (t *streamedTurn) endText(turn model.Turn, err error) error {
	if t.saver == nil || t.saverErr != nil || t.r.ctx.Err() != nil {
		return err
	}
	thinking, text := t.split.Flush()
	text = t.hold.push(text)
	if err == nil && len(turn.ToolCalls) == 0 && t.hold.holding() != "" {
		t.recovered, _ = recoverTextCalls(t.hold.holding(), t.r.validCall)
	}
	if t.recovered == nil {
		text += t.hold.release()
	}
	if serr := t.show(thinking, text); err == nil {
		err = serr
	}
	return err
}

// endSaver ends the message's saver however the turn ended (finished, stopped, failed on a
// save): the stream journal keeps a message's deltas only while its saver lives.
func (t *streamedTurn) endSaver() {
	if t.saver != nil {
		_ = t.saver.Close() // a failed save was said where it happened
	}
}

// keepPartial keeps what arrived of an answer that failed or was stopped: the message stays
// incomplete, with the reason it ended, and the run's history holds its text. It returns
// err, joined with a failure to save what arrived.
func (t *streamedTurn) keepPartial(err error) error {
	r, saver := t.r, t.saver
	if saver == nil {
		return err
	}
	reason := events.StopError
	if r.ctx.Err() != nil {
		reason = events.StopAborted
	}
	saver.Edit(func(m *store.Message) { m.DoneReason = reason })
	// A failed save of what arrived is worth saying, unless the stream itself failed on a
	// save (a full disk): then it is the same failure, said once.
	if ferr := saver.Flush(); ferr != nil && r.ctx.Err() == nil &&
		!(errors.Is(err, store.ErrWrite) && errors.Is(ferr, store.ErrWrite)) {
		err = errors.Join(err, ferr)
	}
	m := saver.Message()
	m.ToolCalls = nil
	if m.Content != "" || m.Thinking != "" {
		r.history = append(r.history, m)
	}
	return err
}

// account returns the usage of the turn and adds it to the run's. A prompt count that shows
// the server cut the prompt is said; any other teaches the estimator.
func (t *streamedTurn) account(turn model.Turn) events.Usage {
	r := t.r
	expected := r.est.tokens(t.fit.chars, len(t.fit.messages))
	if promptWasCut(expected, turn.PromptTokens, r.numCtx) {
		r.emit(events.Event{Type: events.ContextCut, MessageID: t.saver.ID(), EstimatedTokens: expected, NumCtx: r.numCtx,
			Message: cutPromptSentence(expected, r.numCtx)})
	} else { // a cut prompt's count is the window's, and teaches nothing of the prompt
		r.est.learn(t.fit.chars, len(t.fit.messages), turn.PromptTokens)
	}
	usage := usageOf(turn)
	if t.firstToken > 0 {
		// the server's load of the model is part of the wait, and no measure of the model
		usage.FirstTokenMs = max(t.firstToken-turn.LoadDuration, time.Millisecond).Milliseconds()
	}
	if r.usage.FirstTokenMs == 0 {
		r.usage.FirstTokenMs = usage.FirstTokenMs
	}
	usage.NumCtx = r.numCtx
	usage.ContextTokens = min(max(turn.PromptTokens, expected)+turn.EvalTokens, r.numCtx)
	r.usage.NumCtx = r.numCtx
	r.usage.PromptTokens += usage.PromptTokens
	r.usage.EvalTokens += usage.EvalTokens
	r.usage.EvalMs += usage.EvalMs
	r.usage.PromptMs += usage.PromptMs
	if r.usage.EvalMs > 0 {
		r.usage.TokensPerSec = float64(r.usage.EvalTokens) / (float64(r.usage.EvalMs) / 1000)
	}
	if r.usage.PromptMs > 0 {
		r.usage.PromptTokensPerSec = float64(r.usage.PromptTokens) / (float64(r.usage.PromptMs) / 1000)
	}
	return usage
}

func usageOf(t model.Turn) events.Usage {
	u := events.Usage{PromptTokens: t.PromptTokens, EvalTokens: t.EvalTokens, EvalMs: t.EvalDuration.Milliseconds(),
		PromptMs: t.PromptDuration.Milliseconds()}
	if t.EvalDuration > 0 {
		u.TokensPerSec = float64(t.EvalTokens) / t.EvalDuration.Seconds()
	}
	if t.PromptDuration > 0 {
		u.PromptTokensPerSec = float64(t.PromptTokens) / t.PromptDuration.Seconds()
	}
	return u
}

// toolCalls are the calls of the answer as they are stored: the server's, or those it wrote
// as text, each with an id of its own in the chat and arguments that are an object. A call
// written as text that copies what the model had just read is marked copied; a call whose
// arguments were no object keeps them in badArgs (plan gives it an error result).
func (t *streamedTurn) toolCalls(turn model.Turn) []store.ToolCall {
	r := t.r
	asked := turn.ToolCalls
	if t.recovered != nil {
		asked = make([]store.ToolCall, len(t.recovered))
		for i, c := range t.recovered {
			asked[i] = c.ToolCall
		}
	}
	calls := make([]store.ToolCall, len(asked))
	for i, c := range asked {
		c.ID = r.uniqueCallID(c.ID)
		if t.recovered != nil && t.recovered[i].copiedFrom(r.justRead()) {
			r.copied[c.ID] = true
		}
		// what is stored and sent back is always an object (the server refuses anything
		// else in a history); the call itself gets an error result in plan
		if tools.IsObjectArgs(c.Args) {
			c.Args = tools.ObjectArgs(c.Args) // also {} for what no server could decode (1e400)
		} else {
			r.badArgs[c.ID] = string(c.Args)
			c.Args = json.RawMessage(`{}`)
		}
		calls[i] = c
	}
	return calls
}

// finish saves the message's calls (a tool-call boundary: on disk before any of them runs)
// and shows their cards, then completes the message and adds it to the run's history.
func (t *streamedTurn) finish(turn model.Turn, calls []store.ToolCall, usage events.Usage) (store.Message, error) {
	r, saver := t.r, t.saver
	if len(calls) > 0 {
		if err := saver.AddToolCalls(calls...); err != nil {
			return store.Message{}, err
		}
		for _, c := range calls {
			r.emit(callEvent(saver.ID(), c, events.ToolStatePending))
		}
	}
	if err := saver.Finish(turn.DoneReason, &usage); err != nil {
		return store.Message{}, err
	}
	m := saver.Message()
	r.emit(events.Event{Type: events.MessageCompleted, MessageID: saver.ID(), DoneReason: turn.DoneReason, Usage: &usage,
		Empty: emptyAnswer(m, turn)})
	r.history = append(r.history, m)
	return m, nil
}

// validCall reports whether a call written as text names a tool of the run with arguments
// that pass its schema.
func (r *run) validCall(name string, args json.RawMessage) bool {
	if _, ok := r.defByName[name]; !ok {
		return false
	}
	_, err := r.tools.Validate(name, args)
	return err == nil
}

// uniqueCallID returns the id a new call of the chat is recorded under: the server's when
// the chat has none like it, else one derived from it (call_0, call_0_2, call_0_3, …). Some
// servers number calls from zero in every message, or repeat one id for every call of a
// message; each call still gets its own record and its own result.
func (r *run) uniqueCallID(id string) string {
	if id == "" {
		id = vocab.NewCallID()
	}
	unique := id
	for n := 2; r.callIDs[unique]; n++ {
		unique = fmt.Sprintf("%s_%d", id, n)
	}
	r.callIDs[unique] = true
	return unique
}
