package agentloop

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"prototyper/events"
	"prototyper/model"
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
	opts      RunOptions // resolved (options.go)
	resume    *pausedRun // the paused run this run continues (nil: none)
	workspace string

	contextCap int               // the settings' cap on num_ctx (0: the default)
	policies   map[string]string // the approval policy of each tool, as the user set it
	allowed    []string          // the tools the user allowed for good in the run's workspace
	settings   store.Settings    // as the run started: command rules and deny list
	keep       int64             // the largest file a checkpoint keeps
	loopLimit  int               // how many times a call may come in a row before the run stops as a loop
	// recoverCalls executes an answer made of tool calls written as text (see textcalls.go).
	recoverCalls bool
	// written: the model is asked for its calls written as text, not offered tools natively
	// (writtencalls.go)
	written   bool
	keepAlive time.Duration // sent with every request (the setting)
	system    string        // the system prompt: the Config's, then the project's instructions
	compact   bool          // the requests carry the compact form (promptform.go)
	// instructionsRefused is why the workspace's AGENTS.md was not read ("" when it was)
	instructionsRefused string
	// agentsFile is the text of the workspace's AGENTS.md the model reads with every request:
	// the folder's, not the user's, so a call copied from it is not run (justRead)
	agentsFile string

	// admission is what admitting the run's prompt read (nil: none); openTB and closeTB the
	// toolbox it opened, which the run took (nil: the run opens its own)
	admission *admission
	openTB    Toolbox
	closeTB   func() error
	// residency is whether the model is loaded, asked as the prompt was admitted, for the
	// first request (nil: asked with it)
	residency *residencyAnswer

	// commit is the run's start being committed; pending the messages it commits, in the
	// history until the run's goroutine takes them as stored (runcommit.go)
	commit  *runCommit
	pending []store.Message
	// workDone is closed when the turns, begun before the commit, are over (nil: they begin
	// in execute); stop and paused are how they ended
	workDone chan struct{}
	stop     string
	paused   *pausedRun

	guard    *loopGuard
	stopNote string // why the run stopped, when a sentence says more than its stop reason (a loop, an empty answer)
	stopCode string // the code of stopNote's sentence where the window must know it (CodeEmptyAnswer)

	tools     Toolbox
	defs      []tools.Definition
	defByName map[string]tools.Definition
	history   []store.Message
	est       *estimator
	numCtx    int
	steps     int
	usage     events.Usage
	err       error // the error that ended the run, when stop reason is error
	awaiting  []ApprovalRequest
	answered  bool // the model answered something in this run (a message was started)
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
	if r.awaitCommit() != nil {
		return
	}
	e.ChatID, e.RunID = r.cs.id, r.id
	r.a.emit(e)
}

func (r *run) phase(p events.Phase) {
	if r.awaitCommit() != nil {
		return
	}
	r.a.setPhase(r.cs, r.id, p)
}

// work runs the run's turns when they begin before the commit (see startLocked).
func (r *run) work() {
	defer close(r.workDone)
	r.stop, r.paused = r.loop()
}

