package model

import (
	"context"
	"errors"
	"sync"

	"prototyper/model/openai"
	"prototyper/store"
	"prototyper/tools"
)

// OpenAI is the [Model] of a server that speaks the OpenAI-compatible API (vLLM,
// llama.cpp, LM Studio, Ollama's /v1, a hosted API). The context length comes from the
// server's model list when it says (asked once); such servers cannot tell whether a model
// can call tools, so it is not a [ToolSupport].
type OpenAI struct {
	Client *openai.Client

	mu      sync.Mutex
	lengths map[string]int // from /v1/models, once it answered
}

// NewOpenAI returns the model of client.
func NewOpenAI(client *openai.Client) *OpenAI {
	return &OpenAI{Client: client}
}

// ContextLength returns what the server's model list says of model's context, 0 when it
// says nothing (the context cap of the settings then applies).
func (m *OpenAI) ContextLength(ctx context.Context, model string) (int, error) {
	m.mu.Lock()
	lengths := m.lengths
	m.mu.Unlock()
	if lengths == nil {
		list, err := m.Client.Models(ctx)
		switch {
		case errors.Is(err, openai.ErrNotOpenAI): // a server without a model list; the chat will say more
			return 0, nil
		case err != nil:
			return 0, openAIError{err}
		}
		lengths = map[string]int{}
		for _, e := range list {
			lengths[e.ID] = e.ContextLength
		}
		m.mu.Lock()
		m.lengths = lengths
		m.mu.Unlock()
	}
	return lengths[model], nil
}

// Chat streams one turn. Thinking levels low, medium and high are sent as the reasoning
// effort; on, off and the default leave it to the server (thinking that arrives anyway is
// shown as thinking).
func (m *OpenAI) Chat(ctx context.Context, req Request, fn DeltaFunc) (Turn, error) {
	client := m.Client
	if req.FirstByteTimeout > 0 {
		client = client.With(openai.WithTimeouts(req.FirstByteTimeout, client.IdleTimeout()))
	}
	if req.MaxAnswerBytes > 0 {
		client = client.With(openai.WithMaxAnswerSize(req.MaxAnswerBytes))
	}
	oreq := &openai.ChatRequest{Model: req.Model, MaxTokens: req.NumPredict}
	switch req.Think {
	case "low", "medium", "high":
		oreq.ReasoningEffort = req.Think
	}
	for _, msg := range req.Messages {
		om := openai.Message{Role: msg.Role, Content: msg.Content, Images: msg.Images, ToolCallID: msg.ToolCallID}
		for _, c := range msg.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, openai.ToolCall{ID: c.ID, Name: c.Name, Arguments: tools.ObjectArgs(c.Args)})
		}
		oreq.Messages = append(oreq.Messages, om)
	}
	for _, d := range req.Tools {
		oreq.Tools = append(oreq.Tools, openai.Tool{Name: d.Name, Description: d.Description, Parameters: d.Schema})
	}
	res, err := client.Chat(ctx, oreq, func(e openai.Event) error {
		return openAIStream.send(fn, e.Kind, e.Text, RetryNotice{Attempt: e.Attempt, Delay: e.Delay, Reason: e.Reason})
	})
	var turn Turn
	if res != nil {
		turn = Turn{Content: res.Content, Thinking: res.Thinking, DoneReason: doneReason(res.FinishReason),
			PromptTokens: res.Usage.PromptTokens, EvalTokens: res.Usage.CompletionTokens, EvalDuration: res.Generating}
		for _, c := range res.ToolCalls {
			turn.ToolCalls = append(turn.ToolCalls, store.ToolCall{ID: c.ID, Name: c.Name, Args: c.Arguments})
		}
	}
	if err != nil {
		return turn, openAIError{err}
	}
	return turn, nil
}

// openAIStream names the events of an OpenAI-compatible chat stream that become a Delta.
var openAIStream = streamKinds[openai.EventKind]{started: openai.EventStarted,
	thinking: openai.EventThinkingDelta, content: openai.EventContentDelta, retry: openai.EventRetry}

// doneReason maps a finish_reason to the loop's done reasons: "length" is cut at the
// length limit; everything else ended the answer.
func doneReason(finish string) string {
	if finish == "length" {
		return DoneLength
	}
	return DoneStop
}

// openAIError gives a client error its `error` event code and retryability.
type openAIError struct{ err error }

func (e openAIError) Error() string   { return e.err.Error() }
func (e openAIError) Unwrap() error   { return e.err }
func (e openAIError) Code() string    { return openai.Code(e.err) }
func (e openAIError) Retryable() bool { return openai.Retryable(e.err) }
