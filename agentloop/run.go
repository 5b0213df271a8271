package agentloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// run is one agent run of one chat, from its start to run.finished.
type run struct {
	a         *Agent
	cs        *chatState
	id        string
	ctx       context.Context
	cancel    context.CancelFunc
	opts      RunOptions
	trigger   string
	resume    *pausedRun
	workspace string
	started   time.Time

	contextCap int
	policies   map[string]string
	allowed    []string       // the tools the user allowed for good in the run's workspace
	settings   store.Settings // as the run started: command rules and deny list
	keep       int64          // the largest file a checkpoint keeps
	loopLimit  int
	// recoverCalls executes an answer made of tool calls written as text (see textcalls.go).
	recoverCalls bool
	keepAlive    time.Duration // sent with every request (the setting)
	system       string        // the system prompt: the Config's, then the project's instructions
	// instructionsRefused is why the workspace's AGENTS.md was not read ("" when it was)
	instructionsRefused string
	// agentsFile is the text of the workspace's AGENTS.md the model reads with every request:
	// the folder's, not the user's, so a call copied from it is not run (justRead)
	agentsFile string

	guard    *loopGuard
	stopNote string // why the run stopped, when a sentence says more than its stop reason (a loop, an empty answer)

	tools    Toolbox
	defs     []tools.Definition
	defByNm  map[string]tools.Definition
	history  []store.Message
	est      *estimator
	numCtx   int
	steps    int
	usage    events.Usage
	err      error // the error that ended the run, when stop reason is error
	awaiting []ApprovalRequest
	answered bool // the model answered something in this run (a message was started)
	// offerChoice is the user's answer to this run's summary offer (store.SummaryChoice*),
	// which holds for the rest of the run; offerPause the run's state when it pauses on one.
	offerChoice string
	offerPause  *pausedRun
	// resumedBatch: the decided batch the run resumed was taken up (its calls ran or were
	// closed by runBatch)
	resumedBatch bool

	callIDs map[string]bool   // the tool-call ids of the chat, so that each new call gets its own
	badArgs map[string]string // call id → the arguments as sent, for calls whose arguments were no object
	copied  map[string]bool   // the calls written as text that were copied from what the model read (textcalls.go)

	// stuck counts the tool calls left running after a stop (their tool ignored the
	// cancellation); the toolbox is closed only when they return.
	stuck sync.WaitGroup
	left  atomic.Int32 // calls left behind
}

func (r *run) emit(e events.Event) {
	e.ChatID, e.RunID = r.cs.id, r.id
	r.a.emit(e)
}

func (r *run) phase(p events.Phase) { r.a.setPhase(r.cs, r.id, p) }

// execute runs to the end and records how it ended; a follow-up run starts when messages
// were queued at the very end.
func (r *run) execute() Outcome {
	defer r.a.wg.Done()

	stop, state := r.loop()

	var stateJSON json.RawMessage
	if state != nil {
		stateJSON, _ = json.Marshal(state)
	}
	if r.stopNote != "" {
		// kept with the run, so that the chat reopened says it again
		if _, err := r.a.cfg.Store.AddRunNote(r.id, store.RunNote{StopReason: stop, Message: r.stopNote}); err != nil && r.err == nil {
			r.err = err
		}
	}
	if r.err != nil && stop == events.StopError {
		// why the run failed is kept too: reopened, the chat never shows a message left without
		// an answer and without a reason (a store that cannot write keeps nothing: the error
		// event below says it)
		code, _ := errorCode(r.err)
		_, _ = r.a.cfg.Store.AddRunNote(r.id, store.RunNote{StopReason: stop, Code: code, Message: r.err.Error()})
	}
	if _, err := r.a.cfg.Store.FinishRun(r.id, stop, stateJSON); err != nil && r.err == nil {
		r.err = err
	}
	if r.err != nil && stop == events.StopError {
		r.emitError(r.err)
	}
	usage := r.usage
	a, cs := r.a, r.cs
	cs.mu.Lock()
	// said under cs.mu, with the chat released below before anyone can ask: whoever saw
	// run.finished can start the chat's next run at once (the follow-up's run.started and
	// the phase still come after it)
	r.emit(events.Event{Type: events.RunFinished, StopReason: stop, Usage: &usage, Message: r.stopNote})
	close(cs.done) // wakes a Decide that arrived while the run was pausing
	cs.cancel, cs.done = nil, nil
	if state != nil {
		cs.paused = state
	}
	a.keepQueuedWhileOffered(cs)
	next := events.PhaseIdle
	if state != nil {
		next = events.PhaseAwaitingApproval
	}
	if state.offers() {
		next = events.PhaseAwaitingSummary
	}
	// Messages still queued were sent after the last safe point (or after a Stop, which
	// clears the queue it finds): they start a follow-up run rather than wait unseen; while a
	// summary offer waits they wait for its answer.
	var follow *run
	if q := cs.queue; len(q) > 0 && !a.isDown() && !state.offers() {
		cs.queue = nil
		f, err := a.startLocked(cs, startSpec{prompts: q, trigger: events.TriggerFollowUp})
		if err != nil {
			a.emit(events.Event{ChatID: cs.id, RunID: r.id, Type: events.Error, Code: "internal",
				Message: "your message could not be sent: " + err.Error() + "; send it again"})
		} else {
			follow = f
		}
	}
	if follow == nil {
		// under cs.mu, so that a Send right after cannot see its "submitted" overtaken by this
		a.setPhaseLocked(cs, r.id, next)
	}
	cs.mu.Unlock()
	r.cancel()
	out := Outcome{ChatID: cs.id, RunID: r.id, StopReason: stop, Awaiting: r.awaiting, Answered: r.answered,
		Note: r.stopNote}
	if follow != nil {
		go follow.execute()
	}
	return out
}

