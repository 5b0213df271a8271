package agentloop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// DefaultMaxSteps caps the model calls of one run.
const DefaultMaxSteps = 25

// DefaultSystemPrompt tells the model where it works.
const DefaultSystemPrompt = "You are Prototyper, an assistant that builds things in the user's workspace folder. " +
	"Use the tools to read and write files there; paths are relative to the workspace. " +
	"When the work is done, answer briefly."

// Emitter takes the events of the agent. events.Bridge is one; Emit must not block, nor call
// the agent back (some events are emitted under a chat's lock, so that what follows them is
// already true when they are seen: after run.finished, the chat takes a new run).
type Emitter interface {
	Emit(events.Event)
}

// EmitterFunc adapts a function to [Emitter].
type EmitterFunc func(events.Event)

// Emit calls f.
func (f EmitterFunc) Emit(e events.Event) { f(e) }

// Config assembles an [Agent]. Model, Store, Emitter and Tools are required.
type Config struct {
	Model   model.Model
	Store   Store
	Emitter Emitter
	Tools   ToolsFactory
	Hooks   Hooks
	// Files are the options of the workspace that undo and the review read and write: the
	// same refusals as the workspace tools' (the app's own files, above all).
	Files tools.WorkspaceOptions

	// SystemPrompt is sent first in every request (not stored); "" means DefaultSystemPrompt.
	SystemPrompt string
	// DefaultModel is used when neither the run nor the chat nor the settings name a model.
	DefaultModel string
	// Workspace is the folder of new chats when Send creates one.
	Workspace string
	// MaxSteps caps model calls per run (DefaultMaxSteps when 0).
	MaxSteps int
	// Approve, when set, overrides every tool's approval policy (auto, ask or deny).
	Approve string
	// NumPredict caps the tokens of each answer (0: no cap).
	NumPredict int
	// Approver, when set, decides ask calls synchronously instead of pausing the run.
	Approver Approver
	// FirstByteTimeout bounds the wait for the first byte of each model answer, which
	// includes loading the model (0: the model client's own, 5 min for Ollama). A run's
	// RunOptions.FirstByteTimeout overrides it.
	FirstByteTimeout time.Duration
}

// RunOptions tune one run; zero fields fall back to the paused run it resumes, the chat, the
// settings, then the Config (resolveOptions).
type RunOptions struct {
	Model      string
	Think      string // off, on, low, medium, high
	MaxSteps   int
	Approve    string // auto, ask, deny: overrides every tool's policy
	NumPredict int
	Approver   Approver
	Workspace  string // the folder of a chat RunOnce creates
	// FirstByteTimeout bounds the wait for the first byte of each model answer (0: the
	// Config's).
	FirstByteTimeout time.Duration
	// MaxAnswerBytes bounds each answer's text, thinking and tool calls (0: the settings').
	MaxAnswerBytes int
	// Decide answers every undecided call of the chat's paused run (allow or deny) and
	// resumes it; the prompt may then be empty.
	Decide, Reason string
	// Images go with the prompt (PNG, JPEG, GIF, WebP bytes), to a model that can see them.
	Images [][]byte
	// Summarize says what happens when older messages no longer fit the context:
	// store.SummarizeAsk, SummarizeAlways or SummarizeNever ("": the settings'). With ask, the
	// Offerer answers; without one the run pauses on the offer. Given without a prompt to
	// RunOnce on a chat paused on an offer, always or never answers it and resumes the chat.
	Summarize string
	Offerer   Offerer
	// NativeCallsOnly keeps offering tools natively whatever the model's calls look like: no
	// switch to calls written as text (writtencalls.go). The model check measures the
	// model's own calls with it.
	NativeCallsOnly bool
}

// Outcome is how a run ended.
type Outcome struct {
	ChatID     string
	RunID      string
	StopReason string
	// Awaiting lists the calls that wait for a decision when StopReason is awaiting_approval.
	Awaiting []ApprovalRequest
	// Answered reports whether the model answered anything in the run (some of it is then
	// stored, also when the run was stopped midway).
	Answered bool
	// Note is the sentence of a run stopped as a loop (StopReason loop): which call it
	// repeated and what the user can do; or, for a completed run, that the model answered
	// nothing.
	Note string
}

