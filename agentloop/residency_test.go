package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/store"
)

// psStub is a stub Ollama whose /api/ps lists loaded (or answers 500 when broken) and whose
// /api/chat answers after delay, or once until returns when it is set; it keeps the chat bodies.
type psStub struct {
	*stubOllama
	loaded []string
	broken bool
	delay  time.Duration
	until  func()
}

func newPsStub(t *testing.T, loaded ...string) *psStub {
	s := &psStub{loaded: loaded}
	s.stubOllama = newStubOllama(t, nil, func(w http.ResponseWriter, r *http.Request) {
		if s.until != nil {
			s.until()
		} else {
			time.Sleep(s.delay)
		}
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop","load_duration":2500000000}`)
	})
	s.ps = func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.broken {
			http.Error(w, `{"error":"boom"}`, http.StatusInternalServerError)
			return
		}
		var models []map[string]any
		for _, m := range s.loaded {
			models = append(models, map[string]any{"name": m, "model": m})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"models": models})
	}
	return s
}

func (s *psStub) client() *ollama.Client {
	return s.stubOllama.client(ollama.WithRetry(1, time.Second))
}

func TestAModelTheServerHasNotLoadedIsAnnouncedAtOnce(t *testing.T) {
	s := newPsStub(t, "other:latest")
	a, _, rec := fakeHarness(t, model.NewOllama(s.client()), nil)
	runFake(t, a, "hi")
	evs := rec.events()
	loading, loaded := ofType(evs, events.ModelLoading), ofType(evs, events.ModelLoaded)
	if len(loading) != 1 || len(loaded) != 1 || *loaded[0].LoadMs != 2500 {
		t.Fatalf("a quick answer of a model not in memory: loading %s loaded %s", summary(loading), summary(loaded))
	}
}

func TestALoadedModelIsNotAnnouncedEvenWhenItIsSlow(t *testing.T) {
	s := newPsStub(t, "fake:latest")
	s.delay = 1300 * time.Millisecond
	a, _, rec := fakeHarness(t, model.NewOllama(s.client()), nil)
	runFake(t, a, "hi")
	runFake(t, a, "again") // the model answered last: its request does not wait for /api/ps
	if n := len(ofType(rec.events(), events.ModelLoading)); n != 0 {
		t.Fatalf("%d model.loading for a model /api/ps lists", n)
	}
}

func TestWithoutAnAnswerFromPsASlowFirstByteIsStillAnnounced(t *testing.T) {
	s := newPsStub(t)
	a, _, rec := fakeHarness(t, model.NewOllama(s.client()), nil)
	// slower than LoadingNotice, however late a loaded machine fires its timer
	s.broken, s.until = true, func() { rec.saw(events.ModelLoading, 30*time.Second) }
	runFake(t, a, "hi")
	if n := len(ofType(rec.events(), events.ModelLoading)); n != 1 {
		t.Fatalf("%d model.loading events, want the one after a second", n)
	}
}

func TestEveryRequestCarriesTheKeepAliveOfTheSettings(t *testing.T) {
	s := newPsStub(t, "fake:latest")
	a, db, _ := fakeHarness(t, model.NewOllama(s.client()), nil)
	runFake(t, a, "hi")
	settings, _ := db.Settings()
	settings.KeepAliveMin = -1
	if err := db.PutSettings(settings); err != nil {
		t.Fatal(err)
	}
	runFake(t, a, "again")
	var got []string
	for _, b := range s.bodies {
		var req struct {
			KeepAlive string `json:"keep_alive"`
		}
		_ = json.Unmarshal(b, &req)
		got = append(got, req.KeepAlive)
	}
	if fmt.Sprint(got) != "[30m0s -1s]" {
		t.Fatalf("keep_alive of the requests %q, want the default 30m, then forever", got)
	}
}

// coldModel is the scripted model the preload tests unload and load; no other test uses it.
const coldModel = "cold"

