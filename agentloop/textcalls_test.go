package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

func TestAnAnswerMadeOfCallsWrittenAsTextIsRecoveredAndAnythingElseStaysText(t *testing.T) {
	valid := func(name string, args json.RawMessage) bool {
		var a map[string]any
		return name == "echo" && json.Unmarshal(args, &a) == nil && a["text"] != nil
	}
	tests := []struct {
		name  string
		text  string
		calls []string // name args, canonical; nil: stays text
	}{
		{"a bare call", `{"name": "echo", "arguments": {"text": "hi"}}`, []string{`echo {"text":"hi"}`}},
		{"parameters instead of arguments", `{"name":"echo","parameters":{"text":"hi"}}`, []string{`echo {"text":"hi"}`}},
		{"the function wrapper with string arguments", `{"function":{"name":"echo","arguments":"{\"text\":\"hi\"}"}}`, []string{`echo {"text":"hi"}`}},
		{"a fenced call", "```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"a\"}}\n```", []string{`echo {"text":"a"}`}},
		{"tool_call tags, two of them", "<tool_call>\n{\"name\": \"echo\", \"arguments\": {\"text\": \"a\"}}\n</tool_call>\n<tool_call>{\"name\": \"echo\", \"arguments\": {\"text\": \"b\"}}</tool_call>",
			[]string{`echo {"text":"a"}`, `echo {"text":"b"}`}},
		{"an array of calls", `[{"name":"echo","arguments":{"text":"a"}},{"name":"echo","arguments":{"text":"b"}}]`, []string{`echo {"text":"a"}`, `echo {"text":"b"}`}},
		{"two objects one after the other", "{\"name\":\"echo\",\"arguments\":{\"text\":\"a\"}}\n{\"name\":\"echo\",\"arguments\":{\"text\":\"b\"}}", []string{`echo {"text":"a"}`, `echo {"text":"b"}`}},
		{"prose that mentions the tool", `I will call echo with {"text": "hi"}.`, nil},
		{"a call followed by prose", `{"name": "echo", "arguments": {"text": "hi"}} and then I am done`, nil},
		{"a tool the request does not have", `{"name": "launch", "arguments": {}}`, nil},
		{"arguments the schema refuses", `{"name": "echo", "arguments": {"txt": "hi"}}`, nil},
		{"JSON the user asked for", `{"name": "Bob", "age": 3}`, nil},
		{"a fence of another language", "```python\n{\"name\": \"echo\", \"arguments\": {\"text\": \"a\"}}\n```", nil},
		{"an unclosed tag", `<tool_call>{"name": "echo", "arguments": {"text": "a"}}`, nil},
		{"nothing", "  \n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, ok := recoverTextCalls(tt.text, valid)
			var got []string
			for _, c := range calls {
				if !c.Recovered {
					t.Errorf("call %+v not marked recovered", c)
				}
				got = append(got, c.Name+" "+canonicalArgs(c.Args))
			}
			if ok != (tt.calls != nil) || fmt.Sprint(got) != fmt.Sprint(tt.calls) {
				t.Errorf("recoverTextCalls(%q) = %q, %v; want %q", tt.text, got, ok, tt.calls)
			}
		})
	}
}

func TestTheHoldShowsTextThatCannotBeACallAtOnce(t *testing.T) {
	h := textHold{on: true}
	if got := h.push("  {\"na"); got != "" {
		t.Fatalf("the start of a call was shown: %q", got)
	}
	if got := h.push("me\": 1} hello"); got != "" {
		t.Fatalf("held text came out before the end: %q", got)
	}
	h2 := textHold{on: true}
	if got := h2.push("Hello"); got != "Hello" {
		t.Fatalf("prose was held: %q", got)
	}
	if got := h2.push(" {"); got != " {" {
		t.Fatalf("text after the release was held: %q", got)
	}
}

// ndjson is a stub /api/chat that streams the given content chunks, then done.
func ndjson(chunks ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, c := range chunks {
			b, _ := json.Marshal(c)
			fmt.Fprintf(w, `{"message":{"role":"assistant","content":%s},"done":false}`+"\n", b)
		}
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop","prompt_eval_count":5,"eval_count":3}`)
	}
}

func textDeltas(evs []events.Event, typ events.Type) string {
	var b strings.Builder
	for _, e := range ofType(evs, typ) {
		b.WriteString(e.Text)
	}
	return b.String()
}