// Agent runs the chats of one app: at most one run per chat, runs of different chats
// concurrently. Its methods are safe for concurrent use.
//
// Locks: mu guards only the map of chats and is never held while the store is written; each
// chat has its own lock (chatState.mu), held across that chat's store writes, so one chat's
// fsync never delays another chat's Stop, Phase or events. When both are taken, mu comes
// first; life is taken last and alone.
type Agent struct {
	cfg   Config
	base  context.Context
	close context.CancelFunc

	mu    sync.Mutex
	chats map[string]*chatState

	lastAnswer lastAnswer // the model that answered last (loadwatch.go)

	// life guards down and counts runs: a run is counted before it starts, so Shutdown
	// waits for every run it did not refuse.
	life sync.Mutex
	down bool
	wg   sync.WaitGroup
}

// chatState is what the agent knows of one chat. mu guards the fields after it and orders
// the chat's transitions: a run's start and end, Stop and Decide each hold it from their
// first read to their last write, store writes included, and phase events are emitted under
// it, so they leave in the order the phases were set.
type chatState struct {
	id string

	mu     sync.Mutex
	phase  events.Phase
	runID  string // the live run, or the paused one
	cancel context.CancelFunc
	done   chan struct{} // the live run's; closed when it ends
	queue  []userMessage // messages sent while busy, in order
	// injecting: messages the run took from the queue and is storing as the chat's; the store
	// keeps them as queued until then. queueKept: the store holds a queue of this chat's
	// (see keepQueue).
	injecting []userMessage
	queueKept bool
	// keptImages: the images the store keeps of the queue, one entry per message that has
	// some (its first image's first byte: a message's images never change), so that a queue
	// whose texts alone changed does not rewrite its images
	keptImages []*byte
	paused     *pausedRun
	// deleting: DeleteChat is under way (see chatedits.go); the chat is left out of lists
	deleting bool
}

// NewAgent returns the agent of cfg. It reads the runs paused on an approval from the
// store once, here, so that they can be decided after a restart; after that, a chat's phase
// is the agent's own and reading it never touches the store.
func NewAgent(cfg Config) *Agent {
	if cfg.SystemPrompt == "" {
		cfg.SystemPrompt = DefaultSystemPrompt
	}
	if cfg.MaxSteps <= 0 {
		cfg.MaxSteps = DefaultMaxSteps
	}
	base, cancel := context.WithCancel(context.Background())
	a := &Agent{cfg: cfg, base: base, close: cancel, chats: map[string]*chatState{}}
	a.loadPaused()
	return a
}

// loadPaused finds the chats whose last run waits for the user's decision. A chat it cannot
// read counts as idle: its next message starts a run as usual.
func (a *Agent) loadPaused() {
	if a.cfg.Store == nil {
		return
	}
	chats, err := a.cfg.Store.ListChats()
	if err != nil {
		return
	}
	for _, c := range chats {
		runs, err := a.cfg.Store.RunsOf(c.ID)
		if err != nil || len(runs) == 0 {
			continue
		}
		last := runs[len(runs)-1]
		waiting := last.Phase == events.PhaseAwaitingApproval || last.Phase == events.PhaseAwaitingSummary
		if !waiting || len(last.State) == 0 || last.Live {
			continue
		}
		var p pausedRun
		if json.Unmarshal(last.State, &p) != nil {
			continue
		}
		p.RunID = last.ID
		a.chats[c.ID] = &chatState{id: c.ID, phase: last.Phase, runID: last.ID, paused: &p}
	}
}

func (a *Agent) emit(e events.Event) {
	e.V = events.Version
	if a.cfg.Emitter != nil {
		a.cfg.Emitter.Emit(e)
	}
}

// chat returns the state of a chat, made idle the first time.
func (a *Agent) chat(chatID string) *chatState {
	a.mu.Lock()
	defer a.mu.Unlock()
	cs, ok := a.chats[chatID]
	if !ok {
		cs = &chatState{id: chatID, phase: events.PhaseIdle}
		a.chats[chatID] = cs
	}
	return cs
}

// known returns the state of a chat, or nil for a chat the agent has not run (it is idle).
func (a *Agent) known(chatID string) *chatState {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.chats[chatID]
}

// setPhase records and emits a chat's phase when it changes. cs.mu must not be held.
func (a *Agent) setPhase(cs *chatState, runID string, p events.Phase) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	a.setPhaseLocked(cs, runID, p)
}

// setPhaseLocked is setPhase with cs.mu held. The event is emitted under the lock (Emit
// never blocks), so phase events leave in the order the phases were set.
func (a *Agent) setPhaseLocked(cs *chatState, runID string, p events.Phase) {
	if cs.phase == p {
		return
	}
	cs.phase = p
	a.emit(events.Event{ChatID: cs.id, RunID: runID, Type: events.PhaseChanged, Phase: p, Busy: p.Busy()})
}

