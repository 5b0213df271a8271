package openai

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
)

// ChatRequest is one /v1/chat/completions request; it always streams.
type ChatRequest struct {
	Model    string
	Messages []Message
	Tools    []Tool
	// ReasoningEffort is low, medium or high; "" sends none (the server decides).
	ReasoningEffort string
	// MaxTokens caps the answer (0: no cap).
	MaxTokens int
}

// Message is one message of the conversation.
type Message struct {
	Role    string // vocab.RoleUser, RoleAssistant, RoleTool, RoleSystem
	Content string
	// Images are sent with a user message as data: URLs.
	Images    [][]byte
	ToolCalls []ToolCall
	// ToolCallID names the call a tool message answers.
	ToolCallID string
}

// Tool is a function the model may call; Parameters is its arguments' JSON Schema.
type Tool struct {
	Name, Description string
	Parameters        json.RawMessage
}

// ToolCall is one complete call: Arguments is a JSON object, or a JSON string holding what
// the model wrote when that was not one.
type ToolCall struct {
	ID, Name  string
	Arguments json.RawMessage
}

// Usage is the token count of a turn, when the server reports it.
type Usage struct {
	PromptTokens, CompletionTokens int
}

// Result is a finished turn (Done) or, next to an error, what arrived of it (never its
// tool calls).
type Result struct {
	Content, Thinking string
	ToolCalls         []ToolCall
	FinishReason      string
	Usage             Usage
	// Generating is the time from the first token to the end, for tokens per second.
	Generating time.Duration
	Done       bool
}

// EventKind says what an [Event] carries.
type EventKind uint8

// The kinds of [Event].
const (
	// EventStarted: the answer's first event arrived (the model is loaded).
	EventStarted EventKind = iota + 1
	// EventThinkingDelta carries new thinking in Event.Text.
	EventThinkingDelta
	// EventContentDelta carries new answer text in Event.Text.
	EventContentDelta
	// EventRetry: the request is about to be retried (only before the first byte).
	EventRetry
)

// Event is one streamed item of [Client.Chat].
type Event struct {
	Kind EventKind
	Text string
	// Attempt, Delay and Reason describe an [EventRetry].
	Attempt int
	Delay   time.Duration
	Reason  string
}

// EventFunc receives the events of a chat stream; returning an error stops the stream and
// Chat returns that error.
type EventFunc func(Event) error

// Chat streams one turn; see the package documentation for what it guarantees.
func (c *Client) Chat(ctx context.Context, req *ChatRequest, fn EventFunc) (*Result, error) {
	if fn == nil {
		fn = func(Event) error { return nil }
	}
	body, err := json.Marshal(wireRequest(req))
	if err != nil {
		return nil, err
	}
	s, err := c.open(ctx, http.MethodPost, chatPath, body, req.Model, c.firstByte, func(n retryNotice) error {
		return fn(Event{Kind: EventRetry, Attempt: n.attempt, Delay: n.delay, Reason: n.reason})
	})
	if err != nil {
		return nil, err
	}
	defer s.Close()
	d := &decoder{fn: fn, budget: httpstream.NewBudget(c.maxAnswer), think: vocab.ReasoningSplitter{Leading: true}}
	err = d.read(s, c.maxLine)
	res := d.result()
	if err != nil {
		if !d.started && res.Content == "" && res.Thinking == "" {
			return nil, err
		}
		res.ToolCalls = nil
		return res, err
	}
	return res, nil
}

// decoder turns the events of a stream into deltas and a result.
type decoder struct {
	fn                EventFunc
	content, thinking strings.Builder
	think             vocab.ReasoningSplitter
	calls             []*callParts
	finish            string
	usage             Usage
	events            int
	started           bool
	firstToken        time.Time
	done              bool
	budget            httpstream.Budget
	grew              bool // the event being decoded added to the answer
}

// callParts is a tool call being assembled from its fragments.
type callParts struct {
	index      int
	id         string
	name, args strings.Builder // fragments are appended: a string's += would copy it each time
}