func TestStrayReasoningTagsSplitAcrossChunksBecomeThinkingWithThinkingOff(t *testing.T) {
	stub := newStubOllama(t, nil, ndjson("<thi", "nk>I should", " greet.</th", "ink>\n\nHel", "lo."))
	a, db, rec := fakeHarness(t, NewOllamaModel(stub.client()), nil)
	out, err := a.RunOnce(context.Background(), "", "hi", RunOptions{Think: "off"})
	if err != nil {
		t.Fatal(err)
	}
	evs := rec.events()
	if th, tx := textDeltas(evs, events.ThinkingDelta), textDeltas(evs, events.TextDelta); th != "I should greet." || tx != "Hello." {
		t.Fatalf("thinking %q, text %q", th, tx)
	}
	msgs, _ := db.Messages(out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != "Hello." || last.Thinking != "I should greet." {
		t.Fatalf("stored %+v", last)
	}
}

func TestACallWrittenAsTextIsExecutedAndMarkedRecovered(t *testing.T) {
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
		if trail(req) == "U" {
			return answer("```json\n{\"name\": \"echo\", \"arguments\": {\"text\": \"from text\"}}\n```")
		}
		return answer("done")
	}}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	out := runFake(t, a, "go")
	msgs, _ := db.Messages(out.ChatID)
	if roles(msgs) != "UATA" || msgs[2].Content != "from text" || msgs[1].Content != "" || !msgs[1].ToolCalls[0].Recovered {
		t.Fatalf("messages %+v", msgs)
	}
	evs := rec.events()
	if tx := textDeltas(evs, events.TextDelta); tx != "done" {
		t.Fatalf("the call was shown as text: %q", tx)
	}
	for _, typ := range []events.Type{events.ToolCall, events.ToolResult} {
		for _, e := range ofType(evs, typ) {
			if !e.Recovered {
				t.Fatalf("%s without recovered: %+v", typ, e)
			}
		}
	}
	recs, _ := db.ToolCalls(out.ChatID)
	if len(recs) != 1 || !recs[0].Recovered {
		t.Fatalf("records %+v", recs)
	}
}

func TestATextThatOnlyMentionsAToolIsNotExecuted(t *testing.T) {
	for name, text := range map[string]string{
		"prose":             "I would call echo with {\"text\": \"x\"} if you want.",
		"JSON that is data": `{"name": "Ada", "arguments": "none"}`,
	} {
		t.Run(name, func(t *testing.T) {
			ran := false
			m := &fakeModel{turn: func(req ModelRequest) ModelTurn { return answer(text) }}
			a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, func() { ran = true }))
			out := runFake(t, a, "go")
			msgs, _ := db.Messages(out.ChatID)
			if ran || roles(msgs) != "UA" || msgs[1].Content != text || textDeltas(rec.events(), events.TextDelta) != text {
				t.Fatalf("ran %v, messages %+v", ran, msgs)
			}
		})
	}
}

func TestTheSettingLeavesCallsWrittenAsTextAsText(t *testing.T) {
	text := `{"name": "echo", "arguments": {"text": "x"}}`
	ran := false
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn { return answer(text) }}
	a, db, _ := fakeHarness(t, m, nil, echoTool(tools.Parallel, func() { ran = true }))
	if err := db.PutSettings(store.Settings{IgnoreTextToolCalls: true}); err != nil {
		t.Fatal(err)
	}
	out := runFake(t, a, "go")
	msgs, _ := db.Messages(out.ChatID)
	if ran || roles(msgs) != "UA" || msgs[1].Content != text {
		t.Fatalf("ran %v, messages %+v", ran, msgs)
	}
}

func TestACallWrittenAsTextIsExecutedOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "texter", approve: ApproveAuto})
	out := h.runCompleted(t, "write t.txt")
	if got, ok := h.file(t, "t.txt"); !ok || got != "from text" {
		t.Fatalf("t.txt = %q, %v; events %s", got, ok, summary(h.rec.events()))
	}
	calls := ofType(h.rec.events(), events.ToolCall)
	if len(calls) == 0 || !calls[0].Recovered {
		t.Fatalf("tool.call events %+v", calls)
	}
	if tx := textDeltas(h.rec.events(), events.TextDelta); tx != "Wrote t.txt." {
		t.Fatalf("text %q: the call was shown as text", tx)
	}
	if r := roles(h.messages(t, out.ChatID)); r != "UATA" {
		t.Fatalf("roles %q", r)
	}
}

func TestATextMentioningAToolIsNotExecutedOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "mentioner", approve: ApproveAuto})
	out := h.runCompleted(t, "explain")
	if _, ok := h.file(t, "t.txt"); ok || len(ofType(h.rec.events(), events.ToolCall)) != 0 {
		t.Fatal("a mention of a tool was executed")
	}
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != `I could call write_file with {"path": "t.txt"}.` {
		t.Fatalf("answer %q", last.Content)
	}
}
