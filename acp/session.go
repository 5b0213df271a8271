package acp

import (
	"context"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/agentloop"
	"prototyper/events"
)

// Modes of a session: the approval policy of its runs.
const (
	// ModeSettings applies the settings' policy of each tool, as the window does.
	ModeSettings = "settings"
	// ModeAsk asks before every tool call.
	ModeAsk = "ask"
	// ModeAuto runs unasked every call the settings would ask about; a tool the settings deny
	// stays denied, and a call the model wrote as text is still asked: no mode allows more
	// than the window's settings.
	ModeAuto = "auto"
	// ModeDeny runs no tool.
	ModeDeny = "deny"
)

// modes are the session modes, in the order the editor lists them, with the policy each
// gives RunOptions.Approve (auto's runs take the settings' policies, and its answerer allows
// what they ask about).
var modes = []struct {
	id, name, description, approve string
}{
	{ModeSettings, "Settings", "Each tool as the settings say (the window's policies)", ""},
	{ModeAsk, "Ask", "Ask before every tool call", agentloop.ApproveAsk},
	{ModeAuto, "Auto-approve", "Run without asking what the settings ask about (what they deny stays denied)", ""},
	{ModeDeny, "No tools", "Answer without running any tool", agentloop.ApproveDeny},
}

// session is one chat driven from the editor.
type session struct {
	s      *Server
	chatID string
	asks   chan events.Event // approval requests and summary offers, answered in order

	mu   sync.Mutex
	mode string
	turn *turn // the prompt in progress, or nil
	// calls are the tool calls the editor was told of, with the command output sent so far
	calls map[string]*callView
}

// callView is what the editor was shown of one tool call.
type callView struct {
	name   string
	args   []byte
	output []byte // a command's output, its tail when long
}

// turn is one prompt: the runs it started and how the last of them ended.
type turn struct {
	ctx  context.Context
	done chan struct{}

	mu     sync.Mutex
	runs   map[string]bool // runs started during the turn
	reason string
	usage  *events.Usage
	ended  bool
}

func newSession(s *Server, chatID string) *session {
	sess := &session{s: s, chatID: chatID, mode: ModeSettings, asks: make(chan events.Event, 64), calls: map[string]*callView{}}
	go sess.answer()
	return sess
}

// modeState is the session's modes for session/new and session/load.
func (sess *session) modeState() *sdk.SessionModeState {
	st := &sdk.SessionModeState{CurrentModeId: sdk.SessionModeId(sess.currentMode())}
	for _, m := range modes {
		st.AvailableModes = append(st.AvailableModes, sdk.SessionMode{Id: sdk.SessionModeId(m.id), Name: m.name, Description: sdk.Ptr(m.description)})
	}
	return st
}

func (sess *session) currentMode() string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.mode
}

func (sess *session) setMode(id string) error {
	for _, m := range modes {
		if m.id == id {
			sess.mu.Lock()
			sess.mode = id
			sess.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("no mode %q: the modes are settings, ask, auto and deny", id)
}

// approve is the approval override of the session's mode.
func (sess *session) approve() string {
	mode := sess.currentMode()
	for _, m := range modes {
		if m.id == mode {
			return m.approve
		}
	}
	return ""
}

// begin starts a turn, once the one before it has ended (a new prompt of a session cancels
// the one before, whose run may still be stopping).
func (sess *session) begin(ctx context.Context) (*turn, error) {
	for {
		sess.mu.Lock()
		prev := sess.turn
		if prev == nil {
			t := &turn{ctx: ctx, done: make(chan struct{}), runs: map[string]bool{}}
			sess.turn = t
			sess.mu.Unlock()
			return t, nil
		}
		sess.mu.Unlock()
		select {
		case <-prev.done:
			sess.end(prev)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// end forgets t as the session's turn.
func (sess *session) end(t *turn) {
	t.finish("")
	sess.mu.Lock()
	if sess.turn == t {
		sess.turn = nil
	}
	sess.mu.Unlock()
}

// current is the turn in progress, or nil.
func (sess *session) current() *turn {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.turn
}

// started counts a run as the turn's.
func (t *turn) started(runID string) {
	t.mu.Lock()
	t.runs[runID] = true
	t.mu.Unlock()
}

// finished records how one of the turn's runs ended; a run that paused on the user leaves
// the turn going. It reports whether the run was the turn's.
func (t *turn) finished(e events.Event) bool {
	t.mu.Lock()
	ours := t.runs[e.RunID]
	if ours && e.Usage != nil {
		if t.usage == nil {
			t.usage = &events.Usage{}
		}
		t.usage.PromptTokens += e.Usage.PromptTokens
		t.usage.EvalTokens += e.Usage.EvalTokens
	}
	t.mu.Unlock()
	if ours && e.StopReason != events.StopAwaitingApproval && e.StopReason != events.StopAwaitingSummary {
		t.finish(e.StopReason)
	}
	return ours
}

// finish ends the turn with reason (the first reason given stays).
func (t *turn) finish(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended {
		return
	}
	t.ended, t.reason = true, reason
	close(t.done)
}

// result is how the turn ended and what its runs used.
func (t *turn) result() (string, *events.Usage) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reason, t.usage
}
