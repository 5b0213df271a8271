package agentloop

import (
	"prototyper/events"
	"prototyper/store"
)

// ChatSummary is one row of the window's chat list: the stored chat and its phase.
type ChatSummary struct {
	store.Chat
	Phase events.Phase `json:"phase"`
	// Busy is Phase.Busy(): the list's busy dot, drawn as given.
	Busy bool `json:"busy,omitempty"`
}

// OpenedChat is a chat as the window receives it when it opens one (also after a restart):
// its messages, its tool-call records, its phase and its live run. A pending record whose run
// is not [OpenedChat.LiveRunID] is shown as interrupted; the window's types for it are
// generated from these (docs/ARCHITECTURE.md, "Tool-call state").
type OpenedChat struct {
	Chat      ChatSummary            `json:"chat"`
	Messages  []store.Message        `json:"messages"`
	ToolCalls []store.ToolCallRecord `json:"toolCalls"`
	Phase     events.Phase           `json:"phase"`
	Busy      bool                   `json:"busy,omitempty"` // Phase.Busy(): the header's spinner and Stop
	LiveRunID string                 `json:"liveRunId"`
	// ToolStates is the state each tool call's card is drawn in, by call id ([Undone.State]):
	// the window draws it as given.
	ToolStates map[string]string `json:"toolStates"`
	// UndoneRuns is, for each run whose changes an undo took back (some or all, [UndoneOf]),
	// the line its answer carries saying so.
	UndoneRuns map[string]string `json:"undoneRuns,omitempty"`
	// EmptyAnswers are the ids of the answers that are empty answers ([IsEmptyAnswer]).
	EmptyAnswers []string `json:"emptyAnswers,omitempty"`
	// Changes are the chat's checkpoints: which runs changed files (and can be undone), and
	// the undos and redos made since.
	Changes []ChangeSummary `json:"changes"`
	// Versions are the messages that start one of several versions of the history (edit and
	// resend); the window's session fills them in (desktop.Desktop.OpenChat).
	Versions []store.Version `json:"versions,omitempty"`
	// Notes are the sentences the chat's runs said besides their messages (why a run stopped
	// as a loop, which tools it could not offer), oldest run first: the window shows each
	// with its run's messages.
	Notes []ChatNote `json:"notes,omitempty"`
	// Stopped is set when the chat's last run shown was cut short (the user's Stop, the app
	// quit or killed) and nothing runs: the window offers to continue it or ask again.
	Stopped *StoppedRun `json:"stopped,omitempty"`
	// StoppedRuns are the runs shown that ended before their end, oldest first, Stopped's
	// among them: the window says under each answer they left whether the user stopped it.
	StoppedRuns []StoppedRun `json:"stoppedRuns,omitempty"`
}

// StoppedRun is a run that ended before its end.
type StoppedRun struct {
	RunID string `json:"runId"`
	// Interrupted: the run was cut short, not stopped by the user: the process died while it
	// ran (store.StopInterrupted) or the app quit (store.Run.Quit). Else the user stopped it.
	Interrupted bool `json:"interrupted,omitempty"`
}

// stopOf is how run r ended before its end, nil when it did not.
func stopOf(r store.Run) *StoppedRun {
	if r.StopReason != events.StopAborted && r.StopReason != store.StopInterrupted {
		return nil
	}
	return &StoppedRun{RunID: r.ID, Interrupted: r.StopReason == store.StopInterrupted || r.Quit}
}

// stoppedRuns lists the runs a shown message carries that ended before their end, oldest
// first (see [stoppedRun] for why the messages say which runs are shown).
func stoppedRuns(runs []store.Run, msgs []store.Message) []StoppedRun {
	shown := shownRuns(msgs)
	var out []StoppedRun
	for _, r := range runs {
		if s := stopOf(r); s != nil && shown[r.ID] {
			out = append(out, *s)
		}
	}
	return out
}

// shownRuns are the runs that the messages shown carry.
func shownRuns(msgs []store.Message) map[string]bool {
	shown := map[string]bool{}
	for _, m := range msgs {
		shown[m.RunID] = true
	}
	return shown
}

// stoppedRun is the newest of runs that a shown message carries when it was stopped or
// interrupted, nil when it ended otherwise or a run is live. The messages say which runs the
// version shown holds; the call records do not (they are those of every version, and a run's
// calls belong to an answer of that run).
func stoppedRun(runs []store.Run, msgs []store.Message, live string) *StoppedRun {
	if live != "" {
		return nil
	}
	shown := shownRuns(msgs)
	for i := len(runs) - 1; i >= 0; i-- {
		r := runs[i]
		if !shown[r.ID] {
			continue // a run of a version not shown
		}
		return stopOf(r)
	}
	return nil
}