// loop is the run's turns. It returns the stop reason and, when the run pauses, its state.
func (r *run) loop() (string, *pausedRun) {
	stop, paused := r.turns()
	if p := r.resume; stop == events.StopError && r.err != nil && p != nil && !p.offers() && !r.resumedBatch {
		// the decided calls the run could not take up (their folder is gone, the model is
		// refused) are closed with the reason: no card stays queued, the history stays whole
		if err := r.a.closePaused(r.cs, p, ToolOutcome{Output: "not run: " + r.err.Error()}); err != nil {
			r.err = errors.Join(r.err, err)
		}
	}
	return stop, paused
}

// turns is loop's work: the resumed batch, then the model's turns.
func (r *run) turns() (string, *pausedRun) {
	r.instructionsNotice()
	tb, closeTools, err := r.a.cfg.Tools(r.workspace)
	if err != nil {
		r.err = err
		return events.StopError, nil
	}
	defer func() {
		if r.left.Load() == 0 {
			_ = closeTools()
			return
		}
		// a call left running after a stop still uses the toolbox: close it behind them
		go func() { r.stuck.Wait(); _ = closeTools() }()
	}()
	r.toolNotices(tb)
	r.tools = tb
	r.defs = tb.Definitions()
	r.defByNm = make(map[string]tools.Definition, len(r.defs))
	for _, d := range r.defs {
		r.defByNm[d.Name] = d
	}
	if r.history, err = r.a.cfg.Store.Messages(r.cs.id); err != nil {
		r.err = err
		return events.StopError, nil
	}
	var resumed map[string]bool
	if r.resume != nil {
		resumed = map[string]bool{}
		for _, c := range r.resume.Calls {
			resumed[c.ID] = true
		}
	}
	r.history = wholeHistory(withoutShownInstructions(r.history), resumed)
	for i, m := range r.history {
		r.history[i] = withFiles(m) // the model reads the files a message named after its text
	}
	r.callIDs, r.badArgs, r.copied = map[string]bool{}, map[string]string{}, map[string]bool{}
	for _, m := range r.history {
		for _, c := range m.ToolCalls {
			r.callIDs[c.ID] = true
		}
		if m.ToolCallID != "" {
			r.callIDs[m.ToolCallID] = true
		}
	}
	r.est = newEstimator()
	r.guard = newLoopGuard(r.loopLimit)
	length, err := r.a.cfg.Model.ContextLength(r.ctx, r.opts.Model)
	if model.Fatal(err) {
		// the chat request would fail the same way (after its own wait): fail once, now
		r.err = err
		return events.StopError, nil
	}
	r.numCtx = numCtxFor(length, r.contextCap)

	if p := r.resume; p.offers() {
		r.offerChoice = p.Offer.Choice
	} else if p != nil {
		r.resumedBatch = true
		if stop, paused, done := r.runBatch(p.MessageID, p.Calls); done {
			return stop, paused
		}
	}
	continuations := 0
	nudged := false // an empty answer was asked again
	for {
		if r.ctx.Err() != nil {
			return events.StopAborted, nil
		}
		r.injectQueued()
		if r.steps >= r.opts.MaxSteps {
			return events.StopMaxSteps, nil
		}
		msg, turn, err := r.turn()
		if errors.Is(err, errOfferWaits) {
			return r.pauseOnOffer()
		}
		r.steps++
		if err != nil {
			if r.ctx.Err() != nil {
				return events.StopAborted, nil
			}
			r.err = err
			return events.StopError, nil
		}
		if len(msg.ToolCalls) == 0 {
			if turn.DoneReason == model.DoneLength {
				if continuations >= maxLengthContinuations {
					return events.StopLength, nil
				}
				continuations++
				r.history = append(r.history, store.Message{Role: store.RoleUser, Content: textContinue})
				r.phase(events.PhaseContinuing)
				continue
			}
			if r.a.hasQueue(r.cs) { // a follow-up arrived while the model answered
				r.phase(events.PhaseContinuing)
				continue
			}
			if emptyAnswer(msg, turn) {
				if !nudged {
					nudged = true
					r.history = append(r.history, store.Message{Role: store.RoleUser, Content: textEmptyAnswer})
					r.phase(events.PhaseContinuing)
					continue
				}
				r.stopNote = noteEmptyAnswer
			}
			return events.StopCompleted, nil
		}
		continuations = 0
		calls := r.plan(msg)
		if stop, paused, done := r.runBatch(msg.ID, calls); done {
			return stop, paused
		}
		if r.stopNote != "" {
			return events.StopLoop, nil
		}
		r.phase(events.PhaseContinuing)
	}
}

// withoutShownInstructions leaves out the messages that show the chat its project
// instructions: the model reads them in the system prompt.
func withoutShownInstructions(msgs []store.Message) []store.Message {
	out := msgs[:0:0]
	for _, m := range msgs {
		if m.Role == store.RoleSystem && m.Instructions != "" {
			continue
		}
		out = append(out, m)
	}
	return out
}

// emptyAnswer reports whether the model ended its turn with nothing: no text, no call (what
// it thought does not count).
func emptyAnswer(msg store.Message, turn model.Turn) bool {
	return len(msg.ToolCalls) == 0 && strings.TrimSpace(msg.Content) == "" &&
		(turn.DoneReason == model.DoneStop || turn.DoneReason == "")
}

