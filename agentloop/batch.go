package agentloop

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

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
	pc.Policy = policyFor(r.opts.Approve, r.policies, r.defByName[c.Name])
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
