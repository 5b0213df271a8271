package agentloop

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// requestNoter is a model that notes when each request reached it and answers at once.
type requestNoter struct {
	asked chan time.Time
}

func (m *requestNoter) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m *requestNoter) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	m.asked <- time.Now()
	t := answer("ok")
	return t, fn(model.Delta{Content: t.Content})
}

// BenchmarkSendUntilTheRequest measures what the loop does between a message sent to a chat
// that already has turns (Send) and its request handed to the model: the user's message
// committed, the run started and recorded, the history read, the prompt fitted. The model
// answers at once; only Send → request is timed (ms/request), on a real store (bbolt, fsync
// per commit).
func BenchmarkSendUntilTheRequest(b *testing.B) {
	m := &requestNoter{asked: make(chan time.Time, 1)}
	done := make(chan struct{}, 1)
	a, _, _ := fakeHarness(b, m, func(c *Config) {
		c.Emitter = EmitterFunc(func(e events.Event) {
			if e.Type == events.RunFinished {
				done <- struct{}{}
			}
		})
	})
	chatID, err := a.SendNew(context.Background(), store.Chat{}, "first")
	if err != nil {
		b.Fatal(err)
	}
	<-m.asked
	<-done
	var total, sent time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := a.Send(context.Background(), chatID, "again"); err != nil {
			b.Fatal(err)
		}
		sent += time.Since(start)
		total += (<-m.asked).Sub(start)
		<-done
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/request")
	b.ReportMetric(float64(sent.Microseconds())/1000/float64(b.N), "ms/send")
}

// writeCounter counts the store's commits of a run start and of a message append.
type writeCounter struct {
	*store.DB
	mu       sync.Mutex
	starts   int
	appended int
}

func (w *writeCounter) StartRunWith(r store.Run, msgs ...store.Message) (store.Run, []store.Message, error) {
	w.mu.Lock()
	w.starts++
	w.mu.Unlock()
	return w.DB.StartRunWith(r, msgs...)
}

func (w *writeCounter) AppendMessage(chatID string, m store.Message) (store.Message, error) {
	w.mu.Lock()
	w.appended++
	w.mu.Unlock()
	return w.DB.AppendMessage(chatID, m)
}

func TestAMessageIsCommittedWithItsRunInOneWriteBeforeSendReturns(t *testing.T) {
	m := &requestNoter{asked: make(chan time.Time, 1)}
	w := &writeCounter{}
	a, db, _ := fakeHarness(t, m, func(c *Config) {
		w.DB = c.Store.(*store.DB)
		c.Store = w
	})
	chat, err := db.CreateChat(store.Chat{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), chat.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	starts, appended := w.starts, w.appended
	w.mu.Unlock()
	if starts != 1 || appended != 0 {
		t.Errorf("Send committed %d run starts and %d separate messages, want one commit holding both", starts, appended)
	}
	msgs, err := db.Messages(chat.ID)
	if err != nil || len(msgs) == 0 || msgs[0].Role != store.RoleUser || msgs[0].Content != "hello" || msgs[0].RunID == "" {
		t.Errorf("stored = %+v, %v; want the user's message, of its run, when Send returned", msgs, err)
	}
	<-m.asked
}

// askedFirst is a model whose server answers whether a model is loaded only once the chat
// request reached it (or the question timed out): a server slow to say.
type askedFirst struct {
	requested chan struct{} // closed by the first request
	once      sync.Once
	mu        sync.Mutex
	sawChat   bool // Loaded returned because the request came, not because it gave up
}

func (m *askedFirst) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m *askedFirst) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	m.once.Do(func() { close(m.requested) })
	t := answer("ok")
	return t, fn(model.Delta{Content: t.Content})
}

func (m *askedFirst) Loaded(ctx context.Context, _ string) (loaded, known bool) {
	select {
	case <-m.requested:
		m.mu.Lock()
		m.sawChat = true
		m.mu.Unlock()
		return false, true
	case <-ctx.Done():
		return false, false
	}
}

