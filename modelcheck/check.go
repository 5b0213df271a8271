package modelcheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// Bounds of every case (see the package doc).
const (
	MaxSteps   = 4
	NumPredict = 512
	// DefaultCaseTimeout keeps the suite under two minutes however the model behaves.
	DefaultCaseTimeout = 18 * time.Second
)

// Options say which model to check and how.
type Options struct {
	Model string
	// CaseTimeout ends a case that takes longer; 0 means [DefaultCaseTimeout].
	CaseTimeout time.Duration
	// Cases to run; nil means [Cases].
	Cases []Case
	// Progress, when set, is told each case's result as it ends.
	Progress func(CaseResult)
	// Residency, when set, is asked after the cases for the model's quantization and the
	// memory it takes loaded (an Ollama server's /api/show and /api/ps); nil leaves them unknown.
	Residency func(ctx context.Context, model string) (quantization string, bytes int64)
}

// Call is one tool call of a case, as the loop recorded it.
type Call struct {
	Name string `json:"name"`
	// Origin is events.OriginText for a call the model wrote as text, "" for a native one.
	Origin string `json:"origin,omitempty"`
	OK     bool   `json:"ok"`
	// WellFormed is false for a call whose arguments the loop refused.
	WellFormed bool `json:"wellFormed"`
}

// Measures are the figures of a case, and summed over the suite.
type Measures struct {
	Calls      int `json:"calls"`
	WellFormed int `json:"wellFormed"`
	TextCalls  int `json:"textCalls"`
	// Malformed counts calls whose arguments were refused and answers holding call-shaped text
	// the loop could not read as calls.
	Malformed          int     `json:"malformed"`
	FirstTokenMs       int64   `json:"firstTokenMs"`
	PromptTokens       int     `json:"promptTokens"`
	AnswerTokens       int     `json:"answerTokens"`
	PromptTokensPerSec float64 `json:"promptTokensPerSec"`
	AnswerTokensPerSec float64 `json:"answerTokensPerSec"`
	// ContextTokens is the most of the context one message took; NumCtx the context asked for.
	ContextTokens int   `json:"contextTokens"`
	NumCtx        int   `json:"numCtx"`
	DurationMs    int64 `json:"durationMs"`
	// LoadMs is how long loading the model took before the cases (not counted in them).
	LoadMs int64 `json:"loadMs"`

	promptMs, answerMs int64 // the sums the rates divide by
}

// CaseResult is how the model did on one case.
type CaseResult struct {
	Name   string `json:"name"`
	Passed bool   `json:"passed"`
	// Why says why a case failed (one sentence); "" when it passed.
	Why        string `json:"why,omitempty"`
	StopReason string `json:"stopReason,omitempty"`
	Calls      []Call `json:"calls"`
	Measures
}

// Report is the whole check.
type Report struct {
	Model        string       `json:"model"`
	Quantization string       `json:"quantization,omitempty"`
	Passed       int          `json:"passed"`
	Total        int          `json:"total"`
	MemoryBytes  int64        `json:"memoryBytes,omitempty"`
	Cases        []CaseResult `json:"cases"`
	// WrittenCalls: the model's calls work written as text and not through the server's API
	// (no well-formed call that way, cases passed with calls written as text); the loop drives
	// it in that form from its next chat's first request.
	WrittenCalls bool `json:"writtenCalls,omitempty"`
	Measures
}

// ErrNoModel is returned by [Run] without a model to check.
var ErrNoModel = errors.New("name the model to check")

// Run checks opts.Model on server, one case after the other. A case that fails, times out or
// meets a model error counts as failed and the suite goes on; Run returns an error only when
// it could not run at all (no scratch folder, a model the server cannot load) or ctx was
// cancelled.
func Run(ctx context.Context, server model.Model, opts Options) (Report, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return Report{}, ErrNoModel
	}
	cases := opts.Cases
	if cases == nil {
		cases = Cases()
	}
	timeout := opts.CaseTimeout
	if timeout <= 0 {
		timeout = DefaultCaseTimeout
	}
	rep := Report{Model: opts.Model, Total: len(cases)}
	start := time.Now()
	for _, c := range cases {
		res, err := runCase(ctx, server, opts.Model, c, timeout)
		if err != nil {
			return rep, err
		}
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
		rep.Cases = append(rep.Cases, res)
		if res.Passed {
			rep.Passed++
		}
		rep.Measures.add(res.Measures)
		if opts.Progress != nil {
			opts.Progress(res)
		}
	}
	rep.Measures.rates()
	rep.DurationMs = time.Since(start).Milliseconds()
	rep.FirstTokenMs = 0
	var n int64
	for _, c := range rep.Cases {
		if c.FirstTokenMs > 0 {
			rep.FirstTokenMs += c.FirstTokenMs
			n++
		}
	}
	if n > 0 {
		rep.FirstTokenMs /= n
	}
	rep.WrittenCalls = writtenCallsWork(rep)
	if opts.Residency != nil {
		rep.Quantization, rep.MemoryBytes = opts.Residency(ctx, opts.Model)
	}
	return rep, nil
}

