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
// NewRegistry (the jsonschema compiler is not safe for concurrent use);
// after that every method is safe for concurrent use.
type Registry struct {
	entries []*entry // registration order
	byName  map[string]*entry
}

type entry struct {
	tool    Tool
	def     Definition
	schema  *jsonschema.Schema
	allowed string // the schema's property names, for messages about unknown ones
}

// NewRegistry compiles the schema of every tool. It fails on an empty or
// duplicate name, a mistake made in a Builder, or a schema that does not
// compile.
func NewRegistry(tools ...Tool) (*Registry, error) {
	r := &Registry{byName: make(map[string]*entry, len(tools))}
	c := jsonschema.NewCompiler()
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
		e := &entry{tool: t, def: def, schema: sch, allowed: propertyNames(doc)}
		r.entries = append(r.entries, e)
		r.byName[def.Name] = e
	}
	return r, nil
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
// more; empty arguments or null count as {}. The error is ErrUnknownTool or an
// [*ArgumentsError] listing every violation.
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
		return nil, &ArgumentsError{Tool: e.def.Name, Cause: err}
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
	obj, ok := v.(map[string]any)
	if !ok { // a schema that allows a non-object; the Call still gets an object
		obj = map[string]any{}
	}
	numbersToFloat(obj)
	return Args(obj), nil
}

func decodeArgs(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	if raw[0] == '"' { // some models send the object as a JSON string
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		raw = bytes.TrimSpace([]byte(s))
		if len(raw) == 0 {
			return map[string]any{}, nil
		}
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
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
func (r *Registry) Run(ctx context.Context, name, callID string, rawArgs json.RawMessage, progress ProgressFunc) (res Result) {
	defer func() {
		if p := recover(); p != nil {
			res = Result{IsError: true, Content: fmt.Sprintf(
				"the tool %s failed with an internal error (%v); this is a defect in the tool, not in your arguments, so try another approach", name, p)}
		}
	}()
	e, ok := r.byName[name]
	if !ok {
		return ErrorResult(r.unknown(name))
	}
	args, err := e.validate(rawArgs)
	if err != nil {
		return ErrorResult(err)
	}
	if err := ctx.Err(); err != nil {
		return ErrorResult(fmt.Errorf("the call to %s was cancelled before it started: %w", name, err))
	}
	if progress == nil {
		progress = func(any) {}
	}
	res, err = e.tool.Execute(ctx, Call{ID: callID, Name: name, Args: args}, progress)
	if err != nil {
		res.IsError = true
		res.Content = err.Error()
	}
	return res
}
