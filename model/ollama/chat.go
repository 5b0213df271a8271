package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
)

// Chat sends one chat turn and streams the answer: fn receives retries before the first
// byte, the start of the answer ([EventStarted]), thinking and content deltas as they
// arrive, and — once done:true has arrived — the message's tool calls. Chat returns the finished [Result].
//
// On error Chat returns a non-nil Result when some of the answer had arrived (to show
// and to save as the partial answer), but its Message never holds tool calls: only a complete stream's calls
// may be executed. The request always streams; cancelling ctx closes the connection.
func (c *Client) Chat(ctx context.Context, req *ChatRequest, fn EventFunc) (*Result, error) {
	if fn == nil {
		fn = func(Event) error { return nil }
	}
	body, err := json.Marshal(wireChatRequest{ChatRequest: req, Stream: true})
	if err != nil {
		return nil, err
	}
	watch := req.Think.Enabled()
	if watch {
		// asked beside the request, the version is known by the answer's first piece, which
		// then goes at once on a server that does not repeat it
		c.askVersion()
	}
	r, err := c.open(ctx, http.MethodPost, "/api/chat", body, req.Model, c.firstByte, c.idle, func(ri RetryInfo) error {
		return fn(Event{Kind: EventRetry, Retry: ri})
	})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d := chatDecoder{fn: fn, newID: c.newID, budget: httpstream.NewBudget(c.maxAnswer), mask: r.Mask,
		repeat: firstRepeat{watching: watch, repeats: func() bool { return c.repeatsFirstPiece(ctx) },
			fixed: func() bool { return c.fixedServer(ctx) }}}
	return d.run(newLineReader(r.Body, c.maxLine), r, r.Why)
}

// chatChunk is one line of /api/chat as this client reads it: content and thinking stay raw
// so that they can be unescaped straight into the accumulated message without an
// allocation per chunk; model and created_at are skipped.
type chatChunk struct {
	Message struct {
		Content   json.RawMessage `json:"content"`
		Thinking  json.RawMessage `json:"thinking"`
		ToolCalls []wireToolCall  `json:"tool_calls"`
	} `json:"message"`
	Done               bool    `json:"done"`
	DoneReason         string  `json:"done_reason"`
	Error              *string `json:"error"`
	TotalDuration      int64   `json:"total_duration"`
	LoadDuration       int64   `json:"load_duration"`
	PromptEvalCount    int     `json:"prompt_eval_count"`
	PromptEvalDuration int64   `json:"prompt_eval_duration"`
	EvalCount          int     `json:"eval_count"`
	EvalDuration       int64   `json:"eval_duration"`
}

func (ch *chatChunk) reset() {
	ch.Message.Content = ch.Message.Content[:0]
	ch.Message.Thinking = ch.Message.Thinking[:0]
	ch.Message.ToolCalls = nil
	ch.Done, ch.DoneReason, ch.Error = false, "", nil
	ch.TotalDuration, ch.LoadDuration, ch.PromptEvalDuration, ch.EvalDuration = 0, 0, 0, 0
	ch.PromptEvalCount, ch.EvalCount = 0, 0
}

// chatDecoder turns the lines of a chat stream into events and a result.
type chatDecoder struct {
	fn                EventFunc
	newID             func() string
	chunk             chatChunk
	json              lineDecoder
	content, thinking strings.Builder
	calls             []ToolCall
	lines             int
	repeat            firstRepeat // the server's repeat of the first piece, taken out
	budget            httpstream.Budget
	grew              bool                // the line being decoded added to the answer
	mask              func(string) string // masks the key in a server's message
}

// timers are the timers of a stream: begun by its first line, kept alive by the lines
// that make the answer grow.
type timers interface {
	Begin()
	Alive()
}

// run reads lines until done:true or an error. The first line begins the stream's timers,
// a line that adds to the answer keeps them alive (t may be nil); readErr explains a read
// error (cancellation, timeout).
func (d *chatDecoder) run(lr *lineReader, t timers, readErr func(error) error) (*Result, error) {
	for {
		line, err := lr.next()
		if err != nil {
			_ = d.endContent(false) // what arrived stays, the stream's end says why
			return d.partial(), streamEnd(err, lr.n, readErr)
		}
		d.lines = lr.n
		if d.lines == 1 {
			if t != nil {
				t.Begin()
			}
			if err := d.fn(Event{Kind: EventStarted}); err != nil {
				return d.partial(), err
			}
		}
		d.grew = false
		done, err := d.decodeLine(line)
		if d.grew && t != nil {
			t.Alive()
		}
		if errors.Is(err, vocab.ErrAnswerTooLong) {
			_ = d.endContent(false) // the line held is counted in the budget, and kept
		}
		if err != nil {
			return d.partial(), err
		}
		if done {
			return d.result(), nil
		}
	}
}

