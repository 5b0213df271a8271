package agentloop

import (
	"sync"
	"time"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

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
	// the card says how long the call took as its record does, so the chat reopened says it too
	dur, err := r.a.completeRecord(r.cs.id, c.ID, o, r.afterCall(cc))
	if err != nil {
		r.emitError(err)
		dur = time.Since(startedAt).Milliseconds()
	}
	left := r.leftAt(cc.paths)
	r.emit(events.Event{Type: events.ToolResult, MessageID: messageID, ToolCallID: c.ID, Name: c.Name, OK: &o.OK,
		Output: o.Output, Details: o.Details, DurationMs: &dur, Recovered: c.Recovered, Stopped: o.Stopped, NotRun: o.NotRun,
		Paths: left.changed, Created: left.created, Deleted: left.deleted, Unchanged: left.unchanged})
	return o
}

// pathsLeft is what the run's change leaves at the paths of one call's checkpoint, by
// [store.PathChange.Effect]: changed lists those it changed, created and deleted those of
// them it created and deleted (the others it edited), unchanged those it leaves as they were
// before the run (the call failed, or put back what it wrote), whatever the checkpoint announced.
type pathsLeft struct {
	changed, created, deleted, unchanged []string
}

// leftAt says what the run's change leaves at the paths of a call's checkpoint.
func (r *run) leftAt(paths []string) pathsLeft {
	if len(paths) == 0 {
		return pathsLeft{}
	}
	// the records of these paths only: read after every call, the whole change would make a
	// long run's cost grow with the square of its calls
	recs, err := r.a.cfg.Store.RunChangeAt(r.cs.id, r.id, paths)
	if err != nil {
		return pathsLeft{}
	}
	return leftOf(paths, recs)
}

// leftOf sorts paths, each named once in the order given, by what the run's records recs
// leave at them; a path without a record is left out. It grows with the paths: a command
// may have touched tens of thousands, and Stop waits for this.
func leftOf(paths []string, recs []store.PathChange) pathsLeft {
	var left pathsLeft
	first := make(map[string]*store.PathChange, len(recs))
	for i := range recs {
		first[recs[i].Path] = &recs[i]
	}
	for _, p := range paths {
		pc := first[p]
		if pc == nil {
			continue
		}
		delete(first, p) // named once
		switch pc.Effect() {
		case store.PathUnchanged:
			left.unchanged = append(left.unchanged, p)
			continue
		case store.PathCreated:
			left.created = append(left.created, p)
		case store.PathDeleted:
			left.deleted = append(left.deleted, p)
		}
		left.changed = append(left.changed, p)
	}
	return left
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
	return r.tools.Exec(ctx, tools.Call{ID: c.ID, Name: c.Name, Args: args, Network: c.Network, Chat: r.cs.id, Checkpoint: checkpoint}, progress)
}

// completeRecord completes the pending record of an executed call with the result the model
// reads, and returns how long the call took as the record says.
func (a *Agent) completeRecord(chatID, callID string, o ToolOutcome, after []tools.PathState) (durationMs int64, err error) {
	details, err := marshalDetails(o.Details)
	if err != nil {
		return 0, err
	}
	rec, err := a.cfg.Store.CompleteToolCall(chatID, callID, store.ToolResult{OK: o.OK, Output: o.Output, Details: details,
		Stopped: o.Stopped, NotRun: o.NotRun, After: after})
	return rec.DurationMs, err
}