// injectQueued commits the messages the user sent while the run was busy and adds them to
// the history, after the results of the last batch: they steer the run.
func (r *run) injectQueued() {
	for _, q := range r.a.takeQueue(r.cs) {
		// the files it names are read now, as the message joins the run (admit checked them)
		files, _ := readMentions(r.ctx, r.tools, q.text)
		m, err := r.a.cfg.Store.AppendMessage(r.cs.id, store.Message{Role: store.RoleUser, Content: q.text,
			Images: q.images, RunID: r.id, Complete: true, Files: files})
		if err != nil {
			r.emitError(err)
			continue
		}
		// the message steers the run from here: said with its id, so that the window can
		// bind the message it shows since the user sent it
		r.emit(events.Event{Type: events.MessageStarted, MessageID: m.ID, Role: store.RoleUser,
			Trigger: events.TriggerSteering})
		r.history = append(r.history, withFiles(m))
		r.guard.reset()
	}
}

// turn streams one assistant message.
func (r *run) turn() (store.Message, model.Turn, error) {
	system := []store.Message{{Role: store.RoleSystem, Content: r.system}}
	budget := promptBudget(r.numCtx, r.opts.NumPredict)
	fit := fitContext(r.est, system, condensed(r.history), r.defs, budget)
	if fit.dropped > 0 {
		choice, err := r.olderTurns(fit)
		if err != nil {
			return store.Message{}, model.Turn{}, err
		}
		if choice == store.SummaryChoiceSummarize && r.summarize() {
			// older turns no longer fit: the model summarized them, the summary goes in their place
			fit = fitContext(r.est, system, condensed(r.history), r.defs, budget)
		}
	}
	if fit.dropped > 0 {
		r.emit(events.Event{Type: events.ContextTruncated, DroppedMessages: fit.dropped,
			EstimatedTokens: fit.estimated, NumCtx: r.numCtx})
	}
	req := model.Request{Model: r.opts.Model, Messages: fit.messages, Tools: r.defs, Think: r.opts.Think,
		NumCtx: r.numCtx, NumPredict: r.opts.NumPredict, FirstByteTimeout: r.opts.FirstByteTimeout,
		KeepAlive: r.keepAlive, MaxAnswerBytes: r.opts.MaxAnswerBytes}

	var cp *store.Checkpointer
	var cpErr error
	begin := func() {
		if cp != nil || cpErr != nil {
			return
		}
		cp, cpErr = r.a.cfg.Store.NewCheckpointer(r.cs.id, store.Message{Role: store.RoleAssistant, RunID: r.id})
		if cpErr == nil {
			r.answered = true
			r.phase(events.PhaseStreaming)
			r.emit(events.Event{Type: events.MessageStarted, MessageID: cp.ID(), Role: store.RoleAssistant})
		}
	}
	// the answer's text goes through two filters: inline reasoning becomes thinking, and the
	// beginning of an answer that may be a call written as text waits until that is known
	var split vocab.ReasoningSplitter
	hold := textHold{on: r.recoverCalls}
	show := func(thinking, text string) error {
		if thinking != "" {
			r.emit(events.Event{Type: events.ThinkingDelta, MessageID: cp.ID(), Text: thinking})
			if err := cp.AddThinking(thinking); err != nil {
				return err
			}
		}
		if text != "" {
			r.emit(events.Event{Type: events.TextDelta, MessageID: cp.ID(), Text: text})
			if err := cp.AddText(text); err != nil {
				return err
			}
		}
		return nil
	}
	load := r.watchLoad(req.Model)
	turn, err := r.a.cfg.Model.Chat(r.ctx, req, func(d model.Delta) error {
		if err := r.ctx.Err(); err != nil {
			// stopped: lines already read (a fast model's whole answer) are not shown
			return err
		}
		if d.Retry != nil {
			r.emit(events.Event{Type: events.Retry, Attempt: d.Retry.Attempt, DelayMs: d.Retry.Delay.Milliseconds(),
				Reason: d.Retry.Reason})
			return nil
		}
		load.arrived()
		if d.Started {
			return nil
		}
		begin()
		if cpErr != nil {
			return cpErr
		}
		thinking, text := split.Push(d.Content)
		return show(d.Thinking+thinking, hold.push(text))
	})
	if err == nil {
		load.arrived()
		load.loaded(turn.LoadDuration)
		begin()
		err = cpErr
	} else {
		load.stop()
	}
	var recovered []writtenCall
	if cp != nil && cpErr == nil && r.ctx.Err() == nil {
		thinking, text := split.Flush()
		text = hold.push(text)
		if err == nil && len(turn.ToolCalls) == 0 && hold.holding() != "" {
			recovered, _ = recoverTextCalls(hold.holding(), r.validCall)
		}
		if recovered == nil {
			text += hold.release()
		}
		if serr := show(thinking, text); err == nil {
			err = serr
		}
	}
	if err != nil {
		if cp != nil { // keep what arrived; the message stays incomplete
			reason := events.StopError
			if r.ctx.Err() != nil {
				reason = events.StopAborted
			}
			cp.Edit(func(m *store.Message) { m.DoneReason = reason })
			// A failed save of what arrived is worth saying, unless the stream itself failed on a
			// save (a full disk): then it is the same failure, said once.
			if ferr := cp.Flush(); ferr != nil && r.ctx.Err() == nil &&
				!(errors.Is(err, store.ErrWrite) && errors.Is(ferr, store.ErrWrite)) {
				err = errors.Join(err, ferr)
			}
			m := cp.Message()
			m.ToolCalls = nil
			if m.Content != "" || m.Thinking != "" {
				r.history = append(r.history, m)
			}
		}
		return store.Message{}, turn, err
	}

	expected := r.est.tokens(fit.chars, len(fit.messages))
	if promptWasCut(expected, turn.PromptTokens, r.numCtx) {
		r.emit(events.Event{Type: events.ContextCut, MessageID: cp.ID(), EstimatedTokens: expected, NumCtx: r.numCtx,
			Message: cutPromptSentence(expected, r.numCtx)})
	} else { // a cut prompt's count is the window's, and teaches nothing of the prompt
		r.est.learn(fit.chars, len(fit.messages), turn.PromptTokens)
	}
	usage := usageOf(turn)
	usage.NumCtx = r.numCtx
	usage.ContextTokens = min(max(turn.PromptTokens, expected)+turn.EvalTokens, r.numCtx)
	r.usage.NumCtx = r.numCtx
	r.usage.PromptTokens += usage.PromptTokens
	r.usage.EvalTokens += usage.EvalTokens
	r.usage.EvalMs += usage.EvalMs
	if r.usage.EvalMs > 0 {
		r.usage.TokensPerSec = float64(r.usage.EvalTokens) / (float64(r.usage.EvalMs) / 1000)
	}
	if recovered != nil {
		turn.ToolCalls = make([]store.ToolCall, len(recovered))
		for i, c := range recovered {
			turn.ToolCalls[i] = c.ToolCall
		}
	}
	calls := make([]store.ToolCall, len(turn.ToolCalls))
	for i, c := range turn.ToolCalls {
		c.ID = r.uniqueCallID(c.ID)
		if recovered != nil && recovered[i].copiedFrom(r.justRead()) {
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
	if len(calls) > 0 {
		if err := cp.AddToolCalls(calls...); err != nil {
			return store.Message{}, turn, err
		}
		for _, c := range calls {
			r.emit(callEvent(cp.ID(), c, events.ToolStatePending))
		}
	}
	if err := cp.Finish(turn.DoneReason, &usage); err != nil {
		return store.Message{}, turn, err
	}
	r.emit(events.Event{Type: events.MessageCompleted, MessageID: cp.ID(), DoneReason: turn.DoneReason, Usage: &usage})
	m := cp.Message()
	r.history = append(r.history, m)
	return m, turn, nil
}

// validCall reports whether a call written as text names a tool of the run with arguments
// that pass its schema.
func (r *run) validCall(name string, args json.RawMessage) bool {
	if _, ok := r.defByNm[name]; !ok {
		return false
	}
	_, err := r.tools.Validate(name, args)
	return err == nil
}

// LoadingNotice is how long a model request goes without a first byte before the
// model.loading event tells the user that the server is probably loading the model, when
// the server cannot say whether it is loaded.
const LoadingNotice = time.Second

// residencyWait bounds the question whether the model is loaded, before each request.
const residencyWait = 2 * time.Second

// loadWatch announces a model being loaded for a request: model.loading at once when the
// server says the model is not in memory (/api/ps), else once the request got no first
// byte within LoadingNotice; then, when the answer ends, model.loaded with the load time
// the server reports (load_duration), or the wait for the first byte when it reports none.
type loadWatch struct {
	r     *run
	model string
	start time.Time
	timer *time.Timer // nil when the server said whether the model is loaded

	mu        sync.Mutex
	announced bool          // model.loading went out
	over      bool          // the first byte came, or the request ended
	waited    time.Duration // from the request to its first byte
}

func (r *run) watchLoad(modelName string) *loadWatch {
	w := &loadWatch{r: r, model: modelName}
	if res, ok := r.a.cfg.Model.(model.Residency); ok {
		ctx, cancel := context.WithTimeout(r.ctx, residencyWait)
		loaded, known := res.Loaded(ctx, modelName)
		cancel()
		if known {
			w.start = time.Now()
			if !loaded {
				w.announce()
			}
			return w
		}
	}
	w.start = time.Now()
	w.timer = time.AfterFunc(LoadingNotice, w.announce)
	return w
}

func (w *loadWatch) announce() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.over {
		w.announced = true
		w.r.emit(events.Event{Type: events.ModelLoading, Model: w.model})
	}
}

// arrived ends the wait: the answer started.
func (w *loadWatch) arrived() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return
	}
	w.over, w.waited = true, time.Since(w.start)
	if w.timer != nil {
		w.timer.Stop()
	}
}

