package agentloop

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	"prototyper/store"
)

// Tool calls written as text: a model that prints its call as JSON instead of making it
// (a template without tool parsing, a model fine-tuned on another format). When a whole answer
// is nothing but such calls, each naming a tool of the request with arguments that pass its
// schema, the loop executes them as calls, marked recovered; anything else stays text.

// recoverTextCalls returns the calls that text is made of, or false when text is anything
// more than calls (prose, a call to an unknown tool, arguments the tool refuses). The forms:
// bare JSON objects or an array of them, each in a ```/```json fence or not, or each between
// <tool_call> and </tool_call>. A call is {"name": …, "arguments"|"parameters"|"args": {…}}
// or {"function": {"name": …, "arguments": …}}; arguments may be a JSON string holding the
// object.
func recoverTextCalls(text string, valid func(name string, args json.RawMessage) bool) ([]store.ToolCall, bool) {
	var calls []store.ToolCall
	rest := strings.TrimSpace(text)
	if rest == "" {
		return nil, false
	}
	for rest != "" {
		var body string
		switch {
		case strings.HasPrefix(rest, "<tool_call>"):
			end := strings.Index(rest, "</tool_call>")
			if end < 0 {
				return nil, false
			}
			body, rest = rest[len("<tool_call>"):end], rest[end+len("</tool_call>"):]
		case strings.HasPrefix(rest, "```"):
			nl := strings.IndexByte(rest, '\n')
			if nl < 0 {
				return nil, false
			}
			if lang := strings.TrimSpace(rest[3:nl]); lang != "" && lang != "json" && lang != "tool_call" {
				return nil, false
			}
			end := strings.Index(rest[nl:], "```")
			if end < 0 {
				return nil, false
			}
			body, rest = rest[nl:nl+end], rest[nl+end+3:]
		case rest[0] == '{' || rest[0] == '[':
			body, rest = rest, ""
		default:
			return nil, false
		}
		got, ok := decodeTextCalls(body, valid)
		if !ok {
			return nil, false
		}
		calls = append(calls, got...)
		rest = strings.TrimSpace(rest)
	}
	return calls, len(calls) > 0
}

// decodeTextCalls decodes one or more JSON values (objects or arrays of objects), each a
// valid call, and nothing else.
func decodeTextCalls(body string, valid func(string, json.RawMessage) bool) ([]store.ToolCall, bool) {
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber()
	var calls []store.ToolCall
	for {
		var raw json.RawMessage
		err := d.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, false
		}
		items := []json.RawMessage{raw}
		if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
			if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
				return nil, false
			}
		}
		for _, it := range items {
			c, ok := decodeTextCall(it)
			if !ok || !valid(c.Name, c.Args) {
				return nil, false
			}
			c.Recovered = true
			calls = append(calls, c)
		}
	}
	return calls, len(calls) > 0
}

// textCall is the shape of a call written as JSON, in the spellings models use.
type textCall struct {
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Parameters json.RawMessage `json:"parameters"`
	Args       json.RawMessage `json:"args"`
	Function   *textCall       `json:"function"`
}

func decodeTextCall(raw json.RawMessage) (store.ToolCall, bool) {
	var c textCall
	if json.Unmarshal(raw, &c) != nil {
		return store.ToolCall{}, false
	}
	if c.Function != nil && c.Name == "" {
		c = *c.Function
	}
	args := c.Arguments
	for _, alt := range []json.RawMessage{c.Parameters, c.Args} {
		if len(args) == 0 {
			args = alt
		}
	}
	if c.Name == "" {
		return store.ToolCall{}, false
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	var inner string
	if json.Unmarshal(args, &inner) == nil { // arguments as a JSON string of the object
		args = json.RawMessage(inner)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) || !json.Valid(args) {
		return store.ToolCall{}, false
	}
	return store.ToolCall{Name: c.Name, Args: args}, true
}

// textHold holds back the beginning of an answer's text while it may still be a tool call
// written as text, so that a recovered call is never shown as text first. Text that cannot be
// a call is released at once; once released, everything passes.
type textHold struct {
	on       bool
	held     strings.Builder
	released bool
}

// callOpenings are the ways an answer made of calls begins.
var callOpenings = []string{"{", "[", "```", "<tool_call>"}

// push takes the next piece of text and returns what may be shown now.
func (h *textHold) push(text string) string {
	if !h.on || h.released {
		return text
	}
	h.held.WriteString(text)
	start := strings.TrimLeft(h.held.String(), " \t\r\n")
	if start == "" {
		return ""
	}
	for _, o := range callOpenings {
		if strings.HasPrefix(start, o) || strings.HasPrefix(o, start) {
			return ""
		}
	}
	return h.release()
}

// release returns everything held and lets the rest pass.
func (h *textHold) release() string {
	h.released = true
	s := h.held.String()
	h.held.Reset()
	return s
}

// holding returns the text held so far, when the whole answer was held.
func (h *textHold) holding() string {
	if !h.on || h.released {
		return ""
	}
	return h.held.String()
}
