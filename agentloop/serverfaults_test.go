package agentloop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// chatServer is the client of a stub Ollama that runs handler for /api/chat.
func chatServer(t *testing.T, handler http.HandlerFunc) *ollama.Client {
	return newStubOllama(t, nil, handler).client()
}

func TestAnErrorMidStreamEndsTheRunAndKeepsThePartialAnswer(t *testing.T) {
	client := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"Half an "},"done":false}`)
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"answer"},"done":false}`)
		fmt.Fprintln(w, `{"error":"the model runner crashed"}`)
	})
	a, db, rec := fakeHarness(t, model.NewOllama(client), nil)
	out, err := a.RunOnce(context.Background(), "", "hi", RunOptions{})
	if err == nil || out.StopReason != events.StopError || !strings.Contains(err.Error(), "crashed") {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	errs := ofType(rec.events(), events.Error)
	if len(errs) != 1 || errs[0].Code != "stream_error" {
		t.Fatalf("error events %+v", errs)
	}
	msgs, _ := db.Messages(out.ChatID)
	if roles(msgs) != "UA" || msgs[1].Content != "Half an answer" || msgs[1].Complete {
		t.Fatalf("messages %+v", msgs)
	}
	assertReopenedSaysWhyItFailed(t, a, out, errs[0])
}

// assertReopenedSaysWhyItFailed checks that the failed run keeps its error event's sentence,
// so that the chat reopened says why its last message has no (whole) answer.
func assertReopenedSaysWhyItFailed(t *testing.T, a *Agent, out Outcome, said events.Event) {
	t.Helper()
	opened, err := a.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Notes) != 1 || opened.Notes[0].StopReason != events.StopError || opened.Notes[0].Code != said.Code ||
		opened.Notes[0].Message != said.Message || opened.Notes[0].RunID != out.RunID {
		t.Errorf("opened notes %+v, want the error %s of run %s", opened.Notes, said.Code, out.RunID)
	}
}

func TestARunFailedWhileTheServerWasAwayKeepsWhy(t *testing.T) {
	s := newStubOllama(t, nil, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"hello"},"done":true,"done_reason":"stop"}`)
	})
	a, db, rec := fakeHarness(t, model.NewOllama(s.client(ollama.WithRetry(1, time.Second))), nil)
	first, err := a.RunOnce(context.Background(), "", "hi", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s.srv.Close() // the server goes away; the model's context length is known already
	out, err := a.RunOnce(context.Background(), first.ChatID, "and again", RunOptions{})
	if err == nil || out.StopReason != events.StopError {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	errs := ofType(rec.events(), events.Error)
	if len(errs) != 1 || errs[0].Code != vocab.CodeNotRunning {
		t.Fatalf("error events %+v", errs)
	}
	if msgs, _ := db.Messages(out.ChatID); roles(msgs) != "UAU" {
		t.Fatalf("messages %+v, want the second message unanswered", msgs)
	}
	assertReopenedSaysWhyItFailed(t, a, out, errs[0])
}

func TestAStreamCutBeforeDoneNeverRunsItsToolCalls(t *testing.T) {
	client := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"echo","arguments":{"text":"x"}}}]},"done":false}`)
	})
	ran := false
	a, _, _ := fakeHarness(t, model.NewOllama(client), nil, echoTool(tools.Parallel, func() { ran = true }))
	out, _ := a.RunOnce(context.Background(), "", "hi", RunOptions{})
	if out.StopReason != events.StopError || ran {
		t.Fatalf("stop %q, tool ran %v", out.StopReason, ran)
	}
}