// Phase returns a chat's phase (idle for a chat the agent has not run).
func (a *Agent) Phase(chatID string) events.Phase {
	cs := a.known(chatID)
	if cs == nil {
		return events.PhaseIdle
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.phase
}

// LiveRun returns the id of the chat's live or paused run, or "".
func (a *Agent) LiveRun(chatID string) string {
	cs := a.known(chatID)
	if cs == nil {
		return ""
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.done == nil && cs.paused == nil {
		return ""
	}
	return cs.runID
}

// isDown reports whether Shutdown was called.
func (a *Agent) isDown() bool {
	a.life.Lock()
	defer a.life.Unlock()
	return a.down
}

// countRun counts a run about to start, unless the agent is shutting down.
func (a *Agent) countRun() bool {
	a.life.Lock()
	defer a.life.Unlock()
	if a.down {
		return false
	}
	a.wg.Add(1)
	return true
}

// Send submits a user's message to a chat, creating the chat when chatID is "" (in the
// Config's workspace; [Agent.SendNew] names another). When the chat is idle, the message is
// committed and a run starts in the background; when it is busy, the message waits in the
// chat's queue and is injected at the next safe point (after the current tool call, or
// after the model's turn); when the chat waits for an approval, every undecided call gets a
// stand-in result and the message starts a new run; when it waits for the answer to a
// summary offer, the message is stored at once and the run the answer resumes reads it.
//
// A message that cannot run is refused before anything is stored, and no chat is created
// for it: no model chosen ([ErrNoModel]), a workspace folder that does not open, a model
// the server does not have (or no server), a UserPromptSubmit hook's block
// ([ErrPromptBlocked]), a message larger than the model's context ([ErrPromptTooLong]).
func (a *Agent) Send(ctx context.Context, chatID, prompt string) (string, error) {
	return a.send(ctx, chatID, store.Chat{}, prompt, nil)
}

// SendNew is Send to a new chat that starts as c (its Workspace and Model; the Config's
// workspace and the default model when empty). The chat is created only when the message is
// accepted, so a refused message leaves no empty chat behind.
func (a *Agent) SendNew(ctx context.Context, c store.Chat, prompt string) (string, error) {
	return a.send(ctx, "", c, prompt, nil)
}

// SendImages is Send (to chatID, or to a new chat that starts as fresh when chatID is "")
// of a message with images, refused before anything is stored when the model cannot see
// them ([ErrNoVision]) or they are no images ([ErrBadImage]). While the chat is busy the
// message waits in its queue with its images, as a text does.
func (a *Agent) SendImages(ctx context.Context, chatID string, fresh store.Chat, prompt string, images [][]byte) (string, error) {
	return a.send(ctx, chatID, fresh, prompt, images)
}

func (a *Agent) send(ctx context.Context, chatID string, fresh store.Chat, prompt string, images [][]byte) (string, error) {
	chat, err := a.chatOrNew(chatID, fresh, "")
	if err != nil {
		return "", err
	}
	in, err := a.admit(ctx, chat, RunOptions{Images: images}, prompt)
	if err != nil {
		return chatID, err
	}
	defer in.admission.release()
	prompt = in.prompt
	if chatID == "" {
		if chat, err = a.cfg.Store.CreateChat(chat); err != nil {
			return "", err
		}
		chatID = chat.ID
	}
	if a.isDown() {
		return chatID, ErrShutDown
	}
	cs := a.chat(chatID)
	cs.mu.Lock()
	// waiting for the answer to a summary offer: stored now, the answer's run reads it
	if cs.done == nil && cs.paused.offers() {
		err := a.keepWhileOffered(cs, userMessage{text: prompt, images: images, files: in.files})
		cs.mu.Unlock()
		return chatID, err
	}
	// busy: queue it, the run injects it; the files it names, read now, go with it into a
	// follow-up run; a run that takes it at a safe point reads them again
	if cs.done != nil {
		if err := queueRoom(cs, images); err != nil {
			cs.mu.Unlock()
			return chatID, err
		}
		cs.queue = append(cs.queue, userMessage{text: prompt, images: images, files: in.files})
		if err := a.keepQueue(cs); err != nil {
			cs.queue = cs.queue[:len(cs.queue)-1]
			cs.mu.Unlock()
			return chatID, err
		}
		cs.mu.Unlock()
		return chatID, nil
	}
	r, err := a.startLocked(cs, startSpec{prompts: []userMessage{{text: prompt, images: images, files: in.files}},
		trigger: events.TriggerUser, admission: in.admission})
	cs.mu.Unlock()
	if err != nil {
		return chatID, err
	}
	go r.execute()
	return chatID, nil
}

// RunOnce runs synchronously: it submits prompt (or, with opts.Decide or opts.Summarize,
// answers what the chat's paused run waits for, as the window's Decide and AnswerSummary do,
// and resumes it), waits for the run to end, and returns how it ended. Cancelling ctx stops the
// run (stop reason aborted). The prompt is checked as in Send before anything is stored; a
// chat RunOnce creates (chatID "") is deleted again when its run fails before the model
// answered anything (Outcome.ChatID is then "").
func (a *Agent) RunOnce(ctx context.Context, chatID, prompt string, opts RunOptions) (Outcome, error) {
	if chatID == "" && opts.Decide != "" {
		return Outcome{}, fmt.Errorf("%w: a decision needs the chat whose run is paused", ErrNoPendingApproval)
	}
	chat, err := a.chatOrNew(chatID, store.Chat{}, opts.Workspace)
	if err != nil {
		return Outcome{}, err
	}
	spec := startSpec{trigger: events.TriggerUser, opts: opts}
	if prompt != "" {
		in, err := a.admit(ctx, chat, opts, prompt)
		if err != nil {
			return Outcome{ChatID: chatID}, err
		}
		defer in.admission.release()
		spec.prompts = []userMessage{{text: in.prompt, images: opts.Images, files: in.files}}
		spec.admission = in.admission
	}
	created := chatID == ""
	if created {
		if chat, err = a.cfg.Store.CreateChat(chat); err != nil {
			return Outcome{}, err
		}
		chatID = chat.ID
	}
	// a chat created here is removed again when its run cannot even start
	dropCreated := func() bool {
		if created && a.cfg.Store.DeleteChat(chatID) == nil {
			a.forget(chatID)
			return true
		}
		return false
	}
	discard := func(err error) (Outcome, error) {
		if dropCreated() {
			return Outcome{}, err
		}
		return Outcome{ChatID: chatID}, err
	}
	if a.isDown() {
		return discard(ErrShutDown)
	}
	cs := a.chat(chatID)
	cs.mu.Lock()
	if cs.done != nil {
		cs.mu.Unlock()
		return Outcome{ChatID: chatID}, ErrChatBusy
	}
	// the answer the run gives, when it resumes the chat rather than sends a prompt
	var ans *userAnswer
	if opts.Decide != "" {
		if opts.Decide != DecisionAllow && opts.Decide != DecisionDeny {
			cs.mu.Unlock()
			return Outcome{ChatID: chatID}, ErrBadDecision
		}
		if cs.paused == nil || cs.paused.offers() {
			cs.mu.Unlock()
			return Outcome{ChatID: chatID}, fmt.Errorf("%w: chat %s is not paused on an approval", ErrNoPendingApproval, chatID)
		}
		ans = &userAnswer{decision: opts.Decide, reason: opts.Reason} // every call still undecided
		if prompt != "" {
			// decided and said; the prompt's run then closes the batch as a reply does
			a.decideLocked(cs, cs.paused, *ans)
			ans = nil
		}
	}
	if p := cs.paused; p.offers() && prompt == "" && opts.Decide == "" {
		choice := store.SummaryChoiceSummarize
		switch opts.Summarize {
		case store.SummarizeNever:
			choice = store.SummaryChoiceLeaveOut
		case store.SummarizeAlways:
		default:
			cs.mu.Unlock()
			return Outcome{ChatID: chatID}, fmt.Errorf("%w: answer it with --summarize always or never", ErrSummaryOfferWaits)
		}
		ans = &userAnswer{choice: choice}
	}
	if prompt == "" && ans == nil && opts.Summarize != "" {
		cs.mu.Unlock()
		return Outcome{ChatID: chatID}, ErrNoSummaryOffer // an answer to nothing starts nothing
	}
	var r *run
	if ans != nil {
		r, err = a.answerLocked(cs, *ans, opts)
	} else {
		r, err = a.startLocked(cs, spec)
	}
	cs.mu.Unlock()
	if r == nil {
		return discard(err)
	}
	answerErr := err // the run started, and its answer could not be kept
	stopWatch := context.AfterFunc(ctx, r.cancel)
	defer stopWatch()
	out := r.execute()
	if out.StopReason == events.StopError && !r.answered && dropCreated() {
		// the model never answered the chat's first message (a model without tools, a
		// server gone since the checks): the chat would hold nothing but that message, and
		// the error says what to do before trying again
		out.ChatID = ""
	}
	if out.StopReason == events.StopError && r.err != nil {
		return out, r.err
	}
	return out, answerErr
}

// forget drops what the agent knows of a deleted chat.
func (a *Agent) forget(chatID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	cs, ok := a.chats[chatID]
	if !ok {
		return
	}
	cs.mu.Lock()
	idle := cs.done == nil
	cs.mu.Unlock()
	if idle {
		delete(a.chats, chatID)
	}
}

// chatOrNew returns the stored chat chatID, or, when chatID is "", the chat to create
// (not stored yet): fresh, in workspace or the Config's workspace when it names none.
func (a *Agent) chatOrNew(chatID string, fresh store.Chat, workspace string) (store.Chat, error) {
	if chatID != "" {
		return a.cfg.Store.Chat(chatID)
	}
	fresh.Workspace = cmp.Or(fresh.Workspace, workspace, a.cfg.Workspace)
	return fresh, nil
}

// Stop cancels a chat's live run: the model connection closes at once, running tools get
// the cancelled context, nothing further starts, the partial answer is kept (stop reason
// aborted). A chat paused on an approval is closed: its calls get "not run" results. The
// development servers the chat's runs started end too, once the run is cancelled.
func (a *Agent) Stop(chatID string) error {
	defer a.stopServers(chatID)
	cs := a.known(chatID)
	if cs == nil {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.cancel != nil {
		cs.cancel()
		given := cs.queue
		cs.queue = nil
		// the window gives the texts back to the box; kept there at once, so that they
		// outlive the app too (one that could not be is given back at the next start)
		_ = a.giveBackQueue(cs, given)
		return nil
	}
	p := cs.paused
	if p == nil {
		return nil
	}
	// under cs.mu: until the stand-in results are stored and the chat is idle, a Send must
	// not slip its message in between the calls and their results
	cs.paused = nil
	err := a.closePaused(cs, p, ToolOutcome{Output: textNotRunStopped, NotRun: events.NotRunStopped})
	a.setPhaseLocked(cs, p.RunID, events.PhaseIdle)
	return err
}

// Decide answers a tool call that waits for approval: allow runs it, deny returns "denied by
// the user: reason" to the model. When every waiting call of the batch is decided, the run
// resumes in the background (also after a restart: the paused state is in the store).
func (a *Agent) Decide(toolCallID, decision, reason string) error {
	if decision != DecisionAllow && decision != DecisionDeny {
		return ErrBadDecision
	}
	cs := a.chatWaitingFor(toolCallID)
	if cs == nil {
		return fmt.Errorf("%w (tool call %q)", ErrNoPendingApproval, toolCallID)
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := cs.paused
	i := p.index(toolCallID)
	if i < 0 || p.Calls[i].Decision != "" {
		return fmt.Errorf("%w (tool call %q)", ErrNoPendingApproval, toolCallID)
	}
	r, err := a.answerLocked(cs, userAnswer{callID: toolCallID, decision: decision, reason: reason}, RunOptions{})
	if r != nil {
		go r.execute()
	}
	return err
}

// chatWaitingFor returns the chat whose paused run holds the call toolCallID, or nil. A run
// that is pausing has sent its approval request before it recorded the pause: such a chat
// is returned once its run has ended.
func (a *Agent) chatWaitingFor(toolCallID string) *chatState {
	a.mu.Lock()
	chats := make([]*chatState, 0, len(a.chats))
	for _, cs := range a.chats {
		chats = append(chats, cs)
	}
	a.mu.Unlock()
	var pausing []*chatState
	for _, cs := range chats {
		cs.mu.Lock()
		waits, live := cs.paused.index(toolCallID) >= 0, cs.done
		cs.mu.Unlock()
		if waits {
			return cs
		}
		if live != nil {
			pausing = append(pausing, cs)
		}
	}
	for _, cs := range pausing {
		if _, err := a.cfg.Store.ToolCall(cs.id, toolCallID); err != nil {
			continue
		}
		cs.mu.Lock()
		done := cs.done
		cs.mu.Unlock()
		if done != nil {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
			}
		}
		cs.mu.Lock()
		waits := cs.paused.index(toolCallID) >= 0
		cs.mu.Unlock()
		if waits {
			return cs
		}
		return nil
	}
	return nil
}

// Shutdown stops every live run (the window is closing): each keeps its partial answer and
// tool records and ends aborted. It returns when all have ended or ctx is done. Paused runs
// stay paused in the store, to be decided after the next start.
func (a *Agent) Shutdown(ctx context.Context) error {
	a.life.Lock()
	a.down = true
	a.life.Unlock()
	a.close()
	done := make(chan struct{})
	go func() { a.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("runs still stopping: %w", ctx.Err())
	}
}

// startSpec says how a run starts.
type startSpec struct {
	prompts []userMessage // user messages to commit first (none when resuming)
	trigger string        // events.Trigger*
	resume  *pausedRun    // the paused batch to execute first
	opts    RunOptions
	// admission is what admitting the prompt opened and read, for the run to reuse (nil: none)
	admission *admission
}

// userMessage is a message of the user on its way into a chat: its text, its images, and
// the workspace files it names with @path (read when it joins a run).
type userMessage struct {
	text   string
	images [][]byte
	files  []store.FileAttachment
}

// startLocked commits the start of a run and marks the chat busy. cs.mu must be held (the
// store writes here wait for this chat's lock only); the caller calls r.execute (in the
// background or not) after unlocking.
func (a *Agent) startLocked(cs *chatState, spec startSpec) (r *run, err error) {
	if !a.countRun() {
		return nil, ErrShutDown
	}
	defer func() {
		if err != nil {
			a.wg.Done()
		}
	}()
	chat, err := a.cfg.Store.Chat(cs.id)
	if err != nil {
		return nil, err
	}
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return nil, err
	}
	// an undo or redo the app died in (`prototyper undo` killed, say) is settled before the
	// chat's files change again: a run over it would leave it neither done nor undone
	if cs.id != "" {
		if _, _, err := a.settleInterrupted(a.base, cs.id, nil); err != nil {
			return nil, err
		}
	}
	resolved, err := resolveOptions(optionSources{run: spec.opts, resumed: spec.resume, chat: chat,
		settings: settings, config: a.cfg})
	if err != nil {
		return nil, err
	}
	opts, workspace := resolved.opts, resolved.workspace

	// a message instead of a decision: stand-in results for the paused batch first
	if p := cs.paused; p != nil && spec.resume == nil {
		cs.paused = nil
		if err := a.closePaused(cs, p, ToolOutcome{Output: textRepliedInstead, NotRun: events.NotRunReplied}); err != nil {
			return nil, err
		}
	}
	if spec.resume != nil {
		cs.paused = nil
		if _, err := a.cfg.Store.UpdateRun(spec.resume.RunID, func(r *store.Run) {
			r.Phase, r.State = events.PhaseIdle, nil
		}); err != nil {
			return nil, err
		}
	}

	instr, read := spec.admission.instructionsFor(workspace)
	if !read {
		instr = a.readInstructions(a.base, workspace, settings)
	}
	var msgs []store.Message
	// the chat's first turn shows what the model is told besides the user's message, before it
	shown := chat.MessageCount == 0 && len(spec.prompts) > 0 && instr.text() != ""
	if shown {
		msgs = append(msgs, store.Message{Role: store.RoleSystem, Content: instr.text(), Instructions: instr.sources(), Complete: true})
	}
	for _, p := range spec.prompts {
		msgs = append(msgs, store.Message{Role: store.RoleUser, Content: p.text, Images: p.images, Files: p.files, Complete: true})
	}
	rec := store.Run{ID: a.cfg.Store.NewRunID(), ChatID: cs.id, Model: opts.Model, Think: opts.Think,
		Trigger: spec.trigger, Phase: events.PhaseSubmitted}
	for i := range msgs {
		msgs[i].RunID = rec.ID
	}
	ctx, cancel := context.WithCancel(a.base)
	r = &run{a: a, cs: cs, id: rec.ID, ctx: ctx, cancel: cancel, opts: opts, resume: spec.resume,
		workspace: workspace, contextCap: settings.ContextCap, policies: settings.ToolApproval,
		allowed: settings.AlwaysAllow[workspace], settings: settings, keep: settings.CheckpointLimit(),
		loopLimit: settings.LoopLimit(), recoverCalls: !settings.IgnoreTextToolCalls,
		keepAlive: settings.KeepAlive(), system: instr.systemPrompt(a.cfg.SystemPrompt), instructionsRefused: instr.refused,
		agentsFile: instr.file, commit: newRunCommit(), admission: spec.admission}
	// A run with a prompt asks the model while its start is committed (runcommit.go); a resumed
	// run first continues its change, which needs the run recorded.
	if len(spec.prompts) > 0 && spec.resume == nil {
		r.pending = msgs
		r.workDone = make(chan struct{})
		// taken here, before whoever admitted the prompt releases the admission
		r.openTB, r.closeTB, _ = spec.admission.takeTools(workspace)
		if spec.admission != nil {
			r.residency = spec.admission.residency
		}
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			r.work()
		}()
	}
	// the run and the messages that start it are one commit: one wait for the disk
	rec, saved, err := a.cfg.Store.StartRunWith(rec, msgs...)
	if err != nil {
		cancel()
		r.commit.open(nil, err)
		return nil, err
	}
	// the resumed part of a run continues its change: one run, one undo
	var continued string
	if spec.resume != nil {
		ok, err := a.cfg.Store.ContinueChange(cs.id, spec.resume.RunID, rec.ID)
		if err != nil {
			_, _ = a.cfg.Store.FinishRun(rec.ID, events.StopError, nil)
			cancel()
			r.commit.open(nil, err)
			return nil, err
		}
		if ok {
			continued = spec.resume.RunID
		}
	}
	if shown {
		a.showInstructions(saved[0])
	}
	if len(spec.prompts) > 0 {
		if chat.Model == "" {
			_, _ = a.cfg.Store.UpdateChat(cs.id, func(c *store.Chat) { c.Model = opts.Model })
		}
	}
	cs.runID, cs.cancel, cs.done = rec.ID, cancel, make(chan struct{})
	// announced here, under cs.mu, so that the chat is "submitted" as soon as Send returns; the
	// run's own events follow once the commit is open
	a.emit(events.Event{ChatID: cs.id, RunID: rec.ID, Type: events.RunStarted, Model: opts.Model, Think: opts.Think,
		Trigger: spec.trigger, ChangeID: continued})
	a.setPhaseLocked(cs, rec.ID, events.PhaseSubmitted)
	r.commit.open(saved, nil)
	return r, nil
}

// showInstructions announces m, the stored message that shows a chat the project
// instructions of its first turn (message.started with role system, its text, completed).
func (a *Agent) showInstructions(m store.Message) {
	a.emit(events.Event{ChatID: m.ChatID, RunID: m.RunID, MessageID: m.ID, Type: events.MessageStarted, Role: store.RoleSystem,
		Kind: events.KindInstructions, Name: m.Instructions})
	a.emit(events.Event{ChatID: m.ChatID, RunID: m.RunID, MessageID: m.ID, Type: events.TextDelta, Text: m.Content})
	a.emit(events.Event{ChatID: m.ChatID, RunID: m.RunID, MessageID: m.ID, Type: events.MessageCompleted, DoneReason: model.DoneStop})
}

// closePaused gives every call of a paused batch the result text (the user answered or
// stopped instead of deciding), next to its call, so the history stays whole.
func (a *Agent) closePaused(cs *chatState, p *pausedRun, stand ToolOutcome) error {
	if p.offers() { // an offer nobody answered
		p.Offer.Choice = store.SummaryChoiceNone
		if err := a.answerOffer(cs.id, p.RunID, p.Offer.ID, store.SummaryChoiceNone); err != nil {
			return err
		}
	}
	for _, c := range p.Calls {
		o := stand
		if c.Outcome != nil {
			o = *c.Outcome
		}
		if err := a.recordNotRun(cs.id, p.RunID, p.MessageID, c, o); err != nil {
			return err
		}
	}
	for _, c := range p.Calls {
		o := stand
		if c.Outcome != nil {
			o = *c.Outcome
		}
		if _, err := a.cfg.Store.AppendMessage(cs.id, toolMessage(p.RunID, c, o)); err != nil {
			return err
		}
	}
	_, err := a.cfg.Store.UpdateRun(p.RunID, func(r *store.Run) { r.Phase, r.State = events.PhaseIdle, nil })
	return err
}

// recordNotRun stores the record of a call that did not run and emits its result.
func (a *Agent) recordNotRun(chatID, runID, messageID string, c plannedCall, o ToolOutcome) error {
	details, _ := marshalDetails(o.Details)
	rec := store.ToolCallRecord{ID: c.ID, ChatID: chatID, RunID: runID, MessageID: messageID, Name: c.Name,
		Args: c.Args, OK: o.OK, Output: o.Output, Details: details, FinishedAt: time.Now(), Approval: c.approval(),
		Recovered: c.Recovered, Origin: originOf(c.Recovered), NotRun: o.NotRun}
	if err := a.cfg.Store.PutToolCall(rec); err != nil {
		return err
	}
	zero := int64(0)
	a.emit(events.Event{ChatID: chatID, RunID: runID, MessageID: messageID, Type: events.ToolResult,
		ToolCallID: c.ID, Name: c.Name, OK: &o.OK, Output: o.Output, Details: o.Details, DurationMs: &zero,
		Recovered: c.Recovered, NotRun: o.NotRun})
	return nil
}

// takeQueue removes and returns the messages queued for a chat. The store keeps them as
// queued until the caller stored them as the chat's ([Agent.keepQueue]).
func (a *Agent) takeQueue(cs *chatState) []userMessage {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	q := cs.queue
	cs.queue, cs.injecting = nil, q
	return q
}

// keepQueue keeps the messages of the chat's queue, texts and images, in the store, as its queue now stands, so
// that a message shown as queued survives a kill -9 (the next start gives it back to the
// chat's box, store.DB.GiveBackQueued). A message leaves the kept queue only once it is
// stored as the chat's: kept twice for a moment, never lost. cs.mu must be held.
func (a *Agent) keepQueue(cs *chatState) error {
	queued := unsentOf(slices.Concat(cs.injecting, cs.queue))
	if len(queued) == 0 && !cs.queueKept {
		return nil // nothing kept, nothing to keep: no write
	}
	images := imagesOf(queued)
	var err error
	if len(queued) > 0 && cs.queueKept && slices.Equal(images, cs.keptImages) {
		err = a.cfg.Store.SetQueuedTexts(cs.id, textsOf(queued))
	} else {
		err = a.cfg.Store.SetQueued(cs.id, queued)
	}
	if err != nil {
		return fmt.Errorf("your message could not be kept while the model works: %w", err)
	}
	cs.queueKept, cs.keptImages = len(queued) > 0, images
	return nil
}

// imagesOf names the images of queued: the first byte of each message's that has some.
func imagesOf(queued []store.Unsent) []*byte {
	var out []*byte
	for _, m := range queued {
		if len(m.Images) > 0 && len(m.Images[0]) > 0 {
			out = append(out, &m.Images[0][0])
		}
	}
	return out
}

func textsOf(queued []store.Unsent) []string {
	out := make([]string, len(queued))
	for i, m := range queued {
		out[i] = m.Text
	}
	return out
}

// MaxQueued caps the messages that wait in a busy chat's queue; MaxQueuedImageBytes caps their
// images together. The store rewrites a queue's images whenever they change, in one value.
const (
	MaxQueued           = 16
	MaxQueuedImageBytes = 64 << 20
)

// queueRoom refuses a message with images the queue of cs has no room for. cs.mu must be held.
func queueRoom(cs *chatState, images [][]byte) error {
	waiting := slices.Concat(cs.injecting, cs.queue)
	if len(waiting) >= MaxQueued {
		return fmt.Errorf("%w: %d messages already wait for the model; send this one once it has taken them, or stop it and send them again as one", ErrQueueFull, len(waiting))
	}
	size := 0
	for _, m := range append(waiting, userMessage{images: images}) {
		for _, img := range m.images {
			size += len(img)
		}
	}
	if size > MaxQueuedImageBytes {
		return fmt.Errorf("%w: the messages waiting for the model hold %d MB of images with this one, more than %d MB; send it once the model has taken them", ErrQueueFull, size>>20, MaxQueuedImageBytes>>20)
	}
	return nil
}

// giveBackQueue puts given, the messages a Stop took from the queue, into the chat's unsent
// text and its images in the store (the window puts them back in the box), and keeps as queued only those
// the run is storing. cs.mu must be held.
func (a *Agent) giveBackQueue(cs *chatState, given []userMessage) error {
	if !cs.queueKept {
		return nil
	}
	still := unsentOf(cs.injecting)
	if err := a.cfg.Store.GiveBackQueued(cs.id, unsentOf(given), still); err != nil {
		return err
	}
	cs.queueKept, cs.keptImages = len(still) > 0, imagesOf(still)
	return nil
}

// unsentOf is messages as the store keeps them while no run took them: text and images.
func unsentOf(messages []userMessage) []store.Unsent {
	out := make([]store.Unsent, len(messages))
	for i, m := range messages {
		out[i] = store.Unsent{Text: m.text, Images: m.images}
	}
	return out
}

// hasQueue reports whether the user sent a message the run has not injected yet.
func (a *Agent) hasQueue(cs *chatState) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.queue) > 0
}

func marshalDetails(d any) (json.RawMessage, error) {
	if d == nil {
		return nil, nil
	}
	if raw, ok := d.(json.RawMessage); ok {
		return raw, nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		return nil, nil
	}
	return b, nil
}
