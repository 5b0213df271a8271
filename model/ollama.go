package model

import (
	"context"
	"errors"
	"sync"
	"time"

	"prototyper/model/ollama"
	"prototyper/store"
	"prototyper/tools"
)

// Ollama is the [Model] of an Ollama server (local or remote), through the native client. It asks
// /api/show once per model for the context length and the capabilities; a failure that
// lets the run go on without them is remembered for a short while, so that one run never
// waits for it twice.
type Ollama struct {
	Client *ollama.Client

	mu       sync.Mutex
	infos    map[string]*ollama.ModelInfo
	failures map[string]showFailure
	fits     map[fitKey]ollama.ContextFit // FitContext's choices, kept for the process
}

// machineMemory reads this machine's memory (a test gives a machine of its own).
var machineMemory = ollama.MachineMemory

// fitKey is a context fit's question: a model and the context asked for.
type fitKey struct {
	model string
	want  int
}

// showFailure is a failed /api/show, kept for failureMemory.
type showFailure struct {
	err error
	at  time.Time
}

// failureMemory is how long a failed /api/show is answered from memory: long enough for the
// checks and the first turn of one run, short enough that the next message asks again.
const failureMemory = 10 * time.Second

// NewOllama returns the model of client.
func NewOllama(client *ollama.Client) *Ollama {
	return &Ollama{Client: client, infos: map[string]*ollama.ModelInfo{}, failures: map[string]showFailure{}}
}

// info returns what /api/show says of model, asking once.
func (m *Ollama) info(ctx context.Context, model string) (*ollama.ModelInfo, error) {
	m.mu.Lock()
	info, ok := m.infos[model]
	f, failed := m.failures[model]
	m.mu.Unlock()
	if ok {
		return info, nil
	}
	if failed && time.Since(f.at) < failureMemory {
		return nil, f.err
	}
	info, err := m.Client.Show(ctx, model)
	if err != nil {
		err = modelError{err}
		// a failure that ends the run is not remembered: the user fixes it (starts the
		// server, pulls the model) and tries again at once
		if ctx.Err() == nil && !errors.Is(err, context.Canceled) && !Fatal(err) {
			m.mu.Lock()
			m.failures[model] = showFailure{err: err, at: time.Now()}
			m.mu.Unlock()
		}
		return nil, err
	}
	m.mu.Lock()
	m.infos[model] = info
	delete(m.failures, model)
	m.mu.Unlock()
	return info, nil
}

// ContextLength returns the model's trained context length from /api/show.
func (m *Ollama) ContextLength(ctx context.Context, model string) (int, error) {
	info, err := m.info(ctx, model)
	if err != nil {
		return 0, err
	}
	return info.ContextLength, nil
}

// SupportsTools reports whether /api/show lists the tools capability of model; known is
// false when the server lists no capabilities at all, or could not be asked.
func (m *Ollama) SupportsTools(ctx context.Context, model string) (ok, known bool) {
	info, err := m.info(ctx, model)
	if err != nil || len(info.Capabilities) == 0 {
		return false, false
	}
	return info.Has(ollama.CapabilityTools), true
}

// SupportsVision reports whether /api/show lists the vision capability of model; known is
// false when the server lists no capabilities, or could not be asked.
func (m *Ollama) SupportsVision(ctx context.Context, model string) (ok, known bool) {
	info, err := m.info(ctx, model)
	if err != nil || len(info.Capabilities) == 0 {
		return false, false
	}
	return info.Has(ollama.CapabilityVision), true
}

// think is the think field of a request for model at level: thinking is asked of a model
// that can think — by default, so that its thinking streams apart from its answer — and
// never of one that cannot (the server would refuse the request with a 400). "off" is always
// sent as it is.
func (m *Ollama) think(ctx context.Context, model, level string) (ollama.Think, error) {
	think, err := ollama.ParseThink(level)
	if err != nil || think == ollama.ThinkOff {
		return think, err
	}
	info, err := m.info(ctx, model)
	if err != nil { // the chat request itself will say what is wrong
		return think, nil
	}
	switch {
	case !info.Has(ollama.CapabilityThinking):
		return ollama.Think{}, nil
	case level == "":
		return ollama.ThinkOn, nil
	}
	return think, nil
}

