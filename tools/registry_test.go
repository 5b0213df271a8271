package tools

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func echoTool() Tool {
	return New("echo", "Repeat a text.").
		Param("text", "string", "The text.", Required).
		Param("times", "integer", "How often.", Optional, Minimum(1), Maximum(5)).
		Param("style", "string", "How.", Enum("plain", "loud")).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			progress("echoing")
			return Result{Content: strings.Repeat(call.Args.String("text"), call.Args.Int("times", 1))}, nil
		})
}

func mustRegistry(t testing.TB, tools ...Tool) *Registry {
	t.Helper()
	r, err := NewRegistry(tools...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func jsonEqual(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v", err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("schema differs\n got: %s\nwant: %s", got, want)
	}
}

func TestBuilderProducesTheSchemaYouWouldWriteByHand(t *testing.T) {
	got := New("write_file", "Write a file.").
		Param("path", "string", "Where.", Required, MinLength(1)).
		Param("content", "string", "What.", Required).
		Param("mode", "string", "How.", Optional, Enum("create", "replace"), Default("replace")).
		Param("tags", "array", "Labels.", Items("string")).
		Definition()
	jsonEqual(t, string(got.Schema), `{
		"type": "object",
		"properties": {
			"path":    {"type": "string", "description": "Where.", "minLength": 1},
			"content": {"type": "string", "description": "What."},
			"mode":    {"type": "string", "description": "How.", "enum": ["create", "replace"], "default": "replace"},
			"tags":    {"type": "array", "description": "Labels.", "items": {"type": "string"}}
		},
		"required": ["path", "content"],
		"additionalProperties": false
	}`)
	if got.Mode != Parallel || got.DefaultApproval != ApprovalAuto {
		t.Fatalf("defaults: mode %v approval %q", got.Mode, got.DefaultApproval)
	}
	if i, j := strings.Index(string(got.Schema), `"path"`), strings.Index(string(got.Schema), `"content"`); i > j {
		t.Fatalf("properties must keep their declaration order: %s", got.Schema)
	}
}

func TestBuilderWithoutParamsHasAnEmptyRequiredList(t *testing.T) {
	jsonEqual(t, string(New("now", "Time.").Schema()), `{"type":"object","properties":{},"required":[],"additionalProperties":false}`)
}

func TestNewRegistryRefusesBrokenTools(t *testing.T) {
	noop := func(context.Context, Call, ProgressFunc) (Result, error) { return Result{}, nil }
	cases := []struct {
		name  string
		tools []Tool
		want  string
	}{
		{"duplicate names", []Tool{echoTool(), echoTool()}, `two tools are named "echo"`},
		{"empty name", []Tool{New("", "x").Handle(noop)}, "has no name"},
		{"parameter declared twice", []Tool{New("t", "x").Param("a", "string", "").Param("a", "string", "").Handle(noop)}, `parameter "a" twice`},
		{"unknown JSON Schema type", []Tool{New("t", "x").Param("a", "strin", "").Handle(noop)}, "does not compile"},
		{"schema that is not JSON", []Tool{Func(Definition{Name: "t", Schema: json.RawMessage(`{`)}, noop)}, "not JSON"},
		{"nil tool", []Tool{nil}, "is nil"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := NewRegistry(c.tools...)
			if !errors.Is(err, ErrInvalidTool) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrInvalidTool saying %q", err, c.want)
			}
		})
	}
}

func TestValidateListsEveryViolationWithItsJSONPointer(t *testing.T) {
	r := mustRegistry(t, echoTool())
	cases := []struct {
		name string
		args string
		want []Violation
	}{
		{"missing required property", `{}`, []Violation{{"/text", "this required property is missing"}}},
		{"wrong type and unknown property", `{"text": 3, "colour": "red"}`, []Violation{
			{"/colour", "unknown property; remove it (the parameters are: style, text, times)"},
			{"/text", "got number, want string"},
		}},
		{"number out of range", `{"text":"a","times":9}`, []Violation{{"/times", "maximum: got 9, want 5"}}},
		{"not an enum value", `{"text":"a","style":"quiet"}`, []Violation{{"/style", "value must be one of 'plain', 'loud'"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Validate("echo", json.RawMessage(c.args))
			var ae *ArgumentsError
			if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("got %v, want an *ArgumentsError", err)
			}
			got := ae.Violations
			if len(got) > 1 { // the validator's order is not part of the contract
				sortViolations(got)
				sortViolations(c.want)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("violations\n got: %+v\nwant: %+v", got, c.want)
			}
			for _, v := range c.want {
				if !strings.Contains(err.Error(), v.Pointer) || !strings.Contains(err.Error(), v.Message) {
					t.Fatalf("the message for the model must name %q and %q:\n%s", v.Pointer, v.Message, err)
				}
			}
		})
	}
}

func sortViolations(v []Violation) {
	for i := range v {
		for j := i + 1; j < len(v); j++ {
			if v[j].Pointer < v[i].Pointer {
				v[i], v[j] = v[j], v[i]
			}
		}
	}
}

