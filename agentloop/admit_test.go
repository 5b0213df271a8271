package agentloop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/model"
	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// noChats fails the test if db holds a chat: a message refused at admission (the checks
// before a run starts: a model, a folder, a model that calls tools, a message that fits its
// context) leaves nothing behind.
func noChats(t *testing.T, db *store.DB) {
	t.Helper()
	chats, err := db.ListChats()
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 0 {
		t.Fatalf("%d chats left in the store: %+v", len(chats), chats)
	}
}

func TestARunThatCannotStartLeavesNoChat(t *testing.T) {
	notFound := ollamatest.ModelNotFound("fake")
	webPage := ollamatest.WebPage("<html><body>It works!</body></html>")
	noTools := func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"registry.ollama.ai/library/fake does not support tools"}`)
	}
	for _, tt := range []struct {
		name       string
		show, chat http.HandlerFunc
		cfg        func(*Config)
		says       string
	}{
		{name: "no model", cfg: func(c *Config) { c.DefaultModel = "" }, says: "no model chosen"},
		{name: "a workspace that does not exist", cfg: func(c *Config) {
			c.Workspace = filepath.Join(t.TempDir(), "no-such-folder", "x")
			c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
		}, says: "choose an existing folder"},
		{name: "a workspace that is a file", cfg: func(c *Config) {
			c.Workspace = writeFile(t, t.TempDir(), "file", "")
			c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
		}, says: "not a folder"},
		{name: "a model the server does not have", show: notFound, says: "prototyper pull fake"},
		{name: "a server that is not Ollama", show: webPage, says: "check the address"},
		{name: "a model that cannot use tools", chat: noTools, says: "does not support tools"},
		{name: "a model that says it cannot call tools", show: func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"model_info":{"llama.context_length":8192},"capabilities":["completion"]}`)
		}, cfg: func(c *Config) {
			reg, _ := tools.NewRegistry(echoTool(tools.Parallel, nil))
			c.Tools = StaticTools(reg)
		}, says: "fake cannot call tools"},
		{name: "a blocked prompt", cfg: func(c *Config) {
			c.Hooks.UserPromptSubmit = []UserPromptSubmitHook{func(context.Context, Prompt) PromptDecision {
				return PromptDecision{Action: Block, Reason: "not today"}
			}}
		}, says: "not today"},
	} {
		for _, path := range []string{"RunOnce", "SendNew"} {
			t.Run(tt.name+"/"+path, func(t *testing.T) {
				chat := tt.chat
				if chat == nil {
					chat = func(w http.ResponseWriter, r *http.Request) {
						fmt.Fprintln(w, `{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop"}`)
					}
				}
				s := newStubOllama(t, tt.show, chat)
				a, db, rec := fakeHarness(t, model.NewOllama(s.client()), tt.cfg)
				var err error
				if path == "RunOnce" {
					_, err = a.RunOnce(context.Background(), "", "hello", RunOptions{})
				} else {
					_, err = a.SendNew(context.Background(), store.Chat{}, "hello")
					if err == nil { // refused only by the server: the run fails in the background
						rec.waitFor(t, "the run's end", finished(1))
						fin := ofType(rec.events(), events.RunFinished)[0]
						if fin.StopReason != events.StopError {
							t.Fatalf("stop %q", fin.StopReason)
						}
						if tt.chat == nil {
							t.Fatal("SendNew accepted a message that cannot run")
						}
						return // the window keeps the chat and shows the error in it
					}
				}
				if err == nil || !strings.Contains(err.Error(), tt.says) {
					t.Fatalf("err = %v, want it to say %q", err, tt.says)
				}
				noChats(t, db)
			})
		}
	}
}