// decodeLine decodes one line and emits its events; it reports whether it was the last.
func (d *chatDecoder) decodeLine(line []byte) (bool, error) {
	ch := &d.chunk
	ch.reset()
	if err := d.json.decode(line, ch); err != nil {
		return false, &MalformedLineError{Line: d.lines, Text: snippet(line), Err: err}
	}
	if ch.Error != nil {
		return false, &StreamError{Message: d.masked(*ch.Error), Line: d.lines}
	}
	if err := d.emitText(&d.thinking, ch.Message.Thinking, EventThinkingDelta); err != nil {
		return false, err
	}
	if err := d.emitContent(ch.Message.Content); err != nil {
		return false, err
	}
	for _, w := range ch.Message.ToolCalls {
		id := w.ID
		if id == "" {
			id = d.newID()
		}
		d.grew = true
		if !d.budget.Take(len(id) + len(w.Function.Name) + len(w.Function.Arguments)) {
			return false, &vocab.AnswerTooLongError{Limit: d.budget.Limit()}
		}
		d.calls = append(d.calls, ToolCall{
			ID:       id,
			Index:    len(d.calls),
			Function: ToolCallFunction{Name: w.Function.Name, Arguments: normalizeArguments(w.Function.Arguments)},
		})
	}
	if !ch.Done {
		return false, nil
	}
	if err := d.endContent(len(d.calls) > 0); err != nil {
		return false, err
	}
	if len(d.calls) > 0 {
		if err := d.fn(Event{Kind: EventToolCalls, ToolCalls: d.calls}); err != nil {
			return false, err
		}
	}
	return true, nil
}

// emitText appends a raw JSON string to b and emits the new text. The event's text is a
// slice of the builder's memory, which is never rewritten, so it costs no allocation.
func (d *chatDecoder) emitText(b *strings.Builder, raw json.RawMessage, kind EventKind) error {
	if len(raw) == 0 {
		return nil
	}
	start := b.Len()
	tooLong := d.appendText(b, raw)
	if tooLong != nil && !errors.Is(tooLong, vocab.ErrAnswerTooLong) {
		return tooLong
	}
	if b.Len() > start {
		if err := d.fn(Event{Kind: kind, Text: b.String()[start:]}); err != nil {
			return err
		}
	}
	return tooLong // what fitted was given first
}

// appendText appends a raw JSON string to b within the answer's budget: all of it, or what
// fits with a *vocab.AnswerTooLongError.
func (d *chatDecoder) appendText(b *strings.Builder, raw json.RawMessage) error {
	start := b.Len()
	if len(raw) <= d.budget.Left() { // the text is never longer than its JSON
		if err := appendJSONString(b, raw); err != nil {
			return &MalformedLineError{Line: d.lines, Text: snippet(raw), Err: err}
		}
		d.budget.Fit(b.String()[start:])
		d.grew = d.grew || b.Len() > start
		return nil
	}
	var text strings.Builder
	if err := appendJSONString(&text, raw); err != nil {
		return &MalformedLineError{Line: d.lines, Text: snippet(raw), Err: err}
	}
	kept, whole := d.budget.Fit(text.String())
	b.WriteString(kept)
	d.grew = d.grew || text.Len() > 0
	if !whole {
		return &vocab.AnswerTooLongError{Limit: d.budget.Limit()}
	}
	return nil
}

// emitContent is emitText for the content, without the server's repeat of the first piece:
// while that is watched for (the first two content lines of an answer whose thinking was
// asked), a line's text is read apart before it joins the content.
func (d *chatDecoder) emitContent(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil
	}
	if d.thinking.Len() > 0 {
		d.repeat.thinking()
	}
	if !d.repeat.watching {
		return d.emitText(&d.content, raw, EventContentDelta)
	}
	var line strings.Builder
	tooLong := d.appendText(&line, raw)
	if tooLong != nil && !errors.Is(tooLong, vocab.ErrAnswerTooLong) {
		return tooLong
	}
	if err := d.giveContent(d.repeat.content(line.String())); err != nil {
		return err
	}
	return tooLong
}

// masked is a message of the server with the key masked.
func (d *chatDecoder) masked(text string) string {
	if d.mask == nil {
		return text
	}
	return d.mask(text)
}

// giveContent adds text to the answer and emits it.
func (d *chatDecoder) giveContent(text string) error {
	if text == "" {
		return nil
	}
	d.content.WriteString(text)
	return d.fn(Event{Kind: EventContentDelta, Text: text})
}

// endContent gives the content line the repeat watch still holds as the answer ends (calls:
// with tool calls), unless it is the server's repeat.
func (d *chatDecoder) endContent(calls bool) error {
	return d.giveContent(d.repeat.end(calls))
}

// partial is the result of a failed stream: text only, never tool calls.
func (d *chatDecoder) partial() *Result {
	if d.lines == 0 && d.content.Len() == 0 && d.thinking.Len() == 0 {
		return nil
	}
	return &Result{Message: Message{Role: RoleAssistant, Content: d.content.String(), Thinking: d.thinking.String()}}
}

func (d *chatDecoder) result() *Result {
	ch := &d.chunk
	return &Result{
		Message: Message{
			Role:      RoleAssistant,
			Content:   d.content.String(),
			Thinking:  d.thinking.String(),
			ToolCalls: d.calls,
		},
		Done:       true,
		DoneReason: ch.DoneReason,
		Metrics: Metrics{
			TotalDuration:      time.Duration(ch.TotalDuration),
			LoadDuration:       time.Duration(ch.LoadDuration),
			PromptEvalCount:    ch.PromptEvalCount,
			PromptEvalDuration: time.Duration(ch.PromptEvalDuration),
			EvalCount:          ch.EvalCount,
			EvalDuration:       time.Duration(ch.EvalDuration),
		},
	}
}