func TestArgumentsSentAsAJSONStringAreDecodedOnce(t *testing.T) {
	r := mustRegistry(t, echoTool())
	args, err := r.Validate("echo", json.RawMessage(`"{\"text\":\"hi\",\"times\":2}"`))
	if err != nil {
		t.Fatal(err)
	}
	if args.String("text") != "hi" || args.Int("times", 0) != 2 {
		t.Fatalf("got %v", args)
	}
	// A string holding a string holding an object is decoded once only.
	_, err = r.Validate("echo", json.RawMessage(`"\"{\\\"text\\\":\\\"hi\\\"}\""`))
	if !errors.Is(err, ErrInvalidArguments) {
		t.Fatalf("doubly encoded arguments: got %v, want ErrInvalidArguments", err)
	}
}

func TestEmptyOrNullArgumentsAreAnEmptyObject(t *testing.T) {
	r := mustRegistry(t, New("now", "Time.").Handle(func(context.Context, Call, ProgressFunc) (Result, error) { return Result{Content: "noon"}, nil }))
	for _, raw := range []string{"", "null", " ", `""`} {
		if res := r.Run(t.Context(), "now", "c", json.RawMessage(raw), nil); res.IsError || res.Content != "noon" {
			t.Fatalf("args %q: %+v", raw, res)
		}
	}
}

func TestRunTurnsEveryFailureIntoAnErrorResult(t *testing.T) {
	executed := false
	panicky := New("boom", "Panics.").Handle(func(context.Context, Call, ProgressFunc) (Result, error) { panic("nil map") })
	failing := New("fail", "Fails.").Handle(func(context.Context, Call, ProgressFunc) (Result, error) {
		return Result{Details: &Details{Path: "x"}}, errors.New("disk on fire; try later")
	})
	guarded := New("guarded", "Must not run on bad input.").Param("n", "integer", "", Required).
		Handle(func(context.Context, Call, ProgressFunc) (Result, error) { executed = true; return Result{}, nil })
	r := mustRegistry(t, echoTool(), panicky, failing, guarded)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	cases := []struct {
		name, tool, args string
		ctx              context.Context
		want             string
	}{
		{"unknown tool names the ones that exist", "ech", `{}`, t.Context(), `there is no tool named "ech"; the available tools are: echo, boom, fail, guarded`},
		{"invalid JSON", "echo", `{"text":`, t.Context(), "are not valid JSON"},
		{"schema violation", "guarded", `{"n":"one"}`, t.Context(), `at "/n": got string, want integer`},
		{"panic", "boom", `{}`, t.Context(), "failed with an internal error (nil map)"},
		{"error from the tool", "fail", `{}`, t.Context(), "disk on fire; try later"},
		{"cancelled before start", "guarded", `{"n":1}`, cancelled, "was cancelled before it started"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := r.Run(c.ctx, c.tool, "call-1", json.RawMessage(c.args), nil)
			if !res.IsError || !strings.Contains(res.Content, c.want) {
				t.Fatalf("got %+v, want an error result containing %q", res, c.want)
			}
		})
	}
	if executed {
		t.Fatal("a call with invalid arguments or a cancelled context must never execute")
	}
	if res := r.Run(cancelled, "guarded", "c", json.RawMessage(`{"n":1}`), nil); !res.NotStarted || strings.Contains(res.Content, "context canceled") {
		t.Errorf("a call refused for its cancelled context: %+v, want it marked not started, in a person's words", res)
	}
	if res := r.Run(t.Context(), "fail", "c", nil, nil); res.NotStarted {
		t.Errorf("a call whose tool failed: %+v, not marked not started", res)
	}
	if res := r.Run(t.Context(), "fail", "c", nil, nil); res.Details == nil || res.Details.Path != "x" {
		t.Fatalf("details of a failing tool are kept for the UI: %+v", res)
	}
}

func TestRunPassesTheCallAndProgress(t *testing.T) {
	r := mustRegistry(t, echoTool())
	var updates []any
	res := r.Run(t.Context(), "echo", "call-7", json.RawMessage(`{"text":"ab","times":2}`), func(u any) { updates = append(updates, u) })
	if res.IsError || res.Content != "abab" || len(updates) != 1 {
		t.Fatalf("got %+v, progress %v", res, updates)
	}
}

func TestRegistryDescribesItsToolsInRegistrationOrder(t *testing.T) {
	noop := func(context.Context, Call, ProgressFunc) (Result, error) { return Result{}, nil }
	w := New("write", "").Mode(Sequential).Handle(noop)
	r := mustRegistry(t, echoTool(), w)
	if got := r.Names(); !reflect.DeepEqual(got, []string{"echo", "write"}) {
		t.Fatalf("names %v", got)
	}
	defs := r.Definitions()
	if len(defs) != 2 || defs[1].Mode != Sequential {
		t.Fatalf("definitions %+v", defs)
	}
	b, _ := json.Marshal(defs[1])
	if !strings.Contains(string(b), `"mode":"sequential"`) || !strings.Contains(string(b), `"defaultApproval":"auto"`) {
		t.Fatalf("definition JSON %s", b)
	}
	if !r.Parallel("echo", "echo") || r.Parallel("echo", "write") || r.Parallel("nope") {
		t.Fatal("Parallel must be true only when every named tool exists and is parallel")
	}
}

func TestValidationIsSafeForConcurrentUse(t *testing.T) {
	r := mustRegistry(t, echoTool())
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				if i%2 == 0 {
					if _, err := r.Validate("echo", json.RawMessage(`{"text":"a","times":3}`)); err != nil {
						t.Error(err)
					}
				} else if _, err := r.Validate("echo", json.RawMessage(`{"times":30}`)); err == nil {
					t.Error("invalid arguments passed")
				}
			}
		})
	}
	wg.Wait()
}