// read reads the stream to its end: [DONE], or EOF after a finish_reason. An event is
// bounded as a line is (maxLine, its data lines joined); only an event that adds to the
// answer keeps the stream alive.
func (d *decoder) read(s *httpstream.Stream, maxLine int) error {
	sc := bufio.NewScanner(s.Body)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine+1)
	var data []byte // the data lines of the event being read
	for sc.Scan() {
		line := bytes.TrimRight(sc.Bytes(), "\r")
		switch {
		case len(line) == 0: // the end of an event
			if err := d.event(s, data); err != nil || d.done {
				return err
			}
			data = data[:0]
		case line[0] == '{': // a bare JSON line: Ollama writes a mid-stream error so
			if err := d.event(s, line); err != nil || d.done {
				return err
			}
		case bytes.HasPrefix(line, []byte("data:")):
			part := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if len(data)+1+len(part) > maxLine { // data lines without their blank line
				return &MalformedError{TooLong: maxLine}
			}
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, part...)
		}
		// comments (":"), event:, id: and retry: lines say nothing of the answer
	}
	err := sc.Err()
	if err == nil && len(data) > 0 { // a last event without its blank line
		if err := d.event(s, data); err != nil || d.done {
			return err
		}
	}
	switch {
	case errors.Is(err, bufio.ErrTooLong):
		return &MalformedError{TooLong: maxLine}
	case err == nil && d.finish != "": // EOF after the model finished: only [DONE] is missing
		d.done = true
		return nil
	case err == nil:
		return &IncompleteStreamError{Events: d.events}
	}
	err = s.Why(err)
	var te *TimeoutError
	if errors.As(err, &te) || errors.Is(err, context.Canceled) {
		return err
	}
	return &IncompleteStreamError{Events: d.events, Err: err}
}