// loaded says, at the end of an answer after a model.loading, how long the load took: the
// server's own figure when it gave one.
func (w *loadWatch) loaded(reported time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.announced {
		return
	}
	w.announced = false
	ms := w.waited.Milliseconds()
	if reported > 0 {
		ms = reported.Milliseconds()
	}
	w.r.emit(events.Event{Type: events.ModelLoaded, Model: w.model, LoadMs: &ms})
}

// stop ends the wait without an answer (the request failed or was stopped).
func (w *loadWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.over = true
	if w.timer != nil {
		w.timer.Stop()
	}
}

func usageOf(t model.Turn) events.Usage {
	u := events.Usage{PromptTokens: t.PromptTokens, EvalTokens: t.EvalTokens, EvalMs: t.EvalDuration.Milliseconds()}
	if t.EvalDuration > 0 {
		u.TokensPerSec = float64(t.EvalTokens) / t.EvalDuration.Seconds()
	}
	return u
}

// plannedCall is one call of a batch after its checks: either it will run (Outcome nil,
// with its policy and decision) or its result is already known.
type plannedCall struct {
	ID       string          `json:"id"`
	Name     string          `json:"name"`
	Args     json.RawMessage `json:"args,omitempty"`
	Outcome  *ToolOutcome    `json:"outcome,omitempty"`
	Policy   string          `json:"policy,omitempty"`
	Decision string          `json:"decision,omitempty"`
	By       string          `json:"by,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	// Recovered: the model wrote the call as text.
	Recovered bool `json:"recovered,omitempty"`
	// Previewed is the state of the paths the call's preview was made against (contents
	// dropped), for a call shown for approval: what the approval holds for.
	Previewed []tools.PathState `json:"previewed,omitempty"`
	// Network: the call runs with the host's network (a command the user allowed so, or
	// a rule did).
	Network bool `json:"network,omitempty"`

	// valid are Args as the toolbox validated them, for executing the call; a batch paused
	// across a restart comes back without and is validated again.
	valid tools.Args
	// seen is the call's number in the run's loop guard (0: not seen, as after a restart).
	seen int
	// touched are the paths the call's checkpoint recorded, set as it runs: it changes no other
	// (nil: it records none).
	touched []string
}

// stored is the call as the message stores it.
func (c plannedCall) stored() store.ToolCall {
	return store.ToolCall{ID: c.ID, Name: c.Name, Args: c.Args, Recovered: c.Recovered}
}

// callEvent is the tool.call event that shows the card of c, a call of the message
// messageID, in state.
func callEvent(messageID string, c store.ToolCall, state string) events.Event {
	return events.Event{Type: events.ToolCall, MessageID: messageID, ToolCallID: c.ID, Name: c.Name, Args: c.Args,
		State: state, Recovered: c.Recovered, Origin: originOf(c.Recovered)}
}

func (c plannedCall) approval() *store.Approval {
	if c.Decision == "" {
		return nil
	}
	return &store.Approval{Decision: c.Decision, By: c.By, Reason: c.Reason, DecidedAt: time.Now()}
}

// pausedRun is the persisted state of a run paused on approvals (store.Run.State).
type pausedRun struct {
	RunID      string        `json:"-"`
	MessageID  string        `json:"messageId"`
	Model      string        `json:"model"`
	Think      string        `json:"think,omitempty"`
	Approve    string        `json:"approve,omitempty"`
	MaxSteps   int           `json:"maxSteps,omitempty"`
	NumPredict int           `json:"numPredict,omitempty"`
	Calls      []plannedCall `json:"calls"`
	// Summarize and Offer: a run paused on a summary offer (no calls) carries its policy and
	// the offer, whose Choice the answer fills in.
	Summarize string              `json:"summarize,omitempty"`
	Offer     *store.SummaryOffer `json:"offer,omitempty"`
}

// offers reports whether p is a run paused on a summary offer (false when p is nil).
func (p *pausedRun) offers() bool { return p != nil && p.Offer != nil }

// index returns the position of the call toolCallID in the batch, or -1 (also when p is nil).
func (p *pausedRun) index(toolCallID string) int {
	if p == nil {
		return -1
	}
	for i, c := range p.Calls {
		if c.ID == toolCallID {
			return i
		}
	}
	return -1
}

func (p *pausedRun) undecided() int {
	n := 0
	for _, c := range p.Calls {
		if c.Outcome == nil && c.Policy == ApproveAsk && c.Decision == "" {
			n++
		}
	}
	return n
}

// plan checks each call of a message: repetition, unknown tool, arguments, PreToolUse hooks,
// policy. A call that repeats the run's latest calls is not run: the model is told once
// instead, and the call that reaches the loop limit stops the run (r.stopNote says why;
// no call of its message runs).
func (r *run) plan(msg store.Message) []plannedCall {
	out := make([]plannedCall, len(msg.ToolCalls))
	verdicts := make([]loopVerdict, len(msg.ToolCalls))
	notes := make([]string, len(msg.ToolCalls))
	first := map[string]bool{}
	for i, c := range msg.ToolCalls {
		// a call asked twice in one message is a duplicate, not a repetition: counted once
		sig := callSignature(c.Name, c.Args)
		if first[sig] {
			continue
		}
		first[sig] = true
		verdicts[i], out[i].seen, notes[i] = r.guard.check(c.Name, c.Args)
		if verdicts[i] == loopStop && r.stopNote == "" {
			r.stopNote = notes[i]
		}
	}
	for i, c := range msg.ToolCalls {
		seen := out[i].seen
		switch {
		case r.stopNote != "":
			out[i] = plannedCall{ID: c.ID, Name: c.Name, Args: c.Args, Recovered: c.Recovered,
				Outcome: &ToolOutcome{Output: textNotRunLoop, NotRun: events.NotRunLoop}}
		case r.copied[c.ID]:
			out[i] = plannedCall{ID: c.ID, Name: c.Name, Args: c.Args, Recovered: c.Recovered,
				Outcome: &ToolOutcome{Output: textNotRunCopied, NotRun: events.NotRunCopied}}
		case verdicts[i] == loopWarn:
			out[i] = plannedCall{ID: c.ID, Name: c.Name, Args: c.Args, Recovered: c.Recovered,
				Outcome: &ToolOutcome{Output: notes[i], NotRun: events.NotRunRepeated}}
		default:
			out[i] = r.planCall(c)
		}
		out[i].seen = seen
	}
	return out
}

func (r *run) planCall(c store.ToolCall) plannedCall {
	pc := plannedCall{ID: c.ID, Name: c.Name, Args: c.Args, Recovered: c.Recovered}
	fail := func(text string) plannedCall {
		pc.Outcome = &ToolOutcome{Output: text}
		return pc
	}
	valid, err := r.tools.Validate(c.Name, c.Args)
	if errors.Is(err, tools.ErrUnknownTool) {
		return fail(err.Error())
	}
	if raw, bad := r.badArgs[c.ID]; bad {
		return fail(notAnObjectText(c.Name, raw))
	}
	if err != nil {
		return fail(err.Error())
	}
	pc.valid = valid
	d := r.a.cfg.Hooks.preToolUse(r.ctx, ToolUse{ChatID: r.cs.id, RunID: r.id, CallID: c.ID, Name: c.Name, Args: c.Args})
	switch d.Action {
	case Block:
		pc.Decision, pc.By, pc.Reason = DecisionDeny, ByHook, d.Reason
		return fail(blockedText(d.Reason))
	case Rewrite:
		pc.Args = d.Args
		if pc.valid, err = r.tools.Validate(c.Name, pc.Args); err != nil {
			return fail(err.Error())
		}
	}
	pc.Policy = policyFor(r.opts.Approve, r.policies, r.defByNm[c.Name])
	if r.opts.Approve == "" && slices.Contains(r.allowed, c.Name) {
		pc.Policy = ApproveAuto // "always allow this tool in this workspace"
	}
	if c.Name == tools.StartServer { // a server is a command too: the deny list holds for it
		if p := r.settings.DeniedCommand(pc.valid.String("command")); p != "" {
			pc.Decision, pc.By, pc.Reason = DecisionDeny, ByPolicy, deniedCommandText(p)
			return fail(pc.Reason)
		}
	}
	if c.Name == tools.RunCommand {
		command := pc.valid.String("command")
		if p := r.settings.DeniedCommand(command); p != "" {
			pc.Decision, pc.By, pc.Reason = DecisionDeny, ByPolicy, deniedCommandText(p)
			return fail(pc.Reason)
		}
		if rule, ok := r.settings.CommandRule(r.workspace, command); ok && r.opts.Approve == "" && pc.Policy == ApproveAsk {
			pc.Policy, pc.Network = ApproveAuto, rule.Network // "always allow commands starting with PATTERN"
			if c.Recovered {
				pc.Decision, pc.By = DecisionAllow, ByPolicy
				return pc
			}
		}
	}
	if c.Recovered && pc.Policy == ApproveAuto && !slices.Contains(r.allowed, c.Name) {
		// a call written as text is never trusted more than a native one: a policy of auto
		// (a default, --approve auto) asks; only the user's own allow of the tool runs it unasked
		pc.Policy = ApproveAsk
	}
	switch pc.Policy {
	case ApproveDeny:
		pc.Decision, pc.By = DecisionDeny, ByPolicy
		return fail(deniedByPolicyText(c.Name))
	case ApproveAuto:
		pc.Decision, pc.By = DecisionAllow, ByPolicy
	}
	return pc
}

// runBatch decides and executes the calls of one assistant message and appends their
// results. done is true when the run ends here (stop is then its reason, and paused its
// state when it pauses on approvals).
func (r *run) runBatch(messageID string, calls []plannedCall) (stop string, paused *pausedRun, done bool) {
	// approvals first: nothing of the batch runs before every ask call is decided
	var asks []int
	for i, c := range calls {
		if c.Outcome == nil && c.Policy == ApproveAsk && c.Decision == "" {
			asks = append(asks, i)
		}
	}
	if len(asks) > 0 {
		previews := make(map[string]*tools.Preview, len(asks))
		for _, i := range asks {
			pv, seen := r.preview(calls[i])
			calls[i].Previewed = seen
			c := calls[i]
			previews[c.ID] = pv
			_ = r.a.cfg.Store.PutToolCall(store.ToolCallRecord{ID: c.ID, ChatID: r.cs.id, RunID: r.id,
				MessageID: messageID, Name: c.Name, Args: c.Args, Workspace: r.workspace, AwaitingApproval: true, Preview: pv, Recovered: c.Recovered,
				Origin: originOf(c.Recovered)})
			r.emit(callEvent(messageID, c.stored(), events.ToolStateAwaitingApproval))
			e := events.Event{Type: events.ToolApprovalRequest, MessageID: messageID, ToolCallID: c.ID, Name: c.Name,
				Origin: originOf(c.Recovered)}
			if pv != nil {
				e.Preview = pv
			}
			r.emit(e)
		}
		if r.opts.Approver == nil {
			p := &pausedRun{RunID: r.id, MessageID: messageID, Model: r.opts.Model, Think: r.opts.Think,
				Approve: r.opts.Approve, MaxSteps: r.opts.MaxSteps, NumPredict: r.opts.NumPredict, Calls: calls}
			for _, i := range asks {
				c := calls[i]
				r.awaiting = append(r.awaiting, ApprovalRequest{ChatID: r.cs.id, RunID: r.id, CallID: c.ID, Name: c.Name,
					Args: c.Args, Preview: previews[c.ID], Origin: originOf(c.Recovered)})
			}
			return events.StopAwaitingApproval, p, true
		}
		r.phase(events.PhaseAwaitingApproval)
		for _, i := range asks {
			c := &calls[i]
			req := ApprovalRequest{ChatID: r.cs.id, RunID: r.id,
				CallID: c.ID, Name: c.Name, Args: c.Args, Preview: previews[c.ID], Origin: originOf(c.Recovered)}
			var decision, reason string
			var err error
			if ca, ok := r.opts.Approver.(CommandApprover); ok && c.Name == tools.RunCommand {
				decision, reason, err = r.approveCommand(ca, c, req)
			} else {
				decision, reason, err = r.opts.Approver.Approve(r.ctx, req)
			}
			if err != nil || (decision != DecisionAllow && decision != DecisionDeny) {
				if r.ctx.Err() != nil {
					break
				}
				decision = DecisionDeny
				if reason == "" {
					reason = textNoDecision
				}
			}
			c.Decision, c.By, c.Reason = decision, ByUser, reason
			r.emit(events.Event{Type: events.ToolApprovalResolved, MessageID: messageID, ToolCallID: c.ID,
				Name: c.Name, Decision: decision, By: ByUser, Reason: reason})
		}
	}
	for i := range calls {
		c := &calls[i]
		if c.Outcome == nil && c.Decision == DecisionDeny {
			c.Outcome = &ToolOutcome{Output: deniedByUserText(c.Reason)}
		}
		if c.Outcome != nil && c.By == ByPolicy && c.Decision == DecisionDeny || c.By == ByHook {
			r.emit(events.Event{Type: events.ToolApprovalResolved, MessageID: messageID, ToolCallID: c.ID,
				Name: c.Name, Decision: c.Decision, By: c.By, Reason: c.Reason})
		}
	}

	r.phase(events.PhaseTools)
	outcomes := r.executeBatch(messageID, calls)

	// results go back in call order, next to their call
	terminate := len(calls) > 0
	for i, c := range calls {
		o := outcomes[i]
		r.guard.settle(c.seen, o.Output)
		m, err := r.a.cfg.Store.AppendMessage(r.cs.id, toolMessage(r.id, c, o))
		if err != nil {
			r.err = err
			return events.StopError, nil, true
		}
		r.history = append(r.history, m)
		terminate = terminate && o.Terminate
	}
	if r.ctx.Err() != nil {
		return events.StopAborted, nil, true
	}
	if terminate {
		return events.StopCompleted, nil, true
	}
	return "", nil, false
}

func toolMessage(runID string, c plannedCall, o ToolOutcome) store.Message {
	return store.Message{Role: store.RoleTool, RunID: runID, Content: o.Output, ToolName: c.Name,
		ToolCallID: c.ID, Complete: true}
}

// executeBatch runs the calls that may run: in parallel when every tool of the batch is
// parallel-safe, one by one otherwise. A message sent meanwhile skips the calls not started;
// a stop skips them too. Outcomes are in call order.
func (r *run) executeBatch(messageID string, calls []plannedCall) []ToolOutcome {
	outcomes := make([]ToolOutcome, len(calls))
	var running []string
	for _, c := range calls {
		if c.Outcome == nil {
			running = append(running, c.Name)
		}
	}
	parallel := r.tools.Parallel(running...)
	skip := func(i int) bool {
		c := calls[i]
		switch {
		case c.Outcome != nil:
			outcomes[i] = *c.Outcome
		case r.ctx.Err() != nil:
			outcomes[i] = ToolOutcome{Output: textNotRunStopped, NotRun: events.NotRunStopped}
		case r.a.hasQueue(r.cs):
			outcomes[i] = ToolOutcome{Output: textSkippedForMessage, NotRun: events.NotRunSkipped}
		default:
			return false
		}
		if err := r.a.recordNotRun(r.cs.id, r.id, messageID, c, outcomes[i]); err != nil {
			r.emitError(err)
		}
		return true
	}
	if !parallel {
		for i := range calls {
			if !skip(i) {
				outcomes[i] = r.call(messageID, calls[i])
			}
		}
		return outcomes
	}
	var wg sync.WaitGroup
	for i := range calls {
		if skip(i) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			outcomes[i] = r.call(messageID, calls[i])
		}()
	}
	wg.Wait()
	return outcomes
}

// call executes one call: its pending record is committed first, then the tool runs with
// the run's context, then the PostToolUse hooks; the record is completed with the result
// the model reads.
func (r *run) call(messageID string, c plannedCall) ToolOutcome {
	startedAt := time.Now()
	rec := store.ToolCallRecord{ID: c.ID, ChatID: r.cs.id, RunID: r.id, MessageID: messageID, Name: c.Name,
		Args: c.Args, Workspace: r.workspace, Pending: true, StartedAt: startedAt, Approval: c.approval(), Recovered: c.Recovered,
		Origin: originOf(c.Recovered)}
	cc := r.beforeCall(r.ctx, c)
	if err := notAsPreviewed(c, cc); err != nil {
		cc.err = err
	}
	c.touched = cc.paths
	if err := r.startCall(rec, cc); err != nil {
		o := ToolOutcome{Output: notRunText(err)}
		r.emitError(err)
		// the card of the call is closed too: it never ran
		ok, none := false, int64(0)
		r.emit(events.Event{Type: events.ToolResult, MessageID: messageID, ToolCallID: c.ID, Name: c.Name,
			OK: &ok, Output: o.Output, DurationMs: &none, Recovered: c.Recovered})
		return o
	}
	r.emit(callEvent(messageID, c.stored(), events.ToolStateRunning))
	late := &lateChange{}
	var res tools.Result
	ok := true
	if cc.err != nil {
		res = tools.ErrorResult(cc.err) // what the call would fail with; it did not run
	} else {
		res, ok = r.runTool(messageID, c, r.checkpointLate(rec, c, late), late)
	}
	// stopped while the tool ignored the cancellation: the run goes on without it
	o := ToolOutcome{Output: textStoppedRunning}
	switch {
	case ok && res.NotStarted && r.ctx.Err() != nil:
		// stopped just before the tool started: it did not run (no hook saw it run either)
		o = ToolOutcome{Output: textNotRunStopped, NotRun: events.NotRunStopped}
	case ok:
		o = ToolOutcome{OK: !res.IsError, Output: res.Content, Terminate: res.Terminate}
		if res.Details != nil {
			o.Details = res.Details
		}
		use := ToolUse{ChatID: r.cs.id, RunID: r.id, CallID: c.ID, Name: c.Name, Args: c.Args}
		o = r.a.cfg.Hooks.postToolUse(r.ctx, use, o)
	}
	// a call that ran into the user's stop and did not complete was stopped, not failed
	o.Stopped = cc.err == nil && !o.OK && o.NotRun == "" && r.ctx.Err() != nil
	cc.paths = append(cc.paths, late.taken()...)
	if err := r.a.completeRecord(r.cs.id, c.ID, o, r.afterCall(cc)); err != nil {
		r.emitError(err)
	}
	dur := time.Since(startedAt).Milliseconds()
	r.emit(events.Event{Type: events.ToolResult, MessageID: messageID, ToolCallID: c.ID, Name: c.Name, OK: &o.OK,
		Output: o.Output, Details: o.Details, DurationMs: &dur, Recovered: c.Recovered, Stopped: o.Stopped, NotRun: o.NotRun,
		Unchanged: r.leftAsTheyWere(cc.paths)})
	return o
}

// leftAsTheyWere lists the paths of a call's checkpoint that the run's change leaves as they
// were before the run (the call failed, or put back what it wrote): the run did not change them,
// whatever its checkpoint announced.
func (r *run) leftAsTheyWere(paths []string) []string {
	if len(paths) == 0 {
		return nil
	}
	c, err := r.a.cfg.Store.RunChange(r.cs.id, r.id)
	if err != nil || c == nil {
		return nil
	}
	first := make(map[string]*store.PathChange, len(c.Paths)) // c.Path for each: one pass, not one per path
	for i := range c.Paths {
		if _, ok := first[c.Paths[i].Path]; !ok {
			first[c.Paths[i].Path] = &c.Paths[i]
		}
	}
	var out []string
	for _, p := range paths {
		if pc := first[p]; pc != nil && pc.Unchanged() {
			out = append(out, p)
		}
	}
	return out
}

// stopGrace is how long a stopped run waits for a running tool to notice the cancellation
// and return its own result, before it leaves the tool behind.
const stopGrace = 250 * time.Millisecond

// runTool runs one call's tool with the run's context. ok is false when the run was
// stopped and the tool did not return within stopGrace: the call is then left running in
// the background, and nothing it does afterwards (its result, its progress) reaches the
// run, the store or the events. A tool that has begun its late checkpoint (a command applying
// its changes) is waited for: it ends promptly, and its paths must not be read while they
// change.
func (r *run) runTool(messageID string, c plannedCall, checkpoint tools.CheckpointFunc, late *lateChange) (res tools.Result, ok bool) {
	var (
		mu        sync.Mutex
		abandoned bool
	)
	progress := func(update any) {
		mu.Lock()
		defer mu.Unlock()
		if abandoned {
			return
		}
		if out, is := update.(tools.Output); is {
			r.emit(events.Event{Type: events.ToolOutput, MessageID: messageID, ToolCallID: c.ID, Stream: out.Stream, Text: out.Text})
			return
		}
		r.emit(events.Event{Type: events.ToolProgress, MessageID: messageID, ToolCallID: c.ID, Update: update})
	}
	done := make(chan tools.Result, 1) // buffered: a tool left behind never blocks on it
	r.stuck.Add(1)
	go func() {
		defer r.stuck.Done()
		done <- r.execTool(c, progress, checkpoint)
	}()
	select {
	case res = <-done:
		return res, true
	case <-r.ctx.Done():
	}
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
	select {
	case res = <-done:
		return res, true
	case <-grace.C:
		if late.changing() { // it ends promptly, the workspace as it was or as it said
			return <-done, true
		}
		mu.Lock()
		abandoned = true
		mu.Unlock()
		r.left.Add(1)
		return tools.Result{}, false
	}
}

// execTool runs the tool of a planned call with its validated arguments.
func (r *run) execTool(c plannedCall, progress tools.ProgressFunc, checkpoint tools.CheckpointFunc) tools.Result {
	args, err := r.validArgs(c)
	if err != nil {
		return tools.ErrorResult(err)
	}
	ctx := r.ctx
	if c.touched != nil { // the tool changes nothing its checkpoint did not record
		ctx = tools.WithTouched(ctx, c.touched)
	}
	return r.tools.Exec(ctx, tools.Call{ID: c.ID, Name: c.Name, Args: args, Network: c.Network, Checkpoint: checkpoint}, progress)
}

// completeRecord completes the pending record of an executed call with the result the model
// reads.
func (a *Agent) completeRecord(chatID, callID string, o ToolOutcome, after []tools.PathState) error {
	details, err := marshalDetails(o.Details)
	if err != nil {
		return err
	}
	_, err = a.cfg.Store.CompleteToolCall(chatID, callID, store.ToolResult{OK: o.OK, Output: o.Output, Details: details,
		Stopped: o.Stopped, NotRun: o.NotRun, After: after})
	return err
}

// emitError emits an error event for err (model errors carry their code and retryability).
func (r *run) emitError(err error) {
	code, retryable := errorCode(err)
	r.emit(events.Event{Type: events.Error, Code: code, Message: err.Error(), Retryable: &retryable})
}

// errorCode is the code of err for the window (a model error's own, "store" for a write that
// failed, "internal" otherwise) and whether asking again may succeed.
func errorCode(err error) (code string, retryable bool) {
	var ce model.ClassifiedError
	if errors.As(err, &ce) {
		return ce.Code(), ce.Retryable()
	}
	if errors.Is(err, store.ErrWrite) {
		return "store", false
	}
	return "internal", false
}

// wholeHistory gives every tool call of the stored history a result: a call whose result
// never got stored (the app died while it ran) gets an "interrupted" stand-in, so the model
// never sees half a pair.
// Calls in pending (a paused batch about to run) are left without.
func wholeHistory(msgs []store.Message, pending map[string]bool) []store.Message {
	out := make([]store.Message, 0, len(msgs))
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		out = append(out, m)
		if m.Role != store.RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		answered := map[string]bool{}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == store.RoleTool; j++ {
			answered[msgs[j].ToolCallID] = true
			out = append(out, msgs[j])
		}
		for _, c := range m.ToolCalls {
			if !answered[c.ID] && !pending[c.ID] {
				out = append(out, store.Message{Role: store.RoleTool, ToolName: c.Name, ToolCallID: c.ID,
					Content: textInterrupted, Complete: true})
			}
		}
		i = j - 1
	}
	return out
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