func TestAPromptOverTheModelsContextIsRefusedBeforeItIsStoredOrSent(t *testing.T) {
	huge := strings.Repeat("0123456789", 500_000) // 5 MB
	for _, path := range []string{"RunOnce", "Send", "SendNew", "Send to a chat"} {
		t.Run(path, func(t *testing.T) {
			s := newStubOllama(t, showContext(16384), func(w http.ResponseWriter, r *http.Request) {
				t.Error("a chat request was made")
			})
			a, db, _ := fakeHarness(t, model.NewOllama(s.client()), nil)
			var err error
			var existing store.Chat
			switch path {
			case "RunOnce":
				_, err = a.RunOnce(context.Background(), "", huge, RunOptions{})
			case "Send":
				_, err = a.Send(context.Background(), "", huge)
			case "SendNew":
				_, err = a.SendNew(context.Background(), store.Chat{Model: "fake"}, huge)
			default:
				existing, _ = db.CreateChat(store.Chat{Model: "fake"})
				_, err = a.Send(context.Background(), existing.ID, huge)
			}
			var tl *PromptTooLongError
			if !errors.Is(err, ErrPromptTooLong) || !errors.As(err, &tl) {
				t.Fatalf("err = %v, want ErrPromptTooLong", err)
			}
			want := fmt.Sprintf("This message is about %s tokens; the model's context holds 16K. Shorten it or attach less.", vocab.TokenCount(EstimateTokens(huge)))
			if err.Error() != want {
				t.Errorf("message %q\nwant    %q", err, want)
			}
			if s.count("/api/chat") != 0 {
				t.Errorf("%d chat requests", s.count("/api/chat"))
			}
			if existing.ID != "" {
				if msgs, _ := db.Messages(existing.ID); len(msgs) != 0 {
					t.Fatalf("stored %d messages", len(msgs))
				}
				return
			}
			noChats(t, db)
		})
	}
}

// budgetOfA16KModel is the budget of a new chat with a model of 16,384 tokens of context, offered
// one tool.
func budgetOfA16KModel(t *testing.T) Budget {
	t.Helper()
	s := newStubOllama(t, showContext(16384), nil)
	a, _, _ := fakeHarness(t, model.NewOllama(s.client()), nil, echoTool(tools.Parallel, nil))
	b, err := a.Budget(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTheBudgetOfAMessageIsTheContextLessWhatTheRunKeeps(t *testing.T) {
	b := budgetOfA16KModel(t)
	if b.Model != "fake" || b.NumCtx != 16384 || b.MaxTokens <= 8000 || b.MaxTokens >= 16384-4096 || b.CharsPerToken != 3.5 {
		t.Fatalf("budget %+v", b)
	}
	fits := strings.Repeat("x", int(float64(b.MaxTokens-10)*b.CharsPerToken))
	over := strings.Repeat("x", int(float64(b.MaxTokens+10)*b.CharsPerToken))
	if err := b.Check(fits); err != nil {
		t.Errorf("a message within the budget is refused: %v", err)
	}
	if err := b.Check(over); !errors.Is(err, ErrPromptTooLong) || !strings.Contains(err.Error(), "left for a message") {
		t.Errorf("a message just over the budget: %v", err)
	}
}

// A message refused for a room that would read the same as its size says both exactly: "about
// 12K tokens … about 12K are left" would refuse it for no reason the user can see.
func TestARefusedMessageNeverReadsTheSameSizeAsTheRoomLeft(t *testing.T) {
	for _, c := range []struct {
		err  PromptTooLongError
		want string
	}{
		{PromptTooLongError{Tokens: 12288, NumCtx: 16384, MaxTokens: 12083},
			"This message is about 12,288 tokens; the model's context holds 16K, of which about 12,083 are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less."},
		{PromptTooLongError{Tokens: 33000, NumCtx: 32768, MaxTokens: 30000},
			"This message is about 33,000 tokens; the model's context holds 32,768. Shorten it or attach less."},
		{PromptTooLongError{Tokens: 20000, NumCtx: 32768, MaxTokens: 12083},
			"This message is about 20K tokens; the model's context holds 32K, of which about 12K are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less."},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.err, got, c.want)
		}
	}
}

// The offer to summarize and the cut prompt's sentence compare two counts too: counts that would
// read the same are written exactly.
func TestTheOfferAndTheCutPromptNeverReadTheSameSizeTwice(t *testing.T) {
	offer := OfferSentence(store.SummaryOffer{Messages: 3, Model: "m", Tokens: 32500, NumCtx: 32768})
	if !strings.Contains(offer, "(32,500 of 32,768 tokens)") {
		t.Errorf("the offer: %q", offer)
	}
	if cut := cutPromptSentence(33000, 32768); !strings.Contains(cut, "about 33,000 tokens") || !strings.Contains(cut, "context of 32,768 tokens") {
		t.Errorf("the cut prompt: %q", cut)
	}
	if offer := OfferSentence(store.SummaryOffer{Messages: 1, Model: "m", Tokens: 20000, NumCtx: 32768}); !strings.Contains(offer, "(20K of 32K tokens)") {
		t.Errorf("the offer of counts apart: %q", offer)
	}
}
