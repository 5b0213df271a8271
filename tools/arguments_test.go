package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// A model sometimes sends a call's arguments as something other than an
// object. The call must become an error result that says what to send, never
// run and never panic, whatever the tool's schema allows.
func TestArgumentsThatAreNotAnObjectAreRefusedWithWhatToSend(t *testing.T) {
	ran := false
	anything := Func(Definition{Name: "anything", Schema: json.RawMessage(`{}`)}, func(_ context.Context, call Call, _ ProgressFunc) (Result, error) {
		ran = true
		return Result{Content: "ran"}, nil
	})
	tw := newTestWorkspace(t)
	reg := mustRegistry(t, append(tw.w.Tools(), anything)...)
	cases := []struct {
		name, tool, args, want string
	}{
		{"an array", "write_file", `[1,2]`, "the arguments of write_file must be a JSON object with path and content, not an array"},
		{"a number", "write_file", `42`, "must be a JSON object with path and content, not a number"},
		{"a boolean", "write_file", `true`, "not a boolean"},
		{"a plain string", "write_file", `"write hello.txt please"`, "must be a JSON object with path and content, not a string"},
		{"a string holding an array", "write_file", `"[1,2]"`, "not a string"},
		{"a string holding a number", "read_file", `"7"`, "the arguments of read_file must be a JSON object with path (and optionally limit, offset), not a string"},
		{"invalid JSON", "write_file", `{"path": "a.txt", "content":`, "the arguments of write_file are not valid JSON (unexpected EOF); send a JSON object with path and content"},
		{"a string holding invalid JSON", "edit_file", `"{\"path\": "`, "send a JSON object with path, old_string and new_string"},
		{"null for a tool that needs arguments", "write_file", `null`, `at "/path": this required property is missing`},
		{"an array for a tool whose schema allows anything", "anything", `[1]`, "the arguments of anything must be a JSON object, not an array"},
		{"a number for a tool whose schema allows anything", "anything", `3`, "must be a JSON object, not a number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := reg.Run(t.Context(), c.tool, "call-1", json.RawMessage(c.args), nil)
			if !res.IsError || !strings.Contains(res.Content, c.want) {
				t.Fatalf("got %+v\nwant an error result containing %q", res, c.want)
			}
			if strings.Contains(res.Content, "internal error") {
				t.Fatalf("a bad argument must not look like a defect: %s", res.Content)
			}
			_, err := reg.Validate(c.tool, json.RawMessage(c.args))
			var ae *ArgumentsError
			if !errors.As(err, &ae) || !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("Validate: got %v, want an *ArgumentsError", err)
			}
		})
	}
	if ran {
		t.Fatal("a call whose arguments are no object must never run")
	}
	if entries, _ := os.ReadDir(tw.ws); len(entries) > 0 {
		t.Fatalf("the workspace changed: %v", entries)
	}
}

func TestObjectArgsIsAlwaysAnObjectToStoreAndSendBack(t *testing.T) {
	cases := []struct{ name, raw, want string }{
		{"an object is kept, compacted", "{ \"path\" : \"a.txt\",\n \"content\": \"x\" }", `{"path":"a.txt","content":"x"}`},
		{"an object sent inside a string is unwrapped", `"{\"path\":\"a.txt\"}"`, `{"path":"a.txt"}`},
		{"an empty object", `{}`, `{}`},
		{"nothing", ``, `{}`},
		{"null", `null`, `{}`},
		{"an array", `[1,2]`, `{}`},
		{"a number", `42`, `{}`},
		{"a string", `"hello"`, `{}`},
		{"a string holding null", `"null"`, `{}`},
		{"invalid JSON", `{"path":`, `{}`},
		{"a string holding invalid JSON", `"{\"path\":"`, `{}`},
		{"an object followed by garbage", `{"a":1} x`, `{}`},
		{"a number no decoder can hold", `{"n":1e400}`, `{}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := ObjectArgs(json.RawMessage(c.raw))
			if string(got) != c.want {
				t.Fatalf("ObjectArgs(%q) = %s, want %s", c.raw, got, c.want)
			}
			var obj map[string]any
			if err := json.Unmarshal(got, &obj); err != nil || obj == nil {
				t.Fatalf("%s is not a JSON object: %v", got, err)
			}
		})
	}
}

func FuzzValidateNeverPanicsAndYieldsAnObject(f *testing.F) {
	for _, s := range []string{`{}`, `[]`, `null`, `""`, `"{}"`, `"[1]"`, `1e999`, `{"text":"a","times":1e400}`, `{"text":`, `"\u0000"`, ` `, `{"a":{"b":[1,{"c":null}]}}`} {
		f.Add(s)
	}
	r, err := NewRegistry(echoTool())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		args, err := r.Validate("echo", json.RawMessage(raw))
		if err == nil && args == nil {
			t.Fatalf("%q: valid arguments must be an object", raw)
		}
		var obj map[string]any
		if out := ObjectArgs(json.RawMessage(raw)); json.Unmarshal(out, &obj) != nil || obj == nil {
			t.Fatalf("ObjectArgs(%q) = %s, not an object", raw, out)
		}
	})
}
