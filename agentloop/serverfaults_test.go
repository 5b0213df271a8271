package agentloop

import (
	"context"
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
