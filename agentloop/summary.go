package agentloop

import (
	"context"
	"fmt"
	"strings"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/model/vocab"
	"prototyper/store"
)

// When old turns that no longer fit are to be summarized (the user's answer to the offer in
// offer.go, or the setting), the same model summarizes them, and the summary is kept in the
// chat as a visible message (store.Message.SummaryOf names the last
// message it stands for). From then on, the prompt carries the summary in place of the
// messages it covers.

// summaryRequestText asks the model for the summary.
const summaryRequestText = "You write the summary of a conversation between a user and a coding assistant, so " +
	"that the assistant can continue it without the messages themselves. Summarize the conversation below: " +
	"what the user asked for, what was decided, which files were read or written and what they hold now, " +
	"what remains to do. Plain text, at most 300 words. Write only the summary."

// summaryIntro opens the summary where the model reads it.
const summaryIntro = "Summary of the earlier part of this conversation (its messages are left out to fit the context):\n\n"

// summaryNumPredict caps the summary's tokens.
const summaryNumPredict = 600

// summaryWait bounds the summary's request (the model is loaded: it just answered).
const summaryWait = 3 * time.Minute

// condensed is history with the latest summary in place of the messages it covers: the
// summary first, then the messages after the last one it covers (a stand-in result without
// an id belongs to the message before it, and goes with it).
func condensed(history []store.Message) []store.Message {
	last := -1
	for i, m := range history {
		if m.SummaryOf != "" {
			last = i
		}
	}
	if last < 0 {
		return history
	}
	sum := history[last]
	upTo := -1
	for i, m := range history {
		if m.ID == sum.SummaryOf {
			upTo = i
		}
	}
	if upTo < 0 {
		return history
	}
	out := []store.Message{{Role: store.RoleSystem, Content: summaryIntro + sum.Content}}
	i := upTo + 1
	for i < len(history) && history[i].ID == "" && history[i].Role == store.RoleTool {
		i++
	}
	for ; i < len(history); i++ {
		if history[i].SummaryOf == "" {
			out = append(out, history[i])
		}
	}
	return out
}

// summarizable returns the messages of the prompt's history that a summary may stand for:
// everything before the latest user message that has an id (what comes after is the work at
// hand), and the id of the last of them; none when there is nothing worth it.
func summarizable(history []store.Message) ([]store.Message, string) {
	lastUser := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == store.RoleUser && history[i].ID != "" {
			lastUser = i
			break
		}
	}
	for end := lastUser - 1; end >= 0; end-- {
		if history[end].ID != "" && history[end].SummaryOf == "" {
			if end < 1 {
				return nil, ""
			}
			return history[:end+1], history[end].ID
		}
	}
	return nil, ""
}

// transcript is messages as the summary request shows them, cut to at most limit bytes
// (its beginning goes first: the end matters more).
func transcript(msgs []store.Message, limit int) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Role == store.RoleSystem && strings.HasPrefix(m.Content, summaryIntro):
			fmt.Fprintf(&b, "EARLIER SUMMARY:\n%s\n\n", strings.TrimPrefix(m.Content, summaryIntro))
		case m.Role == store.RoleUser:
			fmt.Fprintf(&b, "USER:\n%s\n\n", m.Content)
		case m.Role == store.RoleAssistant:
			if m.Content != "" {
				fmt.Fprintf(&b, "ASSISTANT:\n%s\n\n", m.Content)
			}
			for _, c := range m.ToolCalls {
				fmt.Fprintf(&b, "ASSISTANT CALLED %s %s\n\n", c.Name, cut(string(c.Args), 1000))
			}
		case m.Role == store.RoleTool:
			fmt.Fprintf(&b, "RESULT OF %s:\n%s\n\n", m.ToolName, cut(m.Content, 2000))
		}
	}
	s := b.String()
	if len(s) > limit {
		s = "…" + s[len(s)-limit:]
	}
	return strings.ToValidUTF8(s, "")
}

// summarize asks the model for a summary of the history's older messages, stores it and
// shows it. It returns false when there is nothing to summarize or the model could not;
// the budget then leaves the turns out as before.
func (r *run) summarize() bool {
	older, upTo := summarizable(condensed(r.history))
	if len(older) == 0 {
		return false
	}
	ctx, cancel := context.WithTimeout(r.ctx, summaryWait)
	defer cancel()
	limit := int(float64(promptBudget(r.numCtx, summaryNumPredict)) * 3) // bytes: about 3 a token
	req := model.Request{Model: r.opts.Model, Think: "off", NumCtx: r.numCtx, NumPredict: summaryNumPredict,
		KeepAlive: r.keepAlive, FirstByteTimeout: r.opts.FirstByteTimeout,
		Messages: []store.Message{{Role: store.RoleSystem, Content: summaryRequestText},
			{Role: store.RoleUser, Content: transcript(older, limit)}}}
	var text strings.Builder
	r.residency = nil // asked before this request, which may load the model: no longer true
	turn, err := r.a.cfg.Model.Chat(ctx, req, func(d model.Delta) error {
		text.WriteString(d.Content)
		return nil
	})
	if err != nil {
		return false
	}
	if text.Len() == 0 {
		text.WriteString(turn.Content)
	}
	var split vocab.ReasoningSplitter
	_, answer := split.Push(text.String())
	_, rest := split.Flush()
	summary := strings.TrimSpace(answer + rest)
	if summary == "" {
		return false
	}
	m, err := r.a.cfg.Store.AppendMessage(r.cs.id, store.Message{Role: store.RoleSystem, Content: summary,
		SummaryOf: upTo, RunID: r.id, Complete: true})
	if err != nil {
		r.emitError(err)
		return false
	}
	r.emit(events.Event{Type: events.MessageStarted, MessageID: m.ID, Role: store.RoleSystem, Kind: events.KindSummary,
		DroppedMessages: len(older)})
	r.emit(events.Event{Type: events.TextDelta, MessageID: m.ID, Text: summary})
	r.emit(events.Event{Type: events.MessageCompleted, MessageID: m.ID, DoneReason: model.DoneStop})
	r.history = append(r.history, m)
	return true
}
