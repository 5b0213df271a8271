package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Builder assembles a tool whose arguments are a flat object of named
// parameters, the common case:
//
//	tools.New("write_file", "Write a file.").
//		Param("path", "string", "Workspace-relative path.", tools.Required).
//		Param("content", "string", "The whole new content.", tools.Required).
//		Mode(tools.Sequential).
//		Handle(fn)
//
// The schema it produces is the one you would write by hand:
// {"type":"object","properties":{…},"required":[…],"additionalProperties":false},
// with properties in the order they were added.
type Builder struct {
	def     Definition
	params  []paramSpec
	err     error
	touches TouchesFunc // with preview, set by Changes
	preview PreviewFunc
}

type paramSpec struct {
	name, typ, description string
	required               bool
	extra                  []keyValue // further keywords: enum, default, minimum, items…
}

type keyValue struct {
	key   string
	value any
}

// ParamOption refines a parameter.
type ParamOption func(*paramSpec)

var (
	// Required marks a parameter the call must give.
	Required ParamOption = func(p *paramSpec) { p.required = true }
	// Optional is the default; it exists so a call site can say so.
	Optional ParamOption = func(p *paramSpec) { p.required = false }
)

// Enum restricts a parameter to the given values.
func Enum(values ...any) ParamOption { return keyword("enum", values) }

// Default documents the value used when the parameter is absent.
func Default(v any) ParamOption { return keyword("default", v) }

// Minimum sets the smallest allowed number.
func Minimum(n float64) ParamOption { return keyword("minimum", n) }

// Maximum sets the largest allowed number.
func Maximum(n float64) ParamOption { return keyword("maximum", n) }

// MinLength sets the shortest allowed string.
func MinLength(n int) ParamOption { return keyword("minLength", n) }

// Items sets the type of an array parameter's items.
func Items(typ string) ParamOption { return keyword("items", map[string]any{"type": typ}) }

func keyword(key string, v any) ParamOption {
	return func(p *paramSpec) { p.extra = append(p.extra, keyValue{key, v}) }
}

// New starts a tool definition. The tool is Parallel with approval "auto"
// unless Mode or Approval say otherwise.
func New(name, description string) *Builder {
	return &Builder{def: Definition{Name: name, Description: description, Mode: Parallel, DefaultApproval: ApprovalAuto}}
}

// Param adds a parameter of a JSON Schema type ("string", "integer",
// "number", "boolean", "array", "object").
func (b *Builder) Param(name, typ, description string, opts ...ParamOption) *Builder {
	for _, p := range b.params {
		if p.name == name && b.err == nil {
			b.err = fmt.Errorf("%w: tool %q declares parameter %q twice", ErrInvalidTool, b.def.Name, name)
		}
	}
	p := paramSpec{name: name, typ: typ, description: description}
	for _, o := range opts {
		o(&p)
	}
	b.params = append(b.params, p)
	return b
}

// Mode sets whether the tool may run beside others.
func (b *Builder) Mode(m Mode) *Builder { b.def.Mode = m; return b }

// Approval sets the default approval policy.
func (b *Builder) Approval(a Approval) *Builder { b.def.DefaultApproval = a; return b }

// Schema returns the JSON Schema of the arguments.
func (b *Builder) Schema() json.RawMessage {
	props := make([]keyValue, 0, len(b.params))
	required := []string{}
	for _, p := range b.params {
		prop := []keyValue{{"type", p.typ}}
		if p.description != "" {
			prop = append(prop, keyValue{"description", p.description})
		}
		prop = append(prop, p.extra...)
		props = append(props, keyValue{p.name, orderedObject(prop)})
		if p.required {
			required = append(required, p.name)
		}
	}
	schema := orderedObject{
		{"type", "object"},
		{"properties", orderedObject(props)},
		{"required", required},
		{"additionalProperties", false},
	}
	raw, err := json.Marshal(schema)
	if err != nil { // only a value given to Enum or Default that JSON cannot hold
		return json.RawMessage(`{"type":"object","not":{}}`)
	}
	return raw
}

// Definition returns the definition the built tool will have.
func (b *Builder) Definition() Definition {
	def := b.def
	def.Schema = b.Schema()
	return def
}

// Handle finishes the tool with its body.
func (b *Builder) Handle(fn HandlerFunc) Tool {
	t := &funcTool{def: b.Definition(), fn: fn, err: b.err}
	if b.touches != nil && b.preview != nil {
		return &changerTool{funcTool: t, touches: b.touches, preview: b.preview}
	}
	return t
}

// orderedObject marshals as a JSON object keeping its keys' order, so the
// model always sees the parameters in the order the tool declared them.
type orderedObject []keyValue

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, kv := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(kv.value)
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