// Chat streams one turn.
func (m *Ollama) Chat(ctx context.Context, req Request, fn DeltaFunc) (Turn, error) {
	think, err := m.think(ctx, req.Model, req.Think)
	if err != nil {
		return Turn{}, err
	}
	client := m.Client
	if req.FirstByteTimeout > 0 {
		client = client.With(ollama.WithFirstByteTimeout(req.FirstByteTimeout))
	}
	if req.MaxAnswerBytes > 0 {
		client = client.With(ollama.WithMaxAnswerSize(req.MaxAnswerBytes))
	}
	oreq := &ollama.ChatRequest{Model: req.Model, Think: think, KeepAlive: keepAliveOf(req.KeepAlive),
		Options: &ollama.Options{NumCtx: req.NumCtx, NumPredict: req.NumPredict}}
	oreq.Messages = make([]ollama.Message, len(req.Messages))
	for i, msg := range req.Messages {
		om := ollama.Message{Role: msg.Role, Content: msg.Content, ToolName: msg.ToolName, Images: msg.Images}
		for j, c := range msg.ToolCalls {
			// stored before arguments were checked, a non-object would be refused by the server
			args := tools.ObjectArgs(c.Args)
			om.ToolCalls = append(om.ToolCalls, ollama.ToolCall{ID: c.ID, Index: j,
				Function: ollama.ToolCallFunction{Name: c.Name, Arguments: args}})
		}
		oreq.Messages[i] = om
	}
	for _, d := range req.Tools {
		oreq.Tools = append(oreq.Tools, ollama.FunctionTool(d.Name, d.Description, d.Schema))
	}
	res, err := client.Chat(ctx, oreq, func(e ollama.Event) error {
		return ollamaStream.send(fn, e.Kind, e.Text, RetryNotice{Attempt: e.Retry.Attempt, Delay: e.Retry.Delay, Reason: e.Retry.Reason})
	})
	var turn Turn
	if res != nil {
		turn = Turn{Content: res.Message.Content, Thinking: res.Message.Thinking, DoneReason: res.DoneReason,
			PromptTokens: res.Metrics.PromptEvalCount, EvalTokens: res.Metrics.EvalCount,
			EvalDuration: res.Metrics.EvalDuration, PromptDuration: res.Metrics.PromptEvalDuration, LoadDuration: res.Metrics.LoadDuration}
		if err == nil && res.Done {
			for _, c := range res.Message.ToolCalls {
				turn.ToolCalls = append(turn.ToolCalls, store.ToolCall{ID: c.ID, Name: c.Function.Name, Args: c.Function.Arguments})
			}
		}
	}
	if err != nil {
		return turn, modelError{err}
	}
	return turn, nil
}

// ollamaStream names the events of Ollama's chat stream that become a Delta.
var ollamaStream = streamKinds[ollama.EventKind]{started: ollama.EventStarted,
	thinking: ollama.EventThinkingDelta, content: ollama.EventContentDelta, retry: ollama.EventRetry}

// keepAliveOf is the keep_alive of a request: unset for 0, forever for a negative d.
func keepAliveOf(d time.Duration) ollama.KeepAlive {
	switch {
	case d == 0:
		return ollama.KeepAlive{}
	case d < 0:
		return ollama.KeepAliveForever
	}
	return ollama.KeepAliveFor(d)
}

// Loaded asks /api/ps whether the server holds model in memory.
func (m *Ollama) Loaded(ctx context.Context, model string) (loaded, known bool) {
	loaded, err := m.Client.IsLoaded(ctx, model)
	return loaded, err == nil
}

// Preload loads model with an empty request that keeps it for keepAlive.
func (m *Ollama) Preload(ctx context.Context, model string, numCtx int, keepAlive time.Duration) (time.Duration, error) {
	var opts *ollama.Options
	if numCtx > 0 {
		opts = &ollama.Options{NumCtx: numCtx}
	}
	d, err := m.Client.Load(ctx, model, keepAliveOf(keepAlive), opts)
	if err != nil {
		return 0, modelError{err}
	}
	return d, nil
}

var _ Residency = (*Ollama)(nil)

// modelError gives a client error its `error` event code and retryability.
type modelError struct{ err error }

func (e modelError) Error() string   { return e.err.Error() }
func (e modelError) Unwrap() error   { return e.err }
func (e modelError) Code() string    { return ollama.Code(e.err) }
func (e modelError) Retryable() bool { return ollama.Retryable(e.err) }

// FitContext is the context for model on this machine: want, or less when the model's weights
// and the KV cache of want tokens would not fit the memory free for it with room to spare
// ([ollama.FitContext]; free is the machine's available memory and what the model holds
// loaded). It is chosen once per model and want, so that the turns of a chat keep one size
// and the server does not load the model again between them. A server on another machine,
// or one that does not say the model's size or geometry, keeps want.
func (m *Ollama) FitContext(ctx context.Context, model string, want int) (numCtx int, why string) {
	key := fitKey{model, want}
	m.mu.Lock()
	fit, ok := m.fits[key]
	m.mu.Unlock()
	if ok {
		return fit.NumCtx, fit.Why
	}
	if !m.Client.OnThisMachine() {
		return want, ""
	}
	info, err := m.info(ctx, model)
	if err != nil {
		return want, ""
	}
	var weights, held int64
	if list, err := m.Client.List(ctx); err == nil {
		for _, s := range list {
			if ollama.SameModel(s.Name, model) || ollama.SameModel(s.Model, model) {
				weights = s.Size
			}
		}
	}
	if running, err := m.Client.Running(ctx); err == nil {
		for _, r := range running {
			if ollama.SameModel(r.Name, model) || ollama.SameModel(r.Model, model) {
				held = r.Size
			}
		}
	}
	free := machineMemory().Available
	if free > 0 {
		free += held
	}
	fit = ollama.FitContext(model, want, weights, info.KVBytesPerToken, free)
	m.mu.Lock()
	if m.fits == nil {
		m.fits = map[fitKey]ollama.ContextFit{}
	}
	m.fits[key] = fit
	m.mu.Unlock()
	return fit.NumCtx, fit.Why
}
