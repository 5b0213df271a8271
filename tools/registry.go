package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// printer renders the validator's messages in English.
var printer = message.NewPrinter(language.English)

// Registry is the set of tools of a run. Schemas are compiled once, in
// NewRegistry (the jsonschema compiler is not safe for concurrent use), and kept
// for the next registry of the same tools; every method is safe for concurrent use.
type Registry struct {
	entries []*entry // registration order
	byName  map[string]*entry
}

type entry struct {
	tool     Tool
	def      Definition
	schema   *jsonschema.Schema
	allowed  string // the schema's property names, for messages about unknown ones
	expected string // what the arguments must hold, for messages about arguments that are no object
}

// NewRegistry compiles the schema of every tool. It fails on an empty or
// duplicate name, a mistake made in a Builder, or a schema that does not
// compile.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]*entry, len(tools))}
	var c *jsonschema.Compiler // made for the first schema not compiled before
	for i, t := range tools {
		if t == nil {
			return nil, fmt.Errorf("%w: tool number %d is nil", ErrInvalidTool, i+1)
		}
		if b, ok := t.(interface{ buildError() error }); ok && b.buildError() != nil {
			return nil, b.buildError()
		}
		def := t.Definition()
		if def.Name == "" {
			return nil, fmt.Errorf("%w: tool number %d has no name", ErrInvalidTool, i+1)
		}
		if _, dup := r.byName[def.Name]; dup {
			return nil, fmt.Errorf("%w: two tools are named %q", ErrInvalidTool, def.Name)
		}
		if len(def.Schema) == 0 {
			def.Schema = json.RawMessage(`{"type":"object"}`)
		}
		cs := cachedSchema(def.Name, def.Schema)
		if cs == nil {
			if c == nil {
				c = jsonschema.NewCompiler()
			}
			var err error
			if cs, err = compileSchema(c, def); err != nil {
				return nil, err
			}
			keepSchema(def.Name, def.Schema, cs)
		}
		e := &entry{tool: t, def: def, schema: cs.schema, allowed: cs.allowed, expected: cs.expected}
		r.entries = append(r.entries, e)
		r.byName[def.Name] = e
	}
	return r, nil
}

// compileSchema compiles the schema of def with c.
func compileSchema(c *jsonschema.Compiler, def Definition) (*compiledSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(def.Schema))
	if err != nil {
		return nil, fmt.Errorf("%w: the schema of %q is not JSON: %v", ErrInvalidTool, def.Name, err)
	}
	url := "prototyper:tools/" + def.Name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("%w: the schema of %q: %v", ErrInvalidTool, def.Name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%w: the schema of %q does not compile: %v", ErrInvalidTool, def.Name, err)
	}
	return &compiledSchema{schema: sch, allowed: propertyNames(doc), expected: expectedArgs(doc)}, nil
}

// expectedArgs says what a call's arguments object holds: "path and
// content", "pattern (and optionally path, glob)", or "" for none.
func expectedArgs(doc any) string {
	obj, _ := doc.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	var required, optional []string
	isRequired := map[string]bool{}
	if list, ok := obj["required"].([]any); ok {
		for _, r := range list {
			if name, ok := r.(string); ok {
				required = append(required, name)
				isRequired[name] = true
			}
		}
	}
	for n := range props {
		if !isRequired[n] {
			optional = append(optional, n)
		}
	}
	sort.Strings(optional)
	and := func(names []string) string {
		if len(names) < 2 {
			return strings.Join(names, "")
		}
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	switch {
	case len(required) > 0 && len(optional) > 0:
		return and(required) + " (and optionally " + strings.Join(optional, ", ") + ")"
	case len(required) > 0:
		return and(required)
	case len(optional) > 0:
		return "any of " + strings.Join(optional, ", ")
	}
	return ""
}

func propertyNames(doc any) string {
	obj, _ := doc.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Definitions returns the tools' definitions in registration order.
func (r *Registry) Definitions() []Definition {
	defs := make([]Definition, len(r.entries))
	for i, e := range r.entries {
		defs[i] = e.def
	}
	return defs
}

// Names returns the tools' names in registration order.
func (r *Registry) Names() []string {
	names := make([]string, len(r.entries))
	for i, e := range r.entries {
		names[i] = e.def.Name
	}
	return names
}

// Definition returns the definition of the named tool.
func (r *Registry) Definition(name string) (Definition, bool) {
	e, ok := r.byName[name]
	if !ok {
		return Definition{}, false
	}
	return e.def, true
}

// Parallel reports whether every named tool exists and is Parallel, so the
// calls may run at once.
func (r *Registry) Parallel(names ...string) bool {
	for _, n := range names {
		e, ok := r.byName[n]
		if !ok || e.def.Mode != Parallel {
			return false
		}
	}
	return true
}

func (r *Registry) unknown(name string) error {
	return fmt.Errorf("%w: there is no tool named %q; the available tools are: %s", ErrUnknownTool, name, strings.Join(r.Names(), ", "))
}

// Validate decodes and validates the arguments of a call to the named tool.
// Arguments that arrive as a JSON string holding an object are decoded once
// more; empty arguments or null count as {} (what a call without arguments
// looks like). Anything else that is not a JSON object (an array, a number, a
// string, invalid JSON) is refused whatever the tool's schema. The error is
// ErrUnknownTool or an [*ArgumentsError].
func (r *Registry) Validate(name string, rawArgs json.RawMessage) (Args, error) {
	e, ok := r.byName[name]
	if !ok {
		return nil, r.unknown(name)
	}
	return e.validate(rawArgs)
}

func (e *entry) validate(raw json.RawMessage) (Args, error) {
	v, err := decodeArgs(raw)
	if err != nil {
		return nil, &ArgumentsError{Tool: e.def.Name, Cause: err, Expected: e.expected}
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, &ArgumentsError{Tool: e.def.Name, NotObject: jsonKind(v), Expected: e.expected}
	}
	if err := e.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, &ArgumentsError{Tool: e.def.Name, Violations: []Violation{{Message: err.Error()}}}
		}
		ae := &ArgumentsError{Tool: e.def.Name}
		e.collect(ve, &ae.Violations)
		return nil, ae
	}
	obj := v.(map[string]any)
	numbersToFloat(obj)
	return Args(obj), nil
}

