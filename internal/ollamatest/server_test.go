package ollamatest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
)

// The models of this test binary, one per behaviour under test.
var (
	writeFile = ollamatest.Model{Name: "write-file", Scripts: ollamatest.WriteHello()}
	twoCalls  = ollamatest.Model{Name: "two-calls", Scripts: ollamatest.Scripts{
		"U": slices.Concat(
			ollamatest.Think("Two files."),
			ollamatest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "a"}),
			ollamatest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "b"}),
		),
	}}
	plain = ollamatest.Model{Name: "plain", Scripts: ollamatest.Scripts{
		"U":  {"I wrote", " hello.txt", " just", " now."},
		"SU": {"Told", " so."},
	}}
	// alwaysCalls answers every turn with the same tool call.
	alwaysCalls = ollamatest.Model{Name: "always-calls", Scripts: ollamatest.Scripts{
		ollamatest.Fallback: slices.Concat(ollamatest.Think("More."), ollamatest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "a"})),
	}}
	// bare has neither the tools nor the thinking capability.
	bare = ollamatest.Model{Name: "bare", NoTools: true, NoThinking: true, Scripts: ollamatest.Scripts{
		"U": {"Hi."},
	}}
	// seeing has the vision capability and says how many images it was shown.
	seeing = ollamatest.Model{Name: "seeing", Vision: true, Scripts: ollamatest.Scripts{
		"U":   {"No", " image at all."},
		"UI":  {"One", " image."},
		"UII": {"Two", " images."},
	}}
)

func TestMain(m *testing.M) {
	os.Exit(ollamatest.Main(m, writeFile, twoCalls, plain, alwaysCalls, bare, seeing, longAnswer))
}

var writeFileTool = map[string]any{
	"type": "function",
	"function": map[string]any{
		"name":        "write_file",
		"description": "Write a file in the workspace.",
		"parameters": map[string]any{
			"type":     "object",
			"required": []string{"path", "content"},
			"properties": map[string]any{
				"path":    map[string]any{"type": "string"},
				"content": map[string]any{"type": "string"},
			},
		},
	},
}

type message struct {
	Role      string     `json:"role"`
	Content   string     `json:"content"`
	Images    [][]byte   `json:"images,omitempty"` // base64 on the wire, as Ollama's
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	Function struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	} `json:"function"`
}

func call(name string, args map[string]any) toolCall {
	var c toolCall
	c.Function.Name, c.Function.Arguments = name, args
	return c
}

// chunk is one NDJSON line of /api/chat, with what a test compares exactly; the durations and
// times, which vary, are checked apart.
type chunk struct {
	Thinking   string
	Content    string
	ToolCalls  []toolCall
	Done       bool
	DoneReason string
}

type wireChunk struct {
	Message struct {
		Role      string     `json:"role"`
		Content   string     `json:"content"`
		Thinking  string     `json:"thinking"`
		ToolCalls []toolCall `json:"tool_calls"`
	} `json:"message"`
	Done       bool   `json:"done"`
	DoneReason string `json:"done_reason"`
	EvalCount  int    `json:"eval_count"`
	Error      string `json:"error"`
}

// chat posts body to /api/chat and returns the status and every line the server sent.
func chat(t *testing.T, srv *ollamatest.Server, body map[string]any) (int, []wireChunk) {
	t.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/api/chat", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []wireChunk
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var c wireChunk
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("line %q: %v", sc.Bytes(), err)
		}
		lines = append(lines, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, lines
}

// streamed posts body and returns the chunks of a successful stream, checking what every
// stream shares: status 200, the assistant role, eval counts on the last line only.
func streamed(t *testing.T, srv *ollamatest.Server, body map[string]any) []chunk {
	t.Helper()
	status, lines := chat(t, srv, body)
	if status != http.StatusOK {
		t.Fatalf("status %d, want 200; lines %+v", status, lines)
	}
	var out []chunk
	for i, l := range lines {
		if l.Error != "" {
			t.Fatalf("line %d is an error: %s", i, l.Error)
		}
		if l.Message.Role != "assistant" {
			t.Errorf("line %d has role %q, want assistant", i, l.Message.Role)
		}
		if last := i == len(lines)-1; l.Done != last || (last && l.EvalCount == 0) {
			t.Errorf("line %d: done=%v eval_count=%d; only the last line is done, with its counts", i, l.Done, l.EvalCount)
		}
		out = append(out, chunk{l.Message.Thinking, l.Message.Content, l.Message.ToolCalls, l.Done, l.DoneReason})
	}
	return out
}