// writtenCallsWork reports whether the model's calls work written as text and not through
// the server's API: it made no well-formed call that way, wrote well-formed ones as text, and
// passed cases with them.
func writtenCallsWork(rep Report) bool {
	for _, c := range rep.Cases {
		if c.Passed && c.TextCalls > 0 {
			return rep.WellFormed == rep.TextCalls
		}
	}
	return false
}

func (m *Measures) add(c Measures) {
	m.Calls += c.Calls
	m.WellFormed += c.WellFormed
	m.TextCalls += c.TextCalls
	m.Malformed += c.Malformed
	m.PromptTokens += c.PromptTokens
	m.AnswerTokens += c.AnswerTokens
	m.promptMs += c.promptMs
	m.answerMs += c.answerMs
	m.ContextTokens = max(m.ContextTokens, c.ContextTokens)
	m.NumCtx = max(m.NumCtx, c.NumCtx)
	m.LoadMs += c.LoadMs
}

func (m *Measures) rates() {
	if m.promptMs > 0 {
		m.PromptTokensPerSec = float64(m.PromptTokens) * 1000 / float64(m.promptMs)
	}
	if m.answerMs > 0 {
		m.AnswerTokensPerSec = float64(m.AnswerTokens) * 1000 / float64(m.answerMs)
	}
}

// allowAll answers every approval yes: the case's workspace is a scratch folder, and a call
// written as text must run for the check to see whether it works.
type allowAll struct{}

func (allowAll) Approve(context.Context, agentloop.ApprovalRequest) (string, string, error) {
	return agentloop.DecisionAllow, "", nil
}

// recorder keeps the events of a case's run.
type recorder struct {
	mu     sync.Mutex
	events []events.Event
}

func (r *recorder) Deliver(batch []events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, batch...)
	return nil
}

func (*recorder) PaintsOnDelivery() bool { return true }

// runCase runs c in a scratch folder of its own, removed after.
func runCase(ctx context.Context, server model.Model, name string, c Case, timeout time.Duration) (CaseResult, error) {
	res := CaseResult{Name: c.Name}
	dir, err := os.MkdirTemp("", "prototyper-check-")
	if err != nil {
		return res, fmt.Errorf("cannot make a scratch folder for the check: %w", err)
	}
	defer os.RemoveAll(dir)
	workspace := filepath.Join(dir, "workspace")
	if err := os.Mkdir(workspace, 0o755); err != nil {
		return res, fmt.Errorf("cannot make a scratch folder for the check: %w", err)
	}
	for path, content := range c.Files {
		if err := os.WriteFile(filepath.Join(workspace, path), []byte(content), 0o644); err != nil {
			return res, fmt.Errorf("cannot make a scratch folder for the check: %w", err)
		}
	}
	db, err := store.Open(filepath.Join(dir, "check.db"), store.Options{})
	if err != nil {
		return res, fmt.Errorf("cannot make a scratch store for the check: %w", err)
	}
	defer db.Close()
	rec := &recorder{}
	bridge, err := events.NewBridge(rec)
	if err != nil {
		return res, err
	}
	agent := agentloop.Wire(db, server, bridge, agentloop.WireOptions{Workspace: workspace})

	// The load is not the case's: a model loaded from disk within the case's time would fail
	// the first case on a slow machine. A model that cannot load cannot be checked at all.
	load, err := agent.Preload(ctx, name)
	if err != nil && !errors.Is(err, model.ErrNoPreload) {
		return res, fmt.Errorf("cannot load %s: %w", name, err)
	}
	res.LoadMs = load.Milliseconds()

	caseCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	out, runErr := agent.RunOnce(caseCtx, "", c.Prompt, agentloop.RunOptions{
		Model: name, MaxSteps: MaxSteps, NumPredict: NumPredict, Approve: agentloop.ApproveAuto,
		Approver: allowAll{}, Summarize: store.SummarizeNever, Workspace: workspace, Think: "off",
		NativeCallsOnly: true, // the check measures the model's own calls
	})
	res.DurationMs = time.Since(start).Milliseconds()
	closeCtx, stop := context.WithTimeout(context.Background(), 2*time.Second)
	agent.Shutdown(closeCtx)
	stop()
	_ = bridge.Close()

	o := Outcome{Workspace: workspace, StopReason: out.StopReason}
	res.StopReason = out.StopReason
	if records, err := db.ToolCalls(out.ChatID); err == nil {
		perMessage := map[string]int{}
		for _, r := range records {
			call := Call{Name: r.Name, Origin: r.Origin, OK: r.OK, WellFormed: !refusedArguments(r.Output)}
			o.Calls = append(o.Calls, call)
			perMessage[r.MessageID]++
			o.MostInOneTurn = max(o.MostInOneTurn, perMessage[r.MessageID])
		}
	}
	if msgs, err := db.Messages(out.ChatID); err == nil {
		for _, m := range msgs {
			if m.Role != store.RoleAssistant {
				continue
			}
			o.Answer = m.Content
			if callShaped(m.Content) {
				res.Malformed++
			}
		}
	}
	res.Calls = o.Calls
	for _, call := range o.Calls {
		res.Measures.Calls++
		if !call.WellFormed {
			res.Malformed++
			continue
		}
		res.WellFormed++
		if call.Origin == events.OriginText {
			res.TextCalls++
		}
	}
	rec.measure(&res.Measures)
	res.Passed, res.Why = c.Judge(o)
	switch {
	case ctx.Err() != nil:
		return res, ctx.Err()
	case caseCtx.Err() != nil:
		res.Passed, res.Why = false, fmt.Sprintf("the case took longer than %s", timeout)
	case runErr != nil && !res.Passed:
		res.Why = runErr.Error()
	}
	return res, nil
}