// decodeArgs decodes a call's arguments; a JSON string is decoded once more
// when it holds an object (some models send the object that way), and is
// otherwise a string.
func decodeArgs(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		inner := bytes.TrimSpace([]byte(s))
		switch {
		case len(inner) == 0:
			return map[string]any{}, nil
		case inner[0] != '{':
			return s, nil
		}
		raw = inner
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// jsonKind names the kind of a decoded JSON value, as a user reads it.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	}
	return "a number"
}

// IsObjectArgs reports whether a call's arguments are a JSON object the way a tool reads them:
// an object, an object sent inside a JSON string, or nothing (empty or null, read as {}).
func IsObjectArgs(raw json.RawMessage) bool {
	v, err := decodeArgs(raw)
	_, ok := v.(map[string]any)
	return err == nil && ok
}

// ObjectArgs returns a call's arguments as the JSON object to store and to
// send back to the model in later turns: the object itself (compacted), the
// object a model sent inside a JSON string, or {} for anything that is no
// object (null, an array, a string, a number, invalid JSON) or that
// encoding/json cannot decode into a map (a number beyond float64). A server that
// accepts only objects would refuse every later request of a chat that kept
// such arguments as they came.
func ObjectArgs(raw json.RawMessage) json.RawMessage {
	v, err := decodeArgs(raw)
	if _, ok := v.(map[string]any); err != nil || !ok {
		return json.RawMessage(`{}`)
	}
	obj := bytes.TrimSpace(raw)
	if len(obj) > 0 && obj[0] == '"' {
		var s string
		json.Unmarshal(obj, &s) // decodeArgs has decoded it already
		obj = []byte(s)
	}
	// What a server decodes with encoding/json must decode here too: a
	// number such as 1e400 is valid JSON that no float64 holds.
	var m map[string]any
	var out bytes.Buffer
	if json.Unmarshal(obj, &m) != nil || m == nil || json.Compact(&out, obj) != nil {
		return json.RawMessage(`{}`)
	}
	return out.Bytes()
}

// collect flattens the error tree into one violation per leaf, each at the
// JSON pointer of the offending value (for a missing or unknown property,
// the property's own pointer).
func (e *entry) collect(ve *jsonschema.ValidationError, out *[]Violation) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			e.collect(c, out)
		}
		return
	}
	loc := pointer(ve.InstanceLocation)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, Violation{loc + "/" + escapePointer(m), "this required property is missing"})
		}
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			msg := "unknown property; remove it"
			if loc == "" && e.allowed != "" {
				msg += " (the parameters are: " + e.allowed + ")"
			}
			*out = append(*out, Violation{loc + "/" + escapePointer(p), msg})
		}
	default:
		*out = append(*out, Violation{loc, ve.ErrorKind.LocalizedString(printer)})
	}
}

func pointer(tokens []string) string {
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		sb.WriteString(escapePointer(t))
	}
	return sb.String()
}

func escapePointer(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// numbersToFloat turns the json.Number values the validator needs into the
// float64 that encoding/json would have produced.
func numbersToFloat(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			if _, leaf := e.(string); !leaf {
				x[k] = numbersToFloat(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = numbersToFloat(e)
		}
	}
	return v
}

// Run validates and executes one call. It never panics and never fails:
// every problem (unknown tool, invalid arguments, cancelled context, an
// error or a panic in the tool) comes back as a Result with IsError set.
func (r *Registry) Run(ctx context.Context, name, callID string, rawArgs json.RawMessage, progress ProgressFunc) Result {
	args, err := r.Validate(name, rawArgs)
	if err != nil {
		return ErrorResult(err)
	}
	return r.Exec(ctx, Call{ID: callID, Name: name, Args: args}, progress)
}

// Exec executes a call whose arguments [Registry.Validate] returned, for a
// caller that validated them before deciding to run the call (the agent's
// loop, between its hooks and its approvals). Like Run, it never panics and
// never fails.
func (r *Registry) Exec(ctx context.Context, call Call, progress ProgressFunc) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{IsError: true, Content: fmt.Sprintf(
				"the tool %s failed with an internal error (%v); this is a defect in the tool, not in your arguments, so try another approach", call.Name, p)}
		}
	}()
	e, ok := r.byName[call.Name]
	if !ok {
		return ErrorResult(r.unknown(call.Name))
	}
	if err := ctx.Err(); err != nil {
		res := ErrorResult(cancelledf(err, "the call to %s was cancelled before it started", call.Name))
		res.NotStarted = true
		return res
	}
	if progress == nil {
		progress = func(any) {}
	}
	res, err := e.tool.Execute(ctx, call, progress)
	if err != nil {
		res.IsError = true
		res.Content = err.Error()
	}
	return res
}