// execute runs to the end and records how it ended; a follow-up run starts when messages
// were queued at the very end.
func (r *run) execute() Outcome {
	defer r.a.wg.Done()

	var stop string
	var state *pausedRun
	if r.workDone != nil {
		<-r.workDone
		stop, state = r.stop, r.paused
	} else {
		stop, state = r.loop()
	}

	var stateJSON json.RawMessage
	if state != nil {
		stateJSON, _ = json.Marshal(state)
	}
	if r.stopNote != "" {
		// kept with the run, so that the chat reopened says it again
		if _, err := r.a.cfg.Store.AddRunNote(r.id, store.RunNote{StopReason: stop, Code: r.stopCode, Message: r.stopNote}); err != nil && r.err == nil {
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
	if stop == events.StopAborted && r.a.isDown() {
		// said apart from the user's Stop: reopened, the chat says the answer was cut short
		if _, err := r.a.cfg.Store.UpdateRun(r.id, func(x *store.Run) { x.Quit = true }); err != nil && r.err == nil {
			r.err = err
		}
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
	r.emit(events.Event{Type: events.RunFinished, StopReason: stop, Usage: &usage, Code: r.stopCode, Message: r.stopNote})
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
		if err == nil {
			_ = a.keepQueue(cs) // they are the follow-up's now, committed with it
		}
		if err != nil {
			a.emit(events.Event{ChatID: cs.id, RunID: r.id, Type: events.Error, Code: "internal",
				Message: "Your message could not be sent: " + err.Error() + "; send it again"})
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
	tb, closeTools, err := r.openTools()
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
	r.written = r.writesCalls()
	if !r.written && r.checkChoseWrittenCalls() {
		r.switchToWrittenCalls(checkedCallsNote(r.opts.Model))
	}
	r.defByName = make(map[string]tools.Definition, len(r.defs))
	for _, d := range r.defs {
		r.defByName[d.Name] = d
	}
	if r.history, err = r.a.cfg.Store.Messages(r.cs.id); err != nil {
		r.err = err
		return events.StopError, nil
	}
	r.history = r.withPending(r.history)
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
	if r.numCtx, err = r.contextSize(); err != nil {
		r.err = err
		return events.StopError, nil
	}
	r.compact = compactForm(r.numCtx)
	r.system = formSystem(r.system, r.a.cfg.SystemPrompt, r.compact)

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
			if r.nativeCallsUnreadable(msg, turn) {
				r.switchToWrittenCalls(unreadableCallsNote(r.opts.Model))
				r.history = append(r.history, store.Message{Role: store.RoleUser, Content: textEmptyAnswer})
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
				r.stopNote, r.stopCode = noteEmptyAnswer, CodeEmptyAnswer
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

// openTools returns the toolbox the run's admission opened, else opens the workspace's.
func (r *run) openTools() (Toolbox, func() error, error) {
	if tb, closeTB := r.openTB, r.closeTB; tb != nil {
		r.openTB, r.closeTB = nil, nil
		return tb, closeTB, nil
	}
	return r.a.cfg.Tools(r.workspace)
}

// contextSize is the context the run's requests ask for: as admitting its prompt found it,
// else asked now. It fails when the model's length cannot be asked in a way the chat request
// would fail too (after its own wait): the run fails once, now.
func (r *run) contextSize() (int, error) {
	if n, ok := r.admission.numCtxFor(r.opts.Model, r.contextCap); ok {
		return n, nil
	}
	length, err := r.a.cfg.Model.ContextLength(r.ctx, r.opts.Model)
	if model.Fatal(err) {
		return 0, err
	}
	n, _ := r.a.contextSize(r.ctx, r.opts.Model, length, r.contextCap)
	return n, nil
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
	return IsEmptyAnswer(msg.Content, len(msg.ToolCalls), turn.DoneReason)
}

// injectQueued commits the messages the user sent while the run was busy and adds them to
// the history, after the results of the last batch: they steer the run.
func (r *run) injectQueued() {
	if !r.committed() {
		return // nothing can wait yet (the chat's lock is held until the commit is over), or the run was never recorded
	}
	var failed []userMessage
	defer func() { // what was taken is the chat's now; what came since, or could not be stored, stays
		r.cs.mu.Lock()
		r.cs.injecting, r.cs.queue = nil, slices.Concat(failed, r.cs.queue)
		_ = r.a.keepQueue(r.cs)
		r.cs.mu.Unlock()
	}()
	for _, q := range r.a.takeQueue(r.cs) {
		// the files it names are read now, as the message joins the run (admit checked them)
		files, _ := readMentions(r.ctx, r.tools, q.text)
		m, err := r.a.cfg.Store.AppendMessage(r.cs.id, store.Message{Role: store.RoleUser, Content: q.text,
			Images: q.images, RunID: r.id, Complete: true, Files: files})
		if err != nil {
			r.emitError(err)
			failed = append(failed, q) // still queued: the next safe point, or a follow-up, tries again
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
