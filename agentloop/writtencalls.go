package agentloop

import (
	"encoding/json"
	"fmt"
	"strings"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// Calls written as text, asked for: a model whose calls through the server's API come back
// unreadable (the server's parser swallows a call it cannot read, and nothing of the answer
// arrives though the model spent tokens on it) is driven in the written form from then on. Its
// requests carry no tools; the system prompt lists them and asks for each call as a JSON
// object, which the loop reads as it reads any call written as text (textcalls.go), with the
// same trust. The switch is said once, in the chat where it happened, and remembered per
// model in the store, so the model's next chats start in the written form. A model whose
// latest stored check found its native calls failing and its written calls working
// (store.ModelCheck.WrittenCalls) is switched the same way before its first request.

// CodeCallsWritten is the code of the `error` event that says the loop now asks the model for
// calls written as text. The run goes on.
const CodeCallsWritten = "calls_written"

// callForms is a store that remembers which models write their calls as text, and the
// model checks' results (*store.DB).
type callForms interface {
	WritesCalls(model string) (bool, error)
	SetWritesCalls(model string) error
	ModelChecks(model string) ([]store.ModelCheck, error)
}

// writesCalls reports whether the run's model is driven with calls written as text.
func (r *run) writesCalls() bool {
	cf, ok := r.a.cfg.Store.(callForms)
	if !ok || !r.recoverCalls || r.opts.NativeCallsOnly {
		return false
	}
	yes, err := cf.WritesCalls(r.opts.Model)
	return err == nil && yes
}

// checkChoseWrittenCalls reports whether the run's model, not yet driven in the written form,
// should be: its latest check found that form working where its native calls failed.
func (r *run) checkChoseWrittenCalls() bool {
	cf, ok := r.a.cfg.Store.(callForms)
	if !ok || !r.recoverCalls || r.opts.NativeCallsOnly || len(r.defs) == 0 {
		return false
	}
	checks, err := cf.ModelChecks(r.opts.Model)
	return err == nil && len(checks) > 0 && checks[0].WrittenCalls
}

// minUnreadableCallTokens is the least a call takes, its end included: an empty answer of
// fewer tokens (a line break and the end) is the model's own empty answer, not a call.
const minUnreadableCallTokens = 4

// nativeCallsUnreadable reports whether an answer is what an unreadable native call leaves,
// in a request that offered tools natively: the model spent the tokens of a call, and no text
// or thinking reached the loop.
func (r *run) nativeCallsUnreadable(msg store.Message, turn model.Turn) bool {
	return !r.written && r.recoverCalls && !r.opts.NativeCallsOnly && len(r.defs) > 0 &&
		turn.EvalTokens >= minUnreadableCallTokens && turn.Thinking == "" && emptyAnswer(msg, turn)
}

// switchToWrittenCalls drives the model with calls written as text from now on, says why
// (note) once and remembers it for the model.
func (r *run) switchToWrittenCalls(note string) {
	r.written = true
	if r.awaitCommit() != nil {
		return
	}
	if cf, ok := r.a.cfg.Store.(callForms); ok {
		if err := cf.SetWritesCalls(r.opts.Model); err != nil {
			r.emitError(err)
		}
	}
	if _, err := r.a.cfg.Store.AddRunNote(r.id, store.RunNote{Code: CodeCallsWritten, Message: note}); err != nil {
		r.emitError(err)
	}
	no := false
	r.emit(events.Event{Type: events.Error, Code: CodeCallsWritten, Message: note, Retryable: &no})
}

// unreadableCallsNote says the switch of a model whose native call came back unreadable.
func unreadableCallsNote(model string) string {
	return fmt.Sprintf("%s's tool calls came back unreadable, so Prototyper now asks it to write each call as text, for this model from now on.", model)
}

// checkedCallsNote says the switch of a model its check found working in the written form.
func checkedCallsNote(model string) string {
	return fmt.Sprintf("The model check found that %s's tool calls through the server fail and its calls written as text work, so Prototyper asks it to write each call as text, for this model from now on.", model)
}

// writtenCallsPrompt is what the system prompt adds for a model driven with calls written as
// text: the tools, each with its arguments' schema, and the one form of a call.
func writtenCallsPrompt(defs []tools.Definition) string {
	var b strings.Builder
	b.WriteString("\n\nYou have these tools. To use one, answer with only a JSON object and nothing else: " +
		`{"name": "TOOL", "arguments": {...}}` + ". Several calls go one object after the other. " +
		"After the results come back, go on; when the work is done, answer in words.\n")
	for _, d := range defs {
		schema, _ := json.Marshal(d.Schema)
		fmt.Fprintf(&b, "\n- %s: %s Arguments: %s", d.Name, strings.TrimSpace(d.Description), schema)
	}
	return b.String()
}