func (m *askedFirst) Preload(context.Context, string, int, time.Duration) (time.Duration, error) {
	return 0, nil
}

func TestTheRequestWaitsForNoAnswerWhetherTheModelIsLoadedAndALoadIsStillAnnouncedFirst(t *testing.T) {
	m := &askedFirst{requested: make(chan struct{})}
	a, _, rec := fakeHarness(t, m, nil)
	runFake(t, a, "hi")
	m.mu.Lock()
	saw := m.sawChat
	m.mu.Unlock()
	if !saw {
		t.Fatal("the request went only after the question whether the model is loaded gave up")
	}
	var order []events.Type
	for _, e := range rec.events() {
		if e.Type == events.ModelLoading || e.Type == events.TextDelta {
			order = append(order, e.Type)
		}
	}
	if len(order) == 0 || order[0] != events.ModelLoading {
		t.Errorf("events = %v, want model.loading before the answer's text", order)
	}
}

// BenchmarkSendUntilTheRequestReachesTheServer measures the path of the window's Send to a
// chat that already has turns (a few, and a thousand messages; each send adds two), in a
// workspace folder with the app's toolbox, to a scripted Ollama that says the model is loaded:
// from Send to the chat request at the server's door (ms/request), and Send's own return
// (ms/send). What the run needs is opened and read once, as the message is admitted, and the
// question whether the model is loaded travels meanwhile.
func BenchmarkSendUntilTheRequestReachesTheServer(b *testing.B) {
	for _, size := range []int{2, 1000} {
		b.Run(fmt.Sprintf("history=%d", size), func(b *testing.B) { benchSendToServer(b, size) })
	}
}

func benchSendToServer(b *testing.B, history int) {
	arrived := make(chan time.Time, 1)
	s := newStubOllama(b, showContext(1<<20), func(w http.ResponseWriter, r *http.Request) {
		arrived <- time.Now()
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`)
	})
	s.ps = func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"models":[{"name":"fake:latest","model":"fake:latest"}]}`)
	}
	ws := b.TempDir()
	writeFile(b, ws, ProjectInstructionsFile, "Answer briefly.")
	done := make(chan struct{}, 1)
	a, db, _ := fakeHarness(b, model.NewOllama(s.client()), func(c *Config) {
		c.Workspace = ws
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
		c.Emitter = EmitterFunc(func(e events.Event) {
			if e.Type == events.RunFinished {
				done <- struct{}{}
			}
		})
	})
	// room for the whole history: no turn is left out, none offered for a summary
	if err := db.PutSettings(store.Settings{ContextCap: 256 << 10}); err != nil {
		b.Fatal(err)
	}
	chat, err := db.CreateChat(store.Chat{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	if history > 2 { // earlier turns, stored as a run of them
		var msgs []store.Message
		for i := range history - 2 {
			role := store.RoleUser
			if i%2 == 1 {
				role = store.RoleAssistant
			}
			msgs = append(msgs, store.Message{Role: role, Content: fmt.Sprintf("turn %d: %s", i, strings.Repeat("words ", 80)), Complete: true})
		}
		rec, _, err := db.StartRunWith(store.Run{ID: db.NewRunID(), ChatID: chat.ID, Model: "fake"}, msgs...)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.FinishRun(rec.ID, events.StopCompleted, nil); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := a.Send(context.Background(), chat.ID, "first"); err != nil {
		b.Fatal(err)
	}
	<-arrived
	<-done
	var total, sent time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := a.Send(context.Background(), chat.ID, "again"); err != nil {
			b.Fatal(err)
		}
		sent += time.Since(start)
		total += (<-arrived).Sub(start)
		<-done
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/request")
	b.ReportMetric(float64(sent.Microseconds())/1000/float64(b.N), "ms/send")
}