// unload asks the server to drop model from memory and waits until /api/ps no longer lists it.
func unload(tb testing.TB, client *ollama.Client, model string) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.Load(ctx, model, ollama.KeepAliveFor(0), nil); err != nil {
		tb.Fatal(err)
	}
	for {
		loaded, err := client.IsLoaded(ctx, model)
		if err != nil {
			tb.Fatal(err)
		}
		if !loaded {
			return
		}
		select {
		case <-ctx.Done():
			tb.Fatalf("%s still loaded", model)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestPreloadingAModelSpareTheFirstRequestItsLoadOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: coldModel})
	client := realClient(t)

	unload(t, client, coldModel)
	h.runCompleted(t, "hi")
	loaded := ofType(h.rec.events(), events.ModelLoaded)
	if len(ofType(h.rec.events(), events.ModelLoading)) != 1 || len(loaded) != 1 || *loaded[0].LoadMs <= 0 {
		t.Fatalf("a cold model: loading events %s", summary(append(ofType(h.rec.events(), events.ModelLoading), loaded...)))
	}

	unload(t, client, coldModel)
	took, err := h.agent.Preload(context.Background(), coldModel)
	if err != nil || took <= 0 {
		t.Fatalf("preload: %v after %v", err, took)
	}
	before := len(h.rec.events())
	h.runCompleted(t, "hi again")
	after := h.rec.events()[before:]
	if n := len(ofType(after, events.ModelLoading)) + len(ofType(after, events.ModelLoaded)); n != 0 {
		t.Fatalf("the first request after a preload announced a load: %s", summary(after))
	}
}

// BenchmarkFirstTokenOfAColdModel compares the wait for the first token of a model that is
// not in memory, asked at once (cold) or after a preload (what picking a model in the
// window does). The load and the preload are not timed: only the message's wait is.
func BenchmarkFirstTokenOfAColdModel(b *testing.B) {
	client := realClient(b)
	modelName := model.NewOllama(client)
	req := model.Request{Model: coldModel, Think: "on", NumCtx: 2048,
		Messages: []store.Message{{Role: store.RoleSystem, Content: "s"}, {Role: store.RoleUser, Content: "hi"}}}
	firstToken := func(b *testing.B) time.Duration {
		start := time.Now()
		var first time.Duration
		_, err := modelName.Chat(context.Background(), req, func(d model.Delta) error {
			if first == 0 && (d.Thinking != "" || d.Content != "") {
				first = time.Since(start)
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return first
	}
	for _, preload := range []bool{false, true} {
		name := map[bool]string{false: "cold", true: "preloaded"}[preload]
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for range b.N {
				b.StopTimer()
				unload(b, client, coldModel)
				if preload {
					if _, err := modelName.Preload(context.Background(), coldModel, req.NumCtx, time.Minute); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				total += firstToken(b)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/first-token")
		})
	}
}

// slowToSay is a model whose server says whether a model is loaded only once the chat request
// of the question's message reached it (or the question gave up): a request that waits for the
// answer waits in vain. It says the model is loaded. The n-th question belongs to the n-th
// request, whichever of the two the scheduler starts first.
type slowToSay struct {
	admissionModel
	mu    sync.Mutex
	chats int           // chat requests so far
	next  chan struct{} // closed by the next chat request
	saw   []bool        // per question: its chat request came before it was answered
}

func (m *slowToSay) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	m.mu.Lock()
	m.chats++
	close(m.next)
	m.next = make(chan struct{})
	m.mu.Unlock()
	return m.admissionModel.Chat(ctx, req, fn)
}

func (m *slowToSay) Loaded(ctx context.Context, _ string) (loaded, known bool) {
	m.mu.Lock()
	i := len(m.saw)
	m.saw = append(m.saw, false)
	m.mu.Unlock()
	for {
		m.mu.Lock()
		came, next := m.chats > i, m.next
		if came {
			m.saw[i] = true
		}
		m.mu.Unlock()
		if came {
			return true, true
		}
		select {
		case <-next:
		case <-ctx.Done():
			return false, false
		}
	}
}

func (m *slowToSay) Preload(context.Context, string, int, time.Duration) (time.Duration, error) {
	return 0, nil
}

// A model loaded a moment ago (preloaded, or it answered the last request, with the same
// context) is asked at once: the request does not wait for the server's word on it.
func TestARequestToTheModelThatAnsweredLastDoesNotWaitForTheServersWordThatItIsLoaded(t *testing.T) {
	defer func(d time.Duration) { residencyAhead = d }(residencyAhead)
	residencyAhead = time.Minute // a request that waits, waits until the question gives up
	m := &slowToSay{next: make(chan struct{})}
	a, db, rec, _, ws := admissionHarness(t, m, nil)
	if _, err := a.Preload(context.Background(), "fake"); err != nil {
		t.Fatal(err)
	}
	chat, err := db.CreateChat(store.Chat{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"after the preload", "after an answer"} {
		if _, err := a.Send(context.Background(), chat.ID, text); err != nil {
			t.Fatal(err)
		}
		rec.waitFor(t, "the run's end", finished(i+1))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.saw) != 2 || !m.saw[0] || !m.saw[1] {
		t.Errorf("per request, it went while the server's word was awaited: %v; want both to go at once", m.saw)
	}
	if loads := ofType(rec.events(), events.ModelLoading); len(loads) != 0 {
		t.Errorf("a load was announced for a loaded model: %v", loads)
	}
}
