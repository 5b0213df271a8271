package agentloop

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"unicode"

	"prototyper/events"
	"prototyper/model/vocab"
	"prototyper/store"
)

// Tool calls written as text: a model that prints its call as JSON instead of making it
// (a template without tool parsing, a model fine-tuned on another format). When a whole answer
// is nothing but such calls, each naming a tool of the request with arguments that pass its
// schema, the loop takes them as calls, marked recovered (origin text); anything else stays
// text. Such a call is never trusted more than a native one: it waits for the user's approval
// unless the user allowed its tool (planCall), and a call copied from what the model had just
// read (a file, a tool's output: justRead) is not run at all (copiedFrom): text the model
// reads is data, and a model that echoes it must not turn it into an action.

// originOf is the origin of a call (events.Origin*) that its Recovered mark says.
func originOf(recovered bool) string {
	if recovered {
		return events.OriginText
	}
	return ""
}

// writtenCall is a call read from an answer's text, with the text it was read from.
type writtenCall struct {
	store.ToolCall
	raw string
}

// recoverTextCalls returns the calls that text is made of, or false when text is anything
// more than calls (prose, a call to an unknown tool, arguments the tool refuses). The forms:
// bare JSON objects or an array of them, each in a ```/```json fence or not, or each between
// <tool_call> and </tool_call>. A call is {"name": …, "arguments"|"parameters"|"args": {…}}
// or {"function": {"name": …, "arguments": …}}; arguments may be a JSON string holding the
// object.
func recoverTextCalls(text string, valid func(name string, args json.RawMessage) bool) ([]writtenCall, bool) {
	var calls []writtenCall
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
func decodeTextCalls(body string, valid func(string, json.RawMessage) bool) ([]writtenCall, bool) {
	d := json.NewDecoder(strings.NewReader(body))
	d.UseNumber()
	var calls []writtenCall
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
			calls = append(calls, writtenCall{ToolCall: c, raw: string(it)})
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

// copiedFrom reports whether the call appears in one of sources, the texts the model had
// just read: its own text, whitespace aside, or a call of the same tool with the same
// arguments in any spelling recoverTextCalls reads (keys in another order, "parameters" for
// "arguments", the arguments as a string, the function wrapper), also inside JSON strings, escapes undone.
func (c writtenCall) copiedFrom(sources []string) bool {
	raw := squeezed(c.raw)
	sig := callSignature(c.Name, c.Args)
	for _, s := range sources {
		for _, text := range readings(s) {
			if raw != "" && strings.Contains(squeezed(text), raw) || holdsCall(text, c.Name, sig) {
				return true
			}
		}
	}
	return false
}

// maxEscapeDepth bounds how many times readings undoes JSON escapes: a call inside a JSON
// string inside a JSON string (a tool that returns what an API returned) is two.
const maxEscapeDepth = 4

// readings are the ways a text may hold a call: as it is, and with JSON escapes undone
// (\uXXXX too), as many times as they nest, up to maxEscapeDepth: a model reads through
// escapes, and a call it decoded is still the call it read.
func readings(s string) []string {
	out := []string{s}
	for i := 0; i < maxEscapeDepth && strings.IndexByte(s, '\\') >= 0; i++ {
		next := unescapeJSON(s)
		if next == s {
			break
		}
		out = append(out, next)
		s = next
	}
	return out
}

// unescapeJSON undoes the escapes of a JSON string in s, wherever they are; a backslash that
// starts no escape stays.
func unescapeJSON(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		if e, ok := vocab.JSONEscape(s[i+1]); ok {
			b.WriteByte(e)
			i++
			continue
		}
		r, n := vocab.JSONUnicodeEscape(s[i:])
		if n == 0 {
			b.WriteByte('\\')
			continue
		}
		b.WriteRune(r)
		i += n - 1
	}
	return b.String()
}

// squeezed is s without its whitespace.
func squeezed(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// Bounds of holdsCall's search: how far before a mention of the tool's name a call's object
// may open, and the longest object decoded there.
const (
	callLookBack  = 4 << 10
	callMaxObject = 16 << 10
)

// holdsCall reports whether text holds a call of the tool name whose signature is sig,
// written as a JSON object: each object that opens shortly before a mention of the name is
// decoded, once. The bytes decoded are bounded by twice the text (JSON that names the tool
// in every line decodes each line once); a text that needs more (objects nested deep around
// the name) is taken to hold the call: it is left unrun rather than run unchecked.
func holdsCall(text, name, sig string) bool {
	budget := 2*len(text) + callMaxObject
	next := 0 // the first position not tried yet
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		at := from + i
		for open := max(next, at-callLookBack); open < at; open++ {
			if text[open] != '{' {
				continue
			}
			window := text[open:min(len(text), open+callMaxObject)]
			d := json.NewDecoder(strings.NewReader(window))
			d.UseNumber()
			var raw json.RawMessage
			err := d.Decode(&raw)
			budget -= decodedBytes(d, err, len(window))
			if budget < 0 {
				return true
			}
			if err != nil {
				continue
			}
			c, ok := decodeTextCall(raw)
			canon := ""
			if ok {
				if canon = canonicalArgs(c.Args); c.Name+"\x00"+canon == sig {
					return true
				}
			}
			// a call the loop reads with arguments of its own is not another spelling of this one
			if (!ok || canon == "{}") && namesCall(raw, name, sig) {
				return true
			}
		}
		next = at
		from = at + len(name)
	}
}

// namesCall reports whether the object raw names the tool name in one of its values and holds
// the call's arguments (sig) in another, as an object or a JSON string of one: a call in a
// spelling the loop does not read (a tool_use block's "input", "tool_name" and "tool_input"),
// which a model rewrites into one it does.
func namesCall(raw json.RawMessage, name, sig string) bool {
	if !bytes.Contains(raw, []byte(`"`+name+`"`)) {
		return false // the name is in none of its strings (as written: escapes are readings' to undo)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return false
	}
	named := false
	for _, v := range fields {
		var s string
		if json.Unmarshal(v, &s) == nil && s == name {
			named = true
			break
		}
	}
	if !named {
		return false
	}
	for _, v := range fields {
		args := v
		var inner string
		if json.Unmarshal(v, &inner) == nil {
			args = json.RawMessage(inner)
		}
		if bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) && callSignature(name, args) == sig {
			return true
		}
	}
	return false
}

// decodedBytes is how much of its window a decode read: up to the value's end, or up to its
// syntax error; the whole window when the value did not end in it.
func decodedBytes(d *json.Decoder, err error, window int) int {
	var syntax *json.SyntaxError
	switch {
	case err == nil:
		return int(d.InputOffset())
	case errors.As(err, &syntax):
		return int(syntax.Offset)
	}
	return window
}

// justRead is what the model has read in the chat that no one wrote to it: the results of
// every call (a file read a turn ago is still in its context, and an injected text may ask
// for its call "when the user next writes"), the files the user's messages named, and the
// workspace's AGENTS.md (sent with every request). A call written as text and found there
// was copied, not meant.
func (r *run) justRead() []string {
	var out []string
	if r.agentsFile != "" {
		out = append(out, r.agentsFile)
	}
	for _, m := range r.history {
		switch m.Role {
		case store.RoleTool:
			out = append(out, m.Content)
		case store.RoleUser:
			for _, f := range m.Files {
				out = append(out, f.Content)
			}
		}
	}
	return out
}
