package ollamatest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Model is one scripted model to create on the server.
type Model struct {
	Name    string  // e.g. "scripted:latest" (":latest" implied)
	Scripts Scripts // marker → pieces
	// NoTools leaves .Tools out of the template: the server reports no tools capability and
	// answers a request with tools with 400.
	NoTools bool
	// NoThinking leaves .Thinking out of the template: the server reports no thinking
	// capability, answers think:true with 400, and never splits out <think> blocks.
	NoThinking bool
	// Parameters override or add to [DefaultParameters] (e.g. "num_ctx": 512).
	Parameters map[string]any
	// Vision gives the model the vision capability (the GGUF key llama.vision.block_count,
	// which the server checks), and its trail an I for each image of a message, after the
	// message's letter: "UI" answers a first message with one image, "UII" one with two. The
	// model sees no pixels (it has no projector), but its answer tells how many images the
	// server handed it.
	Vision bool
	// ToolsInPrompt renders each tool's whole definition as JSON, as real chat templates do
	// (Qwen's), rather than its name alone, so that the prompt's token count includes the
	// definitions (one token a byte, but for pieces of the scripts).
	ToolsInPrompt bool
}

// DefaultParameters are the Modelfile parameters of every scripted model: greedy sampling,
// so that the chain is followed exactly.
func DefaultParameters() map[string]any {
	return map[string]any{
		"temperature":    0,
		"top_k":          1,
		"repeat_penalty": 1,
		"seed":           1,
		"num_thread":     1, // a tiny model gains nothing from more, and loses to spin-waits on a busy machine
	}
}

// parameters returns the model's parameters: the defaults, then its own.
func (m Model) parameters() map[string]any {
	p := DefaultParameters()
	maps.Copy(p, m.Parameters)
	return p
}

// Template returns the model's chat template. It renders each message as "role: content"
// (with its thinking and tool calls), so the server's debug log shows a readable prompt, and
// ends with the marker of the trail of roles — or [Fallback]'s marker when no script has that
// trail — whose token picks the script.
func (m Model) Template() string {
	var b strings.Builder
	switch {
	case m.ToolsInPrompt:
		b.WriteString(`{{- if .Tools }}tools:{{ range .Tools }}` + "\n" + `{"type": "function", "function": {{ .Function }}}{{ end }}` + "\n" + `{{ end }}`)
	case !m.NoTools:
		// Referencing .Tools is what gives the model the tools capability.
		b.WriteString(`{{- if .Tools }}tools:{{ range .Tools }} {{ .Function.Name }}{{ end }}` + "\n" + `{{ end }}`)
	}
	b.WriteString(`{{- $trail := "" }}{{ range .Messages }}`)
	b.WriteString(`{{- if eq .Role "user" }}{{ $trail = print $trail "U" }}`)
	b.WriteString(`{{- else if eq .Role "assistant" }}{{ $trail = print $trail "A" }}`)
	b.WriteString(`{{- else if eq .Role "tool" }}{{ $trail = print $trail "T" }}`)
	b.WriteString(`{{- else if eq .Role "system" }}{{ $trail = print $trail "S" }}{{ end }}`)
	if m.Vision {
		b.WriteString(`{{- range .Images }}{{ $trail = print $trail "I" }}{{ end }}`)
	}
	b.WriteString(`{{ .Role }}: `)
	if !m.NoThinking {
		// The server infers the thinking tags from the text around .Thinking in this loop.
		b.WriteString(`{{ if .Thinking }}<think>{{ .Thinking }}</think>{{ end }}`)
	}
	b.WriteString(`{{ .Content }}`)
	// The server takes the tool-call tag from the first text after {{ if .ToolCalls }}.
	b.WriteString(`{{ if .ToolCalls }}{{ range .ToolCalls }}<tool_call>{"name": "{{ .Function.Name }}", "arguments": {{ json .Function.Arguments }}}</tool_call>{{ end }}{{ end }}`)
	b.WriteString("\n{{ end }}")

	v, err := compile(m.Scripts)
	if err != nil || len(v.markers) == 0 {
		b.WriteString(markerText(Fallback))
		return b.String()
	}
	quoted := make([]string, len(v.markers))
	for i, mk := range v.markers {
		quoted[i] = fmt.Sprintf("%q", mk)
	}
	fmt.Fprintf(&b, `{{- if eq $trail %s }}[[{{ $trail }}]]{{ else }}%s{{ end }}`, strings.Join(quoted, " "), markerText(Fallback))
	return b.String()
}

// Modelfile returns a Modelfile for `ollama create -f`, with ggufPath as its FROM (the file
// [WriteGGUF] wrote for m.Scripts).
func (m Model) Modelfile(ggufPath string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n", ggufPath)
	fmt.Fprintf(&b, "TEMPLATE \"\"\"%s\"\"\"\n", m.Template())
	params := m.parameters()
	for _, k := range slices.Sorted(maps.Keys(params)) {
		fmt.Fprintf(&b, "PARAMETER %s %v\n", k, params[k])
	}
	return b.String()
}

// name returns the model's name with its tag.
func (m Model) name() string {
	if strings.Contains(m.Name, ":") {
		return m.Name
	}
	return m.Name + ":latest"
}