// refusedArguments reports whether a call's result is the loop's or the tool's refusal of its
// arguments.
func refusedArguments(output string) bool {
	return strings.HasPrefix(output, "invalid arguments") || strings.Contains(output, "must be a JSON object")
}

// callShaped reports whether an answer holds what looks like a tool call written as text: the
// loop reads a well-formed one as a call, so one still in the answer is malformed.
func callShaped(text string) bool {
	return strings.Contains(text, "<tool_call>") ||
		(strings.Contains(text, `"name"`) && (strings.Contains(text, `"arguments"`) || strings.Contains(text, `"parameters"`)))
}

// measure reads the timings and token counts of the recorded events into m: per request, the
// wait from the request (phase submitted or continuing) to the answer's first byte (its
// message.started), the model's load left out, and its usage; the time to first token is the
// loop's, of the case's first answer. An answer the model spent
// tokens on that reached the loop as nothing (no text, no thinking, no call) is counted
// malformed: the server's parser swallowed a call it could not read.
func (r *recorder) measure(m *Measures) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var asked time.Time
	var loadMs int64
	firstToken := int64(-1)
	for _, e := range r.events {
		switch e.Type {
		case events.PhaseChanged:
			if e.Phase == events.PhaseSubmitted || e.Phase == events.PhaseContinuing {
				asked, loadMs = e.At, 0
			}
		case events.ModelLoaded:
			if e.LoadMs != nil {
				loadMs += *e.LoadMs
			}
		case events.MessageStarted:
			if e.Role != store.RoleAssistant || asked.IsZero() {
				continue
			}
			m.promptMs += max(e.At.Sub(asked).Milliseconds()-loadMs, 0)
			asked = time.Time{}
		case events.MessageCompleted:
			if e.Usage == nil {
				continue
			}
			if firstToken < 0 && e.Usage.FirstTokenMs > 0 { // the loop's measure (events.Usage)
				firstToken = e.Usage.FirstTokenMs
			}
			if e.Empty && e.Usage.EvalTokens > 0 {
				m.Malformed++
			}
			m.PromptTokens += e.Usage.PromptTokens
			m.AnswerTokens += e.Usage.EvalTokens
			m.answerMs += e.Usage.EvalMs
			m.ContextTokens = max(m.ContextTokens, e.Usage.ContextTokens)
			m.NumCtx = max(m.NumCtx, e.Usage.NumCtx)
		}
	}
	m.FirstTokenMs = max(firstToken, 0)
	m.rates()
}

// Record is what the store keeps of rep.
func (rep Report) Record() store.ModelCheck {
	cases, _ := json.Marshal(rep.Cases)
	return store.ModelCheck{
		Model: rep.Model, Quantization: rep.Quantization, NumCtx: rep.NumCtx,
		Passed: rep.Passed, Total: rep.Total, Calls: rep.Measures.Calls, WellFormed: rep.WellFormed,
		TextCalls: rep.TextCalls, FirstTokenMs: rep.FirstTokenMs,
		PromptTokensPerSec: rep.PromptTokensPerSec, AnswerTokensPerSec: rep.AnswerTokensPerSec,
		MemoryBytes: rep.MemoryBytes, DurationMs: rep.DurationMs, Cases: cases, WrittenCalls: rep.WrittenCalls,
	}
}
