package model

import (
	"context"
	"errors"
	"time"

	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// Model streams one turn of a chat model. [Ollama] and [OpenAI] are the real ones, and
// [Server] the one the loop is given (it passes each call to the one the user chose); tests
// use fakes.
type Model interface {
	// Chat sends req and calls fn once per streamed item (a thinking or content delta, a
	// retry). It returns the finished turn only when the stream ended properly; on error the
	// returned turn holds what arrived, and its tool calls are never executed. Cancelling ctx
	// closes the connection at once.
	Chat(ctx context.Context, req Request, fn DeltaFunc) (Turn, error)
	// ContextLength returns the model's context length in tokens (0 when unknown).
	ContextLength(ctx context.Context, model string) (int, error)
}

// DeltaFunc receives one streamed item of a turn. Returning an error stops the stream.
type DeltaFunc func(Delta) error

// Request is one chat request (Ollama's /api/chat, an OpenAI-compatible server's
// /v1/chat/completions), in the loop's terms.
type Request struct {
	Model      string
	Messages   []store.Message
	Tools      []tools.Definition
	Think      string // off, on, low, medium, high; "" lets the server decide
	NumCtx     int
	NumPredict int // 0: no cap
	// FirstByteTimeout bounds the wait for the answer's first byte, loading included
	// (0: the model's own default).
	FirstByteTimeout time.Duration
	// KeepAlive is how long the server keeps the model loaded after the request (0: the
	// server's default; negative: until it stops).
	KeepAlive time.Duration
	// MaxAnswerBytes bounds the answer's text, thinking and tool calls together (0: the
	// model's own default); past it the stream is cut and the turn holds what fitted.
	MaxAnswerBytes int
}

// Delta is one streamed item: a piece of thinking, a piece of content, a retry notice, or
// the start of the answer.
type Delta struct {
	Thinking string
	Content  string
	Retry    *RetryNotice
	// Started says that the answer's first byte arrived (the model is loaded), before any
	// text; a model that cannot tell may leave it out; the first text then says it.
	Started bool
}

// RetryNotice says that a request is being retried (only ever before its first byte).
type RetryNotice struct {
	Attempt int
	Delay   time.Duration
	Reason  string
}

// streamKinds names, in the event kinds of a provider's client, the events of its chat stream
// that become a [Delta]: one mapping for every provider.
type streamKinds[K comparable] struct{ started, thinking, content, retry K }

// send passes fn the Delta of one streamed event of kind k: text for a piece of thinking or
// of the answer, retry for a retry about to be made. Another kind is not the loop's business.
func (ks streamKinds[K]) send(fn DeltaFunc, k K, text string, retry RetryNotice) error {
	switch k {
	case ks.started:
		return fn(Delta{Started: true})
	case ks.thinking:
		return fn(Delta{Thinking: text})
	case ks.content:
		return fn(Delta{Content: text})
	case ks.retry:
		notice := retry
		return fn(Delta{Retry: &notice})
	}
	return nil
}

// Turn is a finished (or, on error, partial) assistant turn.
type Turn struct {
	Content      string
	Thinking     string
	ToolCalls    []store.ToolCall
	DoneReason   string // DoneStop, DoneLength, …
	PromptTokens int
	EvalTokens   int
	EvalDuration time.Duration
	// PromptDuration is how long the server spent evaluating the prompt (0 when it does not
	// say): what a prompt its cache served saves.
	PromptDuration time.Duration
	// LoadDuration is how long the server spent loading the model for this request (0 when
	// it was loaded already, or the server does not say).
	LoadDuration time.Duration
}

// Done reasons of a [Turn] the loop tells apart (Ollama's done_reason).
const (
	// DoneStop: the model ended its answer.
	DoneStop = "stop"
	// DoneLength: the answer reached the length limit (num_predict) and was cut; the loop
	// asks for the rest.
	DoneLength = "length"
)

// ClassifiedError is implemented by model errors that know their `error` event code and
// whether trying again may help. Errors that do not are reported as code "model".
type ClassifiedError interface {
	error
	Code() string
	Retryable() bool
}

// Residency is implemented by models whose server can say whether a model is in memory and
// load it ahead of a request. [Ollama] is one (/api/ps, and an empty request with
// keep_alive). The loop announces a load before it happens with it, and the window preloads
// the model the user picks.
type Residency interface {
	// Loaded reports whether model is in the server's memory; known is false when the server
	// could not say.
	Loaded(ctx context.Context, model string) (loaded, known bool)
	// Preload loads model for requests with a context of numCtx tokens and keeps it for
	// keepAlive (0: the server's default; negative: until it stops). It returns how long the
	// load took.
	Preload(ctx context.Context, model string, numCtx int, keepAlive time.Duration) (time.Duration, error)
}

// ContextFitter is implemented by models whose server shares this machine's memory: it says
// how much of the context asked for fits ([Ollama.FitContext]): numCtx, and why in a sentence
// for the user when it is less than want.
type ContextFitter interface {
	FitContext(ctx context.Context, model string, want int) (numCtx int, why string)
}

// ToolSupport is implemented by models that can tell, before any request, whether a model
// can call tools; a message to one that cannot is then refused before it is stored.
// [Ollama] is one (from /api/show's capabilities).
type ToolSupport interface {
	// SupportsTools reports whether model can call tools; known is false when the server
	// does not say.
	SupportsTools(ctx context.Context, model string) (ok, known bool)
}

// VisionSupport is implemented by models that can tell, before any request, whether a model
// sees images. [Ollama] is one (the vision capability of /api/show).
type VisionSupport interface {
	// SupportsVision reports whether model reads images; known is false when the server
	// does not say.
	SupportsVision(ctx context.Context, model string) (ok, known bool)
}

// ErrNoPreload is returned by a Preload when the model's server cannot load a model
// ahead of a request (it does not implement [Residency]).
var ErrNoPreload = errors.New("this model server cannot load a model ahead of a message")

// Fatal reports whether an error of asking about a model (its context length) means that
// a chat request would fail too: there is no use sending one (and waiting again).
func Fatal(err error) bool {
	var ce ClassifiedError
	if err == nil || !errors.As(err, &ce) {
		return false
	}
	switch ce.Code() {
	case vocab.CodeNotRunning, vocab.CodeModelNotFound, vocab.CodeNotOllama, vocab.CodeFirstByteTimeout,
		vocab.CodeUnauthorized, vocab.CodeRedirected, vocab.CodeNotOpenAI:
		return true
	}
	return false
}