func TestRetriesBeforeTheFirstByteBecomeRetryEvents(t *testing.T) {
	var calls atomic.Int32
	client := chatServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			http.Error(w, `{"error":"busy"}`, http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"fine"},"done":true,"done_reason":"stop","prompt_eval_count":10,"eval_count":1}`)
	})
	a, _, rec := fakeHarness(t, model.NewOllama(client), nil)
	out := runFake(t, a, "hi")
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop %q", out.StopReason)
	}
	retries := ofType(rec.events(), events.Retry)
	if len(retries) != 2 || retries[0].Attempt != 2 || retries[0].Reason == "" {
		t.Fatalf("retry events %+v", retries)
	}
}

// silent accepts a request and never answers it (until the client goes away).
func silent(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(30 * time.Second):
	}
}

func TestASilentServerFailsOnceAfterOneTimeout(t *testing.T) {
	const timeout = 400 * time.Millisecond
	t.Run("silent everywhere: one short wait for the model's details, no chat request", func(t *testing.T) {
		s := newStubOllama(t, silent, silent)
		a, db, rec := fakeHarness(t, model.NewOllama(s.client(ollama.WithMetadataTimeout(timeout))), nil)
		_, err := a.RunOnce(context.Background(), "", "hi", RunOptions{FirstByteTimeout: time.Hour})
		if !errors.Is(err, vocab.ErrFirstByteTimeout) {
			t.Fatalf("err = %v", err)
		}
		if held := s.longest("/api/show"); s.requests() != 1 || held > 2*timeout+time.Second {
			t.Fatalf("%d requests, held %v; want 1 request and one wait of %v", s.requests(), held, timeout)
		}
		noChats(t, db)
		_ = rec
	})
	t.Run("the model's details answer, the chat is silent: one first-byte wait, announced", func(t *testing.T) {
		const chatTimeout = 1500 * time.Millisecond // past the 1 s after which loading is announced
		for _, where := range []string{"run option", "config"} {
			t.Run(where, func(t *testing.T) {
				s := newStubOllama(t, nil, silent)
				a, _, rec := fakeHarness(t, model.NewOllama(s.client()), func(c *Config) {
					if where == "config" {
						c.FirstByteTimeout = chatTimeout
					}
				})
				opts := RunOptions{}
				if where == "run option" {
					opts.FirstByteTimeout = chatTimeout
				}
				start := time.Now()
				out, err := a.RunOnce(context.Background(), "", "hi", opts)
				took := time.Since(start)
				if !errors.Is(err, vocab.ErrFirstByteTimeout) || out.StopReason != events.StopError {
					t.Fatalf("outcome %+v, err %v", out, err)
				}
				if s.count("/api/show") != 1 || s.count("/api/chat") != 1 {
					t.Fatalf("requests %v; want one /api/show and one /api/chat", s.counts)
				}
				// the upper bound is on the wait as the server saw it: the whole run also
				// stores and starts, which a loaded machine can slow by more than a second
				if held := s.longest("/api/chat"); took < chatTimeout || held > chatTimeout+time.Second {
					t.Fatalf("failed after %v, the request held %v; want one wait of %v", took, held, chatTimeout)
				}
				for _, want := range []string{"--first-byte-timeout", "first-byte timeout in the settings"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("message %q does not name %s", err, want)
					}
				}
				loading := ofType(rec.events(), events.ModelLoading)
				if len(loading) != 1 || loading[0].Model != "fake" || len(ofType(rec.events(), events.ModelLoaded)) != 0 {
					t.Fatalf("loading events: %s", summary(append(loading, ofType(rec.events(), events.ModelLoaded)...)))
				}
			})
		}
	})
	t.Run("a model that loads slowly is announced, then loaded with the server's load time", func(t *testing.T) {
		var rec *recorder
		s := newStubOllama(t, nil, func(w http.ResponseWriter, r *http.Request) {
			rec.saw(events.ModelLoading, 30*time.Second) // slower than LoadingNotice, however late its timer fires
			fmt.Fprintln(w, `{"message":{"role":"assistant","content":"ready"},"done":true,"done_reason":"stop","load_duration":1234000000}`)
		})
		var a *Agent
		a, _, rec = fakeHarness(t, model.NewOllama(s.client()), nil)
		if out := runFake(t, a, "hi"); out.StopReason != events.StopCompleted {
			t.Fatalf("stop %q", out.StopReason)
		}
		evs := rec.events()
		loading, loaded := ofType(evs, events.ModelLoading), ofType(evs, events.ModelLoaded)
		if len(loading) != 1 || len(loaded) != 1 || loaded[0].LoadMs == nil || *loaded[0].LoadMs != 1234 ||
			loaded[0].Seq < loading[0].Seq {
			t.Fatalf("loading %s loaded %s", summary(loading), summary(loaded))
		}
	})
	t.Run("a quick answer announces nothing", func(t *testing.T) {
		s := newStubOllama(t, nil, func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintln(w, `{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop"}`)
		})
		a, _, rec := fakeHarness(t, model.NewOllama(s.client()), nil)
		runFake(t, a, "hi")
		time.Sleep(1100 * time.Millisecond) // a timer left armed would fire now
		if n := len(ofType(rec.events(), events.ModelLoading)) + len(ofType(rec.events(), events.ModelLoaded)); n != 0 {
			t.Fatalf("%d loading events for a quick answer", n)
		}
	})
}

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