// wireChunk is one chat.completion.chunk, or an error event.
type wireChunk struct {
	Choices []struct {
		Delta wireDelta `json:"delta"`
		// Message is the whole answer of a server that did not stream (one chat.completion).
		Message      *wireDelta `json:"message"`
		FinishReason *string    `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// wireDelta is what a chunk adds to the answer.
type wireDelta struct {
	Content          *string         `json:"content"`
	ReasoningContent *string         `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []struct {
		Index    *int   `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// event decodes one event's data and emits its deltas.
func (d *decoder) event(s *httpstream.Stream, data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil
	}
	if bytes.Equal(data, []byte("[DONE]")) {
		d.done = true
		return d.flushThink()
	}
	d.events++
	var ch wireChunk
	if err := json.Unmarshal(data, &ch); err != nil {
		return &MalformedError{Text: snippet(data, 80), Err: err}
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		msg, _ := apiErrorText(append(append([]byte(`{"error":`), ch.Error...), '}'))
		return &StreamError{Message: s.Mask(msg)}
	}
	if !d.started {
		d.started = true
		s.Begin()
		if err := d.fn(Event{Kind: EventStarted}); err != nil {
			return err
		}
	}
	if ch.Usage != nil {
		d.usage = Usage{PromptTokens: ch.Usage.PromptTokens, CompletionTokens: ch.Usage.CompletionTokens}
	}
	d.grew = false
	err := d.choices(&ch)
	if d.grew {
		s.Alive()
	}
	if errors.Is(err, vocab.ErrAnswerTooLong) {
		if ferr := d.flushThink(); ferr != nil { // what the splitter holds was counted: kept
			return ferr
		}
	}
	return err
}

// choices emits what the choices of a chunk add to the answer, within its budget.
func (d *decoder) choices(ch *wireChunk) error {
	for _, choice := range ch.Choices { // n is always 1: every choice is the one answer
		delta := &choice.Delta
		if choice.Message != nil {
			delta = choice.Message
		}
		if delta.ReasoningContent != nil {
			text, tooLong := d.fit(*delta.ReasoningContent)
			if err := d.emit(&d.thinking, text, EventThinkingDelta); err != nil || tooLong != nil {
				return cmp.Or(err, tooLong)
			}
		}
		var reasoning string
		if json.Unmarshal(delta.Reasoning, &reasoning) == nil {
			text, tooLong := d.fit(reasoning)
			if err := d.emit(&d.thinking, text, EventThinkingDelta); err != nil || tooLong != nil {
				return cmp.Or(err, tooLong)
			}
		}
		if delta.Content != nil {
			text, tooLong := d.fit(*delta.Content)
			thinking, content := d.think.Push(text)
			if err := d.emitBoth(thinking, content); err != nil || tooLong != nil {
				return cmp.Or(err, tooLong)
			}
		}
		for _, tc := range delta.ToolCalls {
			if err := d.callPart(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments); err != nil {
				return err
			}
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			d.finish = *choice.FinishReason
			if err := d.flushThink(); err != nil {
				return err
			}
		}
	}
	return nil
}

// fit takes text from the answer's budget: all of it, or what fits with an
// *vocab.AnswerTooLongError.
func (d *decoder) fit(text string) (string, error) {
	d.grew = d.grew || text != ""
	kept, whole := d.budget.Fit(text)
	if !whole {
		return kept, &vocab.AnswerTooLongError{Limit: d.budget.Limit()}
	}
	return kept, nil
}

// callPart adds a fragment to the call at index (or to the last call, for servers that send
// no index); a new id at a used index starts a new call. A call's id (the one it will be
// given when it has none), name and arguments count in the answer's budget.
func (d *decoder) callPart(index *int, id, name, args string) error {
	var cur *callParts
	for i := len(d.calls) - 1; i >= 0; i-- {
		if index == nil || d.calls[i].index == *index {
			cur = d.calls[i]
			break
		}
	}
	size := len(id) + len(name) + len(args)
	fresh := cur == nil || (id != "" && cur.id != "" && id != cur.id)
	if fresh && id == "" {
		size += vocab.CallIDLen // the id it will be given
	}
	d.grew = d.grew || size > 0
	if !d.budget.Take(size) {
		return &vocab.AnswerTooLongError{Limit: d.budget.Limit()}
	}
	if fresh {
		cur = &callParts{index: len(d.calls)}
		if index != nil {
			cur.index = *index
		}
		d.calls = append(d.calls, cur)
	}
	if id != "" {
		cur.id = id
	}
	cur.name.WriteString(name)
	cur.args.WriteString(args)
	return nil
}

func (d *decoder) emitBoth(thinking, content string) error {
	if err := d.emit(&d.thinking, thinking, EventThinkingDelta); err != nil {
		return err
	}
	return d.emit(&d.content, content, EventContentDelta)
}

func (d *decoder) flushThink() error {
	return d.emitBoth(d.think.Flush())
}

func (d *decoder) emit(b *strings.Builder, text string, kind EventKind) error {
	if text == "" {
		return nil
	}
	if d.firstToken.IsZero() {
		d.firstToken = time.Now()
	}
	b.WriteString(text)
	return d.fn(Event{Kind: kind, Text: text})
}

// result is what arrived; its tool calls are complete when the stream was.
func (d *decoder) result() *Result {
	th, co := d.think.Flush()
	d.thinking.WriteString(th)
	d.content.WriteString(co)
	r := &Result{Content: d.content.String(), Thinking: d.thinking.String(), FinishReason: d.finish,
		Usage: d.usage, Done: d.done}
	if !d.firstToken.IsZero() {
		r.Generating = time.Since(d.firstToken)
	}
	for _, c := range d.calls {
		id := c.id
		if id == "" {
			id = vocab.NewCallID()
		}
		r.ToolCalls = append(r.ToolCalls, ToolCall{ID: id, Name: c.name.String(), Arguments: objectOrString(c.args.String())})
	}
	return r
}

// objectOrString returns args when it is JSON ("" is the empty object), else args as a
// JSON string.
func objectOrString(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(args)) {
		return json.RawMessage(args)
	}
	b, _ := json.Marshal(args)
	return b
}

// wire types of the request.
type (
	wireMessage struct {
		Role       string         `json:"role"`
		Content    any            `json:"content"`
		ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
		ToolCallID string         `json:"tool_call_id,omitempty"`
	}
	wireToolCall struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	}
	wirePart struct {
		Type     string            `json:"type"`
		Text     string            `json:"text,omitempty"`
		ImageURL map[string]string `json:"image_url,omitempty"`
	}
	wireTool struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Parameters  json.RawMessage `json:"parameters,omitempty"`
		} `json:"function"`
	}
	wireChatRequest struct {
		Model         string        `json:"model"`
		Messages      []wireMessage `json:"messages"`
		Tools         []wireTool    `json:"tools,omitempty"`
		Stream        bool          `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
		ReasoningEffort string `json:"reasoning_effort,omitempty"`
		MaxTokens       int    `json:"max_tokens,omitempty"`
	}
)

func wireRequest(req *ChatRequest) *wireChatRequest {
	w := &wireChatRequest{Model: req.Model, Stream: true, ReasoningEffort: req.ReasoningEffort, MaxTokens: req.MaxTokens}
	w.StreamOptions.IncludeUsage = true
	for _, m := range req.Messages {
		wm := wireMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
		if len(m.Images) > 0 {
			parts := []wirePart{{Type: "text", Text: m.Content}}
			for _, img := range m.Images {
				url := "data:" + http.DetectContentType(img) + ";base64," + base64.StdEncoding.EncodeToString(img)
				parts = append(parts, wirePart{Type: "image_url", ImageURL: map[string]string{"url": url}})
			}
			wm.Content = parts
		}
		for _, c := range m.ToolCalls {
			var wc wireToolCall
			wc.ID, wc.Type, wc.Function.Name, wc.Function.Arguments = c.ID, "function", c.Name, string(c.Arguments)
			wm.ToolCalls = append(wm.ToolCalls, wc)
		}
		w.Messages = append(w.Messages, wm)
	}
	for _, t := range req.Tools {
		var wt wireTool
		wt.Type, wt.Function.Name, wt.Function.Description, wt.Function.Parameters = "function", t.Name, t.Description, t.Parameters
		w.Tools = append(w.Tools, wt)
	}
	return w
}