func assertChunks(t *testing.T, got, want []chunk) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("chunks differ\n got: %+v\nwant: %+v", got, want)
	}
}

var stop = chunk{Done: true, DoneReason: "stop"}

func TestStartReportsHowLongItTook(t *testing.T) {
	srv := ollamatest.Get(t)
	tm := srv.Timings()
	t.Logf("harness start: %s", tm)
	if tm.Serve <= 0 || tm.Create <= 0 || tm.Load <= 0 || tm.Total < tm.Serve+tm.Create+tm.Load {
		t.Errorf("timings %+v: every step should be measured and the total cover them", tm)
	}
}

// Each request streams as the real server sends a model's output: thinking split out chunk by
// chunk, every tool call whole in a chunk of its own, content one chunk per piece, and the
// trail of roles (S, U, A, T) choosing the script.
func TestTheServerStreamsEachScriptAsItsChunks(t *testing.T) {
	srv := ollamatest.Get(t)
	writeHello := call("write_file", map[string]any{"path": "hello.txt", "content": "hello"})
	for _, tc := range []struct {
		name    string
		request map[string]any
		want    []chunk
	}{
		{"thinking then one tool call arrive as thinking chunks then one whole call", map[string]any{
			"model":    "write-file",
			"think":    true,
			"tools":    []any{writeFileTool},
			"messages": []message{{Role: "user", Content: "Write hello.txt"}},
		}, []chunk{{Thinking: "I should"}, {Thinking: " write the file."}, {ToolCalls: []toolCall{writeHello}}, stop}},

		{"two tool calls of one message arrive one chunk each", map[string]any{
			"model":    "two-calls",
			"think":    true,
			"tools":    []any{writeFileTool},
			"messages": []message{{Role: "user", Content: "Write a.txt and b.txt"}},
		}, []chunk{
			{Thinking: "Two files."},
			{ToolCalls: []toolCall{call("write_file", map[string]any{"path": "a.txt", "content": "a"})}},
			{ToolCalls: []toolCall{call("write_file", map[string]any{"path": "b.txt", "content": "b"})}},
			stop,
		}},

		{"a plain answer streams one chunk per piece", map[string]any{
			"model":    "plain",
			"messages": []message{{Role: "user", Content: "What did you do?"}},
		}, []chunk{{Content: "I wrote"}, {Content: " hello.txt"}, {Content: " just"}, {Content: " now."}, stop}},

		{"a system message adds S to the trail", map[string]any{
			"model":    "plain",
			"messages": []message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "What did you do?"}},
		}, []chunk{{Content: "Told"}, {Content: " so."}, stop}},

		// The second "<think>" and "</think>" of the model are re-segmented; the server's
		// thinking parser joins them back, so nothing shows.
		{"the second turn after a tool result answers in text", map[string]any{
			"model": "write-file",
			"think": true,
			"tools": []any{writeFileTool},
			"messages": []message{
				{Role: "user", Content: "Write hello.txt"},
				{Role: "assistant", ToolCalls: []toolCall{writeHello}},
				{Role: "tool", Content: "wrote 5 bytes to hello.txt"},
			},
		}, []chunk{{Thinking: "Done."}, {Content: "I wrote"}, {Content: " hello.txt"}, {Content: "."}, stop}},

		{"an unscripted trail answers Unscripted", map[string]any{
			"model":    "plain",
			"messages": []message{{Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "Again"}},
		}, []chunk{{Content: ollamatest.Unscripted}, stop}},

		{"num_predict cuts the answer with done_reason length", map[string]any{
			"model":    "plain",
			"options":  map[string]any{"num_predict": 2},
			"messages": []message{{Role: "user", Content: "What did you do?"}},
		}, []chunk{{Content: "I wrote"}, {Content: " hello.txt"}, {Done: true, DoneReason: "length"}}},
	} {
		t.Run(tc.name, func(t *testing.T) { assertChunks(t, streamed(t, srv, tc.request), tc.want) })
	}
}

