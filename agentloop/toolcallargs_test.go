package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

func TestEveryCallGetsItsOwnRecordWhateverIdsTheServerSends(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		switch trail(req) {
		case "U": // one id for three calls
			return toolTurn(tc("call_0", "echo", `{"text":"one"}`), tc("call_0", "echo", `{"text":"two"}`), tc("call_0", "echo", `{"text":"three"}`))
		case "UATTT": // and the same id again in the next message
			return toolTurn(tc("call_0", "echo", `{"text":"four"}`))
		}
		return answer("done")
	}}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Sequential, nil))
	out := runFake(t, a, "go")
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop %q", out.StopReason)
	}
	recs, _ := db.ToolCalls(out.ChatID)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4: %+v", len(recs), recs)
	}
	seen := map[string]bool{}
	for i, r := range recs {
		want := []string{"one", "two", "three", "four"}[i]
		if seen[r.ID] || r.Output != want || !strings.Contains(string(r.Args), want) {
			t.Errorf("record %d = %+v, want its own id and result %q", i, r, want)
		}
		seen[r.ID] = true
	}
	if recs[0].ID != "call_0" {
		t.Errorf("the first call's id %q: a new id is kept as the server sent it", recs[0].ID)
	}
	// what the model reads back pairs each call with its own result
	msgs, _ := db.Messages(out.ChatID)
	if got := roles(msgs); got != "UATTTATA" {
		t.Fatalf("roles %s", got)
	}
	for i, c := range msgs[1].ToolCalls {
		if tm := msgs[2+i]; tm.ToolCallID != c.ID || !strings.Contains(string(c.Args), tm.Content) {
			t.Errorf("result %d %+v does not answer call %+v", i, tm, c)
		}
	}
	last := m.reqs[len(m.reqs)-1].Messages
	ids := map[string]bool{}
	for _, msg := range last {
		for _, c := range msg.ToolCalls {
			if ids[c.ID] {
				t.Errorf("id %s sent back twice", c.ID)
			}
			ids[c.ID] = true
		}
	}
	callIDs := map[string]bool{}
	for _, e := range ofType(rec.events(), events.ToolCall) {
		if e.State == events.ToolStatePending {
			if callIDs[e.ToolCallID] {
				t.Errorf("two tool.call events with id %s", e.ToolCallID)
			}
			callIDs[e.ToolCallID] = true
		}
	}
}

func TestArgumentsThatAreNoObjectBecomeAnErrorAndAreNeverSentBack(t *testing.T) {
	for _, args := range []string{`"just text"`, `[1,2]`, `42`, `true`, `"[1]"`} {
		t.Run(args, func(t *testing.T) {
			var turns atomic.Int32
			s := newStubOllama(t, nil, func(w http.ResponseWriter, r *http.Request) {
				if turns.Add(1) == 1 {
					fmt.Fprintf(w, `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"echo","arguments":%s}}]},"done":true,"done_reason":"stop"}`+"\n", args)
					return
				}
				fmt.Fprintln(w, `{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`)
			})
			ran := false
			a, db, rec := fakeHarness(t, model.NewOllama(s.client()), nil, echoTool(tools.Parallel, func() { ran = true }))
			out := runFake(t, a, "go")
			if out.StopReason != events.StopCompleted || ran {
				t.Fatalf("stop %q, tool ran %v", out.StopReason, ran)
			}
			msgs, _ := db.Messages(out.ChatID)
			if roles(msgs) != "UATA" || string(msgs[1].ToolCalls[0].Args) != `{}` {
				t.Fatalf("stored %+v", msgs)
			}
			if res := msgs[2].Content; !strings.Contains(res, "the arguments must be an object") || !strings.Contains(res, strings.Trim(args, `"`)) {
				t.Errorf("result %q should say the arguments must be an object and show what was sent", res)
			}
			for _, e := range ofType(rec.events(), events.ToolCall) {
				if string(e.Args) != `{}` {
					t.Errorf("tool.call event with args %s", e.Args)
				}
			}
			recs, _ := db.ToolCalls(out.ChatID)
			if len(recs) != 1 || string(recs[0].Args) != `{}` || recs[0].OK {
				t.Errorf("records %+v", recs)
			}
			var second struct {
				Messages []struct {
					ToolCalls []struct {
						Function struct {
							Arguments json.RawMessage `json:"arguments"`
						} `json:"function"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(s.chatBody(1), &second); err != nil {
				t.Fatal(err)
			}
			for _, m := range second.Messages {
				for _, c := range m.ToolCalls {
					var obj map[string]any
					if err := json.Unmarshal(c.Function.Arguments, &obj); err != nil {
						t.Errorf("arguments sent back %s are not an object", c.Function.Arguments)
					}
				}
			}
		})
	}
}

func TestAChatStoredWithNonObjectArgumentsIsSentWithObjects(t *testing.T) {
	s := newStubOllama(t, nil, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`)
	})
	a, db, _ := fakeHarness(t, model.NewOllama(s.client()), nil, echoTool(tools.Parallel, nil))
	chatID := poisonedChat(t, db, "")
	if _, err := a.RunOnce(context.Background(), chatID, "again", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if body := string(s.chatBody(0)); strings.Contains(body, `"arguments":"oops"`) || !strings.Contains(body, `"arguments":{}`) {
		t.Fatalf("request %s", body)
	}
}

// poisonedChat stores a chat whose tool call was kept with arguments that are a string, as
// versions before the check stored them.
func poisonedChat(t *testing.T, db *store.DB, workspace string) string {
	t.Helper()
	c, err := db.CreateChat(store.Chat{Workspace: workspace})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []store.Message{
		{Role: store.RoleUser, Content: "write hello.txt", Complete: true},
		{Role: store.RoleAssistant, Complete: true, DoneReason: "stop",
			ToolCalls: []store.ToolCall{{ID: "call_bad", Name: "write_file", Args: json.RawMessage(`"oops"`)}}},
		{Role: store.RoleTool, ToolName: "write_file", ToolCallID: "call_bad", Content: "invalid arguments", Complete: true},
	} {
		if _, err := db.AppendMessage(c.ID, m); err != nil {
			t.Fatal(err)
		}
	}
	return c.ID
}

// The real server (v0.11.4) never sends arguments that are no object (it reads a model's
// tool call into an object, else leaves it as text), but it refuses a history that holds
// one with HTTP 400: a chat stored that way must still go on.
func TestTheRealServerContinuesAChatStoredWithNonObjectArguments(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAuto})
	chatID := poisonedChat(t, h.db, h.workspace)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := h.agent.RunOnce(ctx, chatID, "never mind", RunOptions{Think: "on"})
	if err != nil || out.StopReason != events.StopCompleted {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	msgs := h.messages(t, chatID)
	if last := msgs[len(msgs)-1]; last.Content != "Understood, nothing written." {
		t.Fatalf("last message %+v", last)
	}
}

// resultOf is the tool.result of call id among evs (zero when there is none).
func resultOf(evs []events.Event, id string) events.Event {
	for _, e := range ofType(evs, events.ToolResult) {
		if e.ToolCallID == id {
			return e
		}
	}
	return events.Event{}
}
