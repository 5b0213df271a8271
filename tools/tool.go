package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
)

// Mode says whether a tool may run at the same time as other tools.
type Mode int

const (
	// Parallel tools only read; several may run at once.
	Parallel Mode = iota
	// Sequential tools change something; they run one at a time, in order.
	Sequential
)

func (m Mode) String() string {
	if m == Sequential {
		return "sequential"
	}
	return "parallel"
}

// MarshalText writes the mode as "parallel" or "sequential".
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads "parallel" or "sequential".
func (m *Mode) UnmarshalText(b []byte) error {
	switch string(b) {
	case "parallel":
		*m = Parallel
	case "sequential":
		*m = Sequential
	default:
		return fmt.Errorf("unknown tool mode %q; use \"parallel\" or \"sequential\"", b)
	}
	return nil
}

// Approval is a tool's default approval policy; the user's settings and hooks
// may override it.
type Approval string

const (
	ApprovalAuto Approval = "auto" // runs without asking
	ApprovalAsk  Approval = "ask"  // the user decides each call
	ApprovalDeny Approval = "deny" // never runs
)

// ParseApproval reads a policy as a user writes it (in the settings, or --approve).
func ParseApproval(s string) (Approval, error) {
	switch a := Approval(s); a {
	case ApprovalAuto, ApprovalAsk, ApprovalDeny:
		return a, nil
	}
	return "", fmt.Errorf("unknown approval policy %q: use auto, ask or deny", s)
}

// Definition is what the model and the UI know about a tool.
type Definition struct {
	Name            string          `json:"name"`
	Description     string          `json:"description"`
	Schema          json.RawMessage `json:"schema"` // JSON Schema of the arguments object
	Mode            Mode            `json:"mode"`
	DefaultApproval Approval        `json:"defaultApproval"`
}

// Call is one validated invocation of a tool.
type Call struct {
	ID   string // the model's tool-call id
	Name string
	Args Args // validated against the schema; numbers are float64
	// Network: the user allowed this call the host's network (run_command).
	Network bool
	// Chat is the chat whose run makes the call ("" outside a chat): the servers it starts
	// are that chat's (see [Servers.StopChat]).
	Chat string
	// Checkpoint is set by the loop for a tool whose changed paths are known only once it
	// ran (run_command): the tool names them before it changes them.
	Checkpoint CheckpointFunc
}

// Args are the decoded arguments of a call, as encoding/json decodes an
// object. The accessors return a fallback when a key is absent, which after
// validation only happens for optional parameters.
type Args map[string]any

// String returns the string at key, or "" when absent.
func (a Args) String(key string) string {
	s, _ := a[key].(string)
	return s
}

// Bool returns the boolean at key, or def when absent.
func (a Args) Bool(key string, def bool) bool {
	if b, ok := a[key].(bool); ok {
		return b
	}
	return def
}

// Int returns the number at key as an int, or def when absent.
func (a Args) Int(key string, def int) int {
	f, ok := a[key].(float64)
	if !ok {
		return def
	}
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt
	case f <= math.MinInt64:
		return math.MinInt
	}
	return int(f)
}

// Has reports whether key was given.
func (a Args) Has(key string) bool {
	_, ok := a[key]
	return ok
}

// Result is the outcome of a call: Content for the model, Details for the UI.
type Result struct {
	Content   string   `json:"content"`
	Details   *Details `json:"details,omitempty"`
	IsError   bool     `json:"isError"`
	Terminate bool     `json:"terminate,omitempty"` // the loop should end the run after this call
	// NotStarted: the call was refused before its tool started, its context having ended
	// (the run was stopped): nothing of it ran.
	NotStarted bool `json:"notStarted,omitempty"`
}

// Details describe a file change for the UI's tool card.
type Details struct {
	Path    string `json:"path,omitempty"`    // workspace-relative, slash-separated
	Bytes   int64  `json:"bytes,omitempty"`   // size written, read, or deleted
	Created bool   `json:"created,omitempty"` // the path did not exist before
	Changed bool   `json:"changed,omitempty"` // the content or the tree changed
	Diff    string `json:"diff,omitempty"`    // unified diff of the change, capped
	// Command describes a run_command call: exit status, time, output size, changes.
	Command *CommandDetails `json:"command,omitempty"`
	// Server is the development server a start_server call started.
	Server *ServerInfo `json:"server,omitempty"`
}

// ErrorResult is the result of a call that failed; err's message is what the
// model reads.
func ErrorResult(err error) Result {
	return Result{Content: err.Error(), IsError: true}
}

// ProgressFunc receives a tool's intermediate updates (for the UI); it must
// be cheap and safe to call from the tool's goroutine.
type ProgressFunc func(update any)

// Tool is something the agent can call.
type Tool interface {
	Definition() Definition
	// Execute runs the call. A returned error becomes an error result whose
	// content is err's message; Details of the result are kept.
	Execute(ctx context.Context, call Call, progress ProgressFunc) (Result, error)
}

// HandlerFunc is the body of a tool.
type HandlerFunc func(ctx context.Context, call Call, progress ProgressFunc) (Result, error)

// Func makes a Tool from a definition and a handler, like http.HandlerFunc.
func Func(def Definition, fn HandlerFunc) Tool { return &funcTool{def: def, fn: fn} }

type funcTool struct {
	def Definition
	fn  HandlerFunc
	err error // a mistake made while building; reported by NewRegistry
}

func (t *funcTool) Definition() Definition { return t.def }

func (t *funcTool) Execute(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
	return t.fn(ctx, call, progress)
}

func (t *funcTool) buildError() error { return t.err }
