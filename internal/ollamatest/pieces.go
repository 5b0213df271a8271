package ollamatest

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Think returns a thinking block: "<think>", the pieces, "</think>".
func Think(pieces ...string) []string {
	out := append([]string{"<think>"}, pieces...)
	return append(out, "</think>")
}

// ToolCall returns the pieces of one tool call: "<tool_call>", the JSON
// {"name": name, "arguments": args} and "</tool_call>". args is marshalled (a map's keys in
// sorted order), except a string, which is inserted verbatim (for malformed arguments).
// The server reports the call only when the request names the tool.
func ToolCall(name string, args any) []string {
	var raw string
	switch a := args.(type) {
	case string:
		raw = a
	case nil:
		raw = "{}"
	default:
		b, err := json.Marshal(a)
		if err != nil {
			panic(fmt.Sprintf("ollamatest.ToolCall(%q): arguments: %v", name, err))
		}
		raw = string(b)
	}
	return []string{"<tool_call>", fmt.Sprintf(`{"name": %q, "arguments": %s}`, name, raw), "</tool_call>"}
}

// WriteHello returns the scripts of the model in the package documentation: the first turn
// thinks "I should", " write the file." and calls write_file for hello.txt with "hello"; after
// the tool's result it thinks "Done." and answers "I wrote", " hello.txt", ".".
func WriteHello() Scripts {
	return Scripts{
		"U": slices.Concat(
			Think("I should", " write the file."),
			ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello"}),
		),
		"UAT": slices.Concat(Think("Done."), []string{"I wrote", " hello.txt", "."}),
	}
}

// TwoWritesInOneTurn returns the scripts of a model that, at its first turn, calls write_file
// twice through the API (a.txt with "a", b.txt with "b"), then answers "Wrote",
// " a.txt and b.txt.": the model check's "two calls in one turn" and no other of its cases.
func TwoWritesInOneTurn() Scripts {
	return Scripts{
		"SU": slices.Concat(
			ToolCall("write_file", map[string]any{"path": "a.txt", "content": "a"}),
			ToolCall("write_file", map[string]any{"path": "b.txt", "content": "b"})),
		"SUATT": {"Wrote", " a.txt and b.txt."},
	}
}

// NeverCalls returns the scripts of a model that answers "I would", " do that", " for you."
// whatever it is asked, never calling a tool.
func NeverCalls() Scripts {
	return Scripts{"*": {"I would", " do that", " for you."}}
}
