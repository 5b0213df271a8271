package ollamatest_test

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/fs/ggml"
	"github.com/ollama/ollama/parser"
	"github.com/ollama/ollama/template"
	"github.com/ollama/ollama/thinking"
	"github.com/ollama/ollama/tools"

	"prototyper/internal/ollamatest"
)

func TestSegmentKeepsTheFirstUseWholeAndSplitsLaterUsesIntoFreeParts(t *testing.T) {
	tests := []struct {
		name    string
		scripts ollamatest.Scripts
		want    ollamatest.Scripts
	}{
		{
			name:    "unique pieces are kept as they are",
			scripts: ollamatest.Scripts{"U": {"Hello", ", world"}},
			want:    ollamatest.Scripts{"U": {"Hello", ", world"}},
		},
		{
			name:    "a tag repeated in a later marker is split, longest first part first",
			scripts: ollamatest.Scripts{"U": ollamatest.Think("a"), "UAT": ollamatest.Think("b")},
			want: ollamatest.Scripts{
				"U":   {"<think>", "a", "</think>"},
				"UAT": {"<think", ">", "b", "</thin", "k>"},
			},
		},
		{
			name:    "a piece repeated within one script is split too",
			scripts: ollamatest.Scripts{"U": {"ab", "ab"}},
			want:    ollamatest.Scripts{"U": {"ab", "a", "b"}},
		},
		{
			name:    "a piece too short to split gets leading spaces",
			scripts: ollamatest.Scripts{"U": {"ab", "ab", "ab", "."}, "UAT": {"."}},
			want:    ollamatest.Scripts{"U": {"ab", "a", "b", " ab", "."}, "UAT": {" ."}},
		},
		{
			name:    "a piece may not take a token text of the vocabulary's head",
			scripts: ollamatest.Scripts{"U": {"</s>", "<0x41>"}},
			want:    ollamatest.Scripts{"U": {"</s", ">", "<0x4", "1>"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ollamatest.Segment(tt.scripts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Segment(%q)\n got %q\nwant %q", tt.scripts, got, tt.want)
			}
		})
	}
}

func TestBadScriptsAreRefusedWithErrBadScripts(t *testing.T) {
	for name, scripts := range map[string]ollamatest.Scripts{
		"a marker with another letter":  {"UX": {"a"}},
		"an empty marker":               {"": {"a"}},
		"an empty piece":                {"U": {"a", ""}},
		"a piece with a marker bracket": {"U": {"see [[U]]"}},
	} {
		t.Run(name, func(t *testing.T) {
			if err := ollamatest.WriteGGUF(io.Discard, scripts); !errors.Is(err, ollamatest.ErrBadScripts) {
				t.Errorf("WriteGGUF: %v, want ErrBadScripts", err)
			}
		})
	}
}

func TestWriteGGUFWritesAOneBlockLlamaThatOllamaReads(t *testing.T) {
	var buf bytes.Buffer
	if err := ollamatest.WriteGGUF(&buf, ollamatest.Scripts{"U": {"Hi", "Hi"}}); err != nil {
		t.Fatal(err)
	}
	f, err := ggml.Decode(bytes.NewReader(buf.Bytes()), -1)
	if err != nil {
		t.Fatalf("ollama cannot decode the file: %v", err)
	}
	kv := f.KV()
	tokens := kv.Strings("tokenizer.ggml.tokens")
	// <unk> <s> </s>, 256 bytes, the markers [[*]] and [[U]], then the pieces: the fallback's
	// answer, "Hi", and the repeat split as "H" + "i".
	want := []string{"[[*]]", "[[U]]", ollamatest.Unscripted, "Hi", "H", "i"}
	if len(tokens) != 3+256+len(want) || !slices.Equal(tokens[259:], want) || tokens[2] != "</s>" || tokens[3+0x41] != "<0x41>" {
		t.Errorf("tokens %q…%q, want <unk> <s> </s> <0x00>…<0xFF> %q", tokens[:4], tokens[259:], want)
	}
	types := kv.Ints("tokenizer.ggml.token_type")
	if types[0] != 2 || types[1] != 3 || types[2] != 3 || types[3] != 6 || types[len(types)-1] != 4 {
		t.Errorf("token types %v…: want unknown, control, control, byte…, user-defined", types[:4])
	}
	embd := kv.EmbeddingLength()
	if kv.Architecture() != "llama" || kv.BlockCount() != 1 || embd%32 != 0 || embd < uint64(len(tokens)) {
		t.Errorf("arch %s, blocks %d, embedding %d for %d tokens: want a one-block llama with a one-hot embedding",
			kv.Architecture(), kv.BlockCount(), embd, len(tokens))
	}
	if n := len(f.Tensors().Items()); n != 12 {
		t.Errorf("%d tensors, want 12 (embeddings, 9 of block 0, output norm, output)", n)
	}
	for _, tensor := range f.Tensors().Items() {
		if tensor.Type() != "F32" {
			t.Errorf("tensor %s is %s, want F32", tensor.Name, tensor.Type())
		}
	}
}

// render renders the model's template as the server does for a chat request.
func render(t *testing.T, m ollamatest.Model, msgs ...api.Message) string {
	t.Helper()
	tmpl, err := template.Parse(m.Template())
	if err != nil {
		t.Fatalf("the server cannot parse the template: %v\n%s", err, m.Template())
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, template.Values{Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestTemplateEndsWithTheMarkerOfTheTrailOrTheFallback(t *testing.T) {
	m := ollamatest.Model{Scripts: ollamatest.Scripts{"U": {"a"}, "UAT": {"b"}, "SU": {"c"}}}
	user := api.Message{Role: "user", Content: "Write hello.txt"}
	assistant := api.Message{Role: "assistant", Thinking: "I should.", ToolCalls: []api.ToolCall{{
		Function: api.ToolCallFunction{Name: "write_file", Arguments: api.ToolCallFunctionArguments{"path": "hello.txt"}},
	}}}
	tool := api.Message{Role: "tool", Content: "wrote hello.txt"}
	tests := []struct {
		name string
		msgs []api.Message
		want string
	}{
		{"first user message", []api.Message{user}, "[[U]]"},
		{"behind a system prompt", []api.Message{{Role: "system", Content: "Be brief."}, user}, "[[SU]]"},
		{"after a tool result", []api.Message{user, assistant, tool}, "[[UAT]]"},
		{"two user messages in a row are merged by the server", []api.Message{user, user}, "[[U]]"},
		{"a trail without a script", []api.Message{user, assistant, tool, assistant, tool}, "[[*]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := render(t, m, tt.msgs...); !strings.HasSuffix(got, tt.want) {
				t.Errorf("prompt does not end with %s:\n%s", tt.want, got)
			}
		})
	}
	t.Run("history shows thinking and tool calls", func(t *testing.T) {
		got := render(t, m, user, assistant, tool)
		want := `assistant: <think>I should.</think><tool_call>{"name": "write_file", "arguments": {"path":"hello.txt"}}</tool_call>`
		if !strings.Contains(got, want) {
			t.Errorf("prompt lacks %s:\n%s", want, got)
		}
	})
}

func TestTemplateGivesTheServerItsThinkingTagsToolTagAndCapabilities(t *testing.T) {
	for _, m := range []ollamatest.Model{
		{Name: "full"},
		{Name: "no tools", NoTools: true},
		{Name: "no thinking", NoThinking: true},
	} {
		t.Run(m.Name, func(t *testing.T) {
			tmpl, err := template.Parse(m.Template())
			if err != nil {
				t.Fatal(err)
			}
			open, closing := thinking.InferTags(tmpl.Template)
			if wantThinking := !m.NoThinking; (open == "<think>" && closing == "</think>") != wantThinking || (open == "") == wantThinking {
				t.Errorf("thinking tags %q %q, want <think> </think>: %v", open, closing, wantThinking)
			}
			if hasTools := slices.Contains(tmpl.Vars(), "tools"); hasTools == m.NoTools {
				t.Errorf("template references .Tools: %v, want %v", hasTools, !m.NoTools)
			}
			p := tools.NewParser(tmpl.Template, []api.Tool{{Type: "function", Function: api.ToolFunction{Name: "write_file"}}})
			var calls []api.ToolCall
			for _, piece := range slices.Concat([]string{"Sure."}, ollamatest.ToolCall("write_file", map[string]any{"path": "a"})) {
				c, _ := p.Add(piece)
				calls = append(calls, c...)
			}
			if len(calls) != 1 || calls[0].Function.Name != "write_file" || calls[0].Function.Arguments["path"] != "a" {
				t.Errorf("the server's tool parser got %+v from ToolCall's pieces", calls)
			}
		})
	}
}

func TestToolCallPiecesAreTagJSONTag(t *testing.T) {
	tests := []struct {
		args any
		json string
	}{
		{map[string]any{"path": "a.txt", "content": "a"}, `{"name": "write_file", "arguments": {"content":"a","path":"a.txt"}}`},
		{nil, `{"name": "write_file", "arguments": {}}`},
		{`{"path": 1`, `{"name": "write_file", "arguments": {"path": 1}`},
	}
	for _, tt := range tests {
		got := ollamatest.ToolCall("write_file", tt.args)
		if want := []string{"<tool_call>", tt.json, "</tool_call>"}; !slices.Equal(got, want) {
			t.Errorf("ToolCall(%v) = %q, want %q", tt.args, got, want)
		}
	}
}

func TestModelfileIsOneOllamaParses(t *testing.T) {
	m := ollamatest.Model{Scripts: ollamatest.Scripts{"U": {"Hi"}}, Parameters: map[string]any{"num_ctx": 512}}
	f, err := parser.ParseFile(strings.NewReader(m.Modelfile("./scripted.gguf")))
	if err != nil {
		t.Fatalf("%v\n%s", err, m.Modelfile("./scripted.gguf"))
	}
	got := map[string]string{}
	for _, c := range f.Commands {
		got[c.Name] = c.Args
	}
	if got["model"] != "./scripted.gguf" || got["template"] != m.Template() || got["temperature"] != "0" || got["num_ctx"] != "512" {
		t.Errorf("Modelfile commands %q", got)
	}
}

func BenchmarkWriteGGUF(b *testing.B) {
	scripts := ollamatest.Scripts{
		"U":   slices.Concat(ollamatest.Think("I should", " write it."), ollamatest.ToolCall("write_file", map[string]any{"path": "a"})),
		"UAT": slices.Concat(ollamatest.Think("Done."), []string{"I wrote", " a", "."}),
	}
	for b.Loop() {
		if err := ollamatest.WriteGGUF(io.Discard, scripts); err != nil {
			b.Fatal(err)
		}
	}
}