func TestFallbackScriptAnswersEveryTrail(t *testing.T) {
	srv := ollamatest.Get(t)
	user := message{Role: "user", Content: "Write a.txt"}
	assistant := message{Role: "assistant", ToolCalls: []toolCall{call("write_file", map[string]any{"path": "a.txt", "content": "a"})}}
	tool := message{Role: "tool", Content: "wrote a.txt"}
	for _, msgs := range [][]message{{user}, {user, assistant, tool}, {user, assistant, tool, assistant, tool}} {
		got := streamed(t, srv, map[string]any{"model": "always-calls", "think": true, "tools": []any{writeFileTool}, "messages": msgs})
		assertChunks(t, got, []chunk{
			{Thinking: "More."},
			{ToolCalls: []toolCall{call("write_file", map[string]any{"path": "a.txt", "content": "a"})}},
			stop,
		})
	}
}

func TestAModelWithVisionIsSaidToSeeAndCountsTheImagesItIsHanded(t *testing.T) {
	srv := ollamatest.Get(t)
	var show struct {
		Capabilities []string `json:"capabilities"`
	}
	for name, want := range map[string]bool{"seeing": true, "plain": false} {
		data, _ := json.Marshal(map[string]string{"model": name})
		resp, err := http.Post(srv.URL()+"/api/show", "application/json", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		show.Capabilities = nil
		err = json.NewDecoder(resp.Body).Decode(&show)
		resp.Body.Close()
		if err != nil || slices.Contains(show.Capabilities, "vision") != want {
			t.Errorf("%s: capabilities %v, %v; vision wanted: %v", name, show.Capabilities, err, want)
		}
	}
	png := []byte("\x89PNG\r\n\x1a\n not decoded: the model has no projector")
	for _, tc := range []struct {
		images [][]byte
		want   []chunk
	}{
		{nil, []chunk{{Content: "No"}, {Content: " image at all."}, stop}},
		{[][]byte{png}, []chunk{{Content: "One"}, {Content: " image."}, stop}},
		{[][]byte{png, png}, []chunk{{Content: "Two"}, {Content: " images."}, stop}},
	} {
		got := streamed(t, srv, map[string]any{"model": "seeing", "messages": []message{{Role: "user", Content: "What is this?", Images: tc.images}}})
		assertChunks(t, got, tc.want)
	}
}

func TestErrorsAreJSONBodiesWithTheServersStatus(t *testing.T) {
	srv := ollamatest.Get(t)
	user := []message{{Role: "user", Content: "Hi"}}
	tests := []struct {
		name   string
		body   map[string]any
		status int
		error  string
	}{
		{
			name:   "a model that is not there is 404",
			body:   map[string]any{"model": "absent", "messages": user},
			status: http.StatusNotFound,
			error:  `model "absent" not found, try pulling it first`,
		},
		{
			name:   "tools for a model without the tools capability are 400",
			body:   map[string]any{"model": "bare", "messages": user, "tools": []any{writeFileTool}},
			status: http.StatusBadRequest,
			error:  "registry.ollama.ai/library/bare:latest does not support tools",
		},
		{
			name:   "think for a model without the thinking capability is 400",
			body:   map[string]any{"model": "bare", "messages": user, "think": true},
			status: http.StatusBadRequest,
			error:  "registry.ollama.ai/library/bare:latest does not support thinking",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, lines := chat(t, srv, tt.body)
			if status != tt.status || len(lines) != 1 || lines[0].Error != tt.error {
				t.Errorf("got %d %+v, want %d with one line {error: %q}", status, lines, tt.status, tt.error)
			}
		})
	}
}

// Ollama v0.11.4's thinking parser, given think:true and a reply that does not open with
// <think>, sends the first content piece twice: alone, then joined to the second (fixed in
// v0.11.7). The native client takes the repeat out on the versions that send it
// (model/ollama/firstrepeat.go); when this test fails after an upgrade, check that the new
// version is outside that range.
func TestQuirkThinkingRequestRepeatsTheFirstPieceOfAReplyWithoutThink(t *testing.T) {
	srv := ollamatest.Get(t)
	got := streamed(t, srv, map[string]any{
		"model":    "plain",
		"think":    true,
		"messages": []message{{Role: "user", Content: "What did you do?"}},
	})
	assertChunks(t, got, []chunk{
		{Content: "I wrote"}, {Content: "I wrote hello.txt"}, {Content: " just"}, {Content: " now."}, stop,
	})
}