// ChatNote is one sentence a run said in its chat that is no message ([store.RunNote]).
type ChatNote struct {
	RunID string `json:"runId"`
	store.RunNote
}

// chatNotes lists the notes of a chat's runs, oldest run first.
func chatNotes(runs []store.Run) []ChatNote {
	var out []ChatNote
	for _, r := range runs {
		for _, n := range r.Notes {
			if n.StopReason == events.StopCompleted && n.Code == "" {
				// kept before the sentence had a code: the only one a completed run keeps
				n.Code = CodeEmptyAnswer
			}
			out = append(out, ChatNote{RunID: r.ID, RunNote: n})
		}
	}
	return out
}

// ChangeSummary is one checkpoint of a chat as the window shows it: a run that changed
// files ("Undo" on it while it stands), an undo or a redo.
type ChangeSummary struct {
	ID    string   `json:"id"` // the run's id, for a run
	Kind  string   `json:"kind"`
	Paths []string `json:"paths"`
	// Created and Deleted are those of Paths a run created and deleted (store.PathChange.Effect);
	// the others it edited.
	Created    []string `json:"created,omitempty"`
	Deleted    []string `json:"deleted,omitempty"`
	Reverts    []string `json:"reverts,omitempty"`
	RevertedBy string   `json:"revertedBy,omitempty"`
	// OtherVersion: a run of a version of the chat not shown, or an undo of one; undo and
	// redo leave it until that version is shown again.
	OtherVersion bool `json:"otherVersion,omitempty"`
}

// ChangeSummaries lists a chat's checkpoints, oldest first, from their outlines: opening a
// chat decodes none of the states its changes kept.
func (a *Agent) ChangeSummaries(chatID string) ([]ChangeSummary, error) {
	changes, err := a.cfg.Store.ChangeOutlines(chatID)
	if err != nil {
		return nil, err
	}
	notShown, err := a.cfg.Store.RunsNotShown(chatID)
	if err != nil {
		return nil, err
	}
	out := make([]ChangeSummary, 0, len(changes))
	for _, c := range changes {
		out = append(out, ChangeSummary{ID: c.ID, Kind: c.Kind, Reverts: c.Reverts, RevertedBy: c.RevertedBy, Paths: c.Changed,
			Created: c.Created, Deleted: c.Deleted, OtherVersion: ofVersionNotShown(c.Kind, c.ID, c.Reverts, notShown)})
	}
	return out, nil
}

// Summary is c with its phase.
func (a *Agent) Summary(c store.Chat) ChatSummary {
	p := a.Phase(c.ID)
	return ChatSummary{Chat: c, Phase: p, Busy: p.Busy()}
}

// Summaries lists the chats, newest first, with their phases; a chat being deleted is left out.
func (a *Agent) Summaries() ([]ChatSummary, error) {
	chats, err := a.cfg.Store.ListChats()
	if err != nil {
		return nil, err
	}
	out := make([]ChatSummary, 0, len(chats))
	for _, c := range chats {
		if !a.beingDeleted(c.ID) { // listed while its run ends, it would come back in the window
			out = append(out, a.Summary(c))
		}
	}
	return out, nil
}

// Open reads one chat as the window shows it.
func (a *Agent) Open(chatID string) (OpenedChat, error) {
	c, err := a.cfg.Store.Chat(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	msgs, err := a.cfg.Store.Messages(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	calls, err := a.cfg.Store.ToolCalls(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	changes, err := a.ChangeSummaries(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	runs, err := a.cfg.Store.RunsOf(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	undone, err := a.undone(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	phase, live := a.Phase(chatID), a.LiveRun(chatID)
	return OpenedChat{Chat: ChatSummary{Chat: c, Phase: phase, Busy: phase.Busy()}, Messages: msgs, ToolCalls: calls,
		Phase: phase, Busy: phase.Busy(), LiveRunID: live, ToolStates: recordStates(calls, live, undone), UndoneRuns: undone.Runs,
		EmptyAnswers: emptyAnswers(msgs), Changes: changes, Notes: chatNotes(runs), Stopped: stoppedRun(runs, msgs, live),
		StoppedRuns: stoppedRuns(runs, msgs)}, nil
}
