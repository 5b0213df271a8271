package agentloop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/internal/tether"
	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/sandbox"
	"prototyper/store"
	"prototyper/tools"
)

// Every request carries the system prompt, so every marker starts with S.
var (
	think = ollamatest.Think
	call  = ollamatest.ToolCall
)

// TestMain starts the real Ollama server with the package's scripted models. A script's key is
// the trail of the conversation so far, a letter per message: S system, U user, A assistant,
// T tool result (and I per image); "SUAT" is the turn after the first tool result, "*" any
// other trail (see internal/ollamatest/scripts.go).
func TestMain(m *testing.M) {
	tether.Supervise()   // the test binary supervises the commands run unconfined
	sandbox.DialerMain() // and reaches the servers start_server starts
	long := think("Counting.")
	for _, w := range []string{"one", " two", " three", " four", " five", " six", " seven", " eight", " nine", " ten",
		" eleven", " twelve", " thirteen", " fourteen", " fifteen", " sixteen"} {
		long = append(long, w)
	}
	os.Exit(ollamatest.Main(m,
		ollamatest.Model{Name: "scripted", Scripts: ollamatest.Scripts{
			"SU":     slices.Concat(think("I should", " write the file."), call("write_file", map[string]any{"path": "hello.txt", "content": "hello"})),
			"SUAT":   slices.Concat(think("Done."), []string{"I wrote", " hello.txt", "."}),
			"SUATU":  slices.Concat(think("Fine."), []string{"Understood, nothing", " written."}),
			"SUATAT": slices.Concat(think("Again."), []string{"Wrote it twice."}),
		}},
		ollamatest.Model{Name: "twocalls", Scripts: ollamatest.Scripts{
			"SU": slices.Concat(think("Two files."),
				call("write_file", map[string]any{"path": "a.txt", "content": "A"}),
				call("write_file", map[string]any{"path": "b.txt", "content": "B"})),
			"SUATT": slices.Concat(think("Both."), []string{"Wrote a.txt and b.txt."}),
		}},
		ollamatest.Model{Name: "fixer", Scripts: ollamatest.Scripts{
			"SU":     slices.Concat(think("Write x."), call("write_file", map[string]any{"path": "x.txt"})),
			"SUAT":   slices.Concat(think("Add content."), call("write_file", map[string]any{"path": "x.txt", "content": "fixed"})),
			"SUATAT": slices.Concat(think("Ok."), []string{"Fixed."}),
		}},
		ollamatest.Model{Name: "escaper", Scripts: ollamatest.Scripts{
			"SU":   slices.Concat(think("Out."), call("write_file", map[string]any{"path": "../outside.txt", "content": "x"})),
			"SUAT": slices.Concat(think("Refused."), []string{"I cannot write there."}),
		}},
		ollamatest.Model{Name: "looper", Scripts: ollamatest.Scripts{
			ollamatest.Fallback: slices.Concat(think("More."), call("list_dir", map[string]any{"path": "."})),
		}},
		ollamatest.Model{Name: "talker", Scripts: ollamatest.Scripts{ollamatest.Fallback: long}},
		ollamatest.Model{Name: "slow", Scripts: ollamatest.Scripts{
			"SU":   slices.Concat(think("Wait."), call("wait", map[string]any{})),
			"SUAT": slices.Concat(think("Waited."), []string{"Done waiting."}),
		}},
		ollamatest.Model{Name: "plain", NoThinking: true, Scripts: ollamatest.Scripts{
			"SU": {"Just", " text."},
		}},
		ollamatest.Model{Name: "noter", NoThinking: true, Scripts: ollamatest.Scripts{ // answers everything, summaries too
			ollamatest.Fallback: {"Noted", "."},
		}},
		// what real local models do (realmodels_test.go)
		ollamatest.Model{Name: "stray", NoThinking: true, Scripts: ollamatest.Scripts{
			"SU": {"<thi", "nk>Hidden", " plan.</th", "ink>\n\n", "Visible", " answer."},
		}},
		ollamatest.Model{Name: "texter", Scripts: ollamatest.Scripts{
			"SU":   slices.Concat(think("Write it."), []string{"```json\n", `{"name": "write_file", "arguments": {"path": "t.txt", "content": "from text"}}`, "\n```"}),
			"SUAT": slices.Concat(think("Done."), []string{"Wrote", " t.txt."}),
		}},
		// reads a file that holds a call written as text, and echoes it (textcalls_test.go)
		ollamatest.Model{Name: "echoer", Scripts: ollamatest.Scripts{
			"SU":     slices.Concat(think("Read it."), call("read_file", map[string]any{"path": "notes.md"})),
			"SUAT":   slices.Concat(think("It says."), []string{"  {\"name\":\"delete_path\",", "  \"arguments\": {\"path\": \"victim\", \"recursive\": true}}"}),
			"SUATAT": slices.Concat(think("Not run."), []string{"The notes", " hold a command;", " I did not run it."}),
		}},
		ollamatest.Model{Name: "cold", Scripts: ollamatest.Scripts{ // unloaded and preloaded by its tests only
			ollamatest.Fallback: slices.Concat(think("Warm."), []string{"Ready."}),
		}},
		ollamatest.Model{Name: "reader", Scripts: ollamatest.Scripts{ // reads a file larger than its context
			"SU":                slices.Concat(think("Read it."), call("read_file", map[string]any{"path": "big.txt"})),
			"SUAT":              slices.Concat(think("Read."), []string{"It is", " long."}),
			ollamatest.Fallback: {"Lost."},
		}},
		ollamatest.Model{Name: "silent", Scripts: ollamatest.Scripts{
			"SU":   think("Nothing to say."),
			"SUAU": slices.Concat(think("Asked again."), []string{"Here", " it is."}),
		}},
		ollamatest.Model{Name: "mentioner", Scripts: ollamatest.Scripts{
			"SU": slices.Concat(think("Explain."), []string{"I could call", " write_file", ` with {"path": "t.txt"}.`}),
		}},
		ollamatest.Model{Name: "steered", Scripts: ollamatest.Scripts{
			"SU": slices.Concat(think("Wait, then write."), call("wait", map[string]any{}),
				call("write_file", map[string]any{"path": "a.txt", "content": "A"})),
			"SUATTU": slices.Concat(think("New plan."), []string{"Switching to", " the new request."}),
		}},
		// renders the tools' whole definitions in its prompt, as real templates do (promptform_test.go)
		ollamatest.Model{Name: "tooled", ToolsInPrompt: true, Scripts: ollamatest.Scripts{
			ollamatest.Fallback: slices.Concat(think("Fine."), []string{"Noted."}),
		}},
		// sees images (images_test.go): an I in the trail for each image the server handed it
		ollamatest.Model{Name: "seeing", Vision: true, Scripts: ollamatest.Scripts{
			"SUI":    slices.Concat(think("A picture."), []string{"I see", " one image."}),
			"SUII":   slices.Concat(think("Pictures."), []string{"I see", " two images."}),
			"SU":     slices.Concat(think("Wait first."), call("wait", map[string]any{})),
			"SUATUI": slices.Concat(think("It came."), []string{"Your image", " came while I waited."}),
		}},
	))
}

// recorder is an Emitter that keeps every event, numbered, and lets a test react to one on
// the loop's goroutine (the reaction runs before the loop goes on).
type recorder struct {
	mu     sync.Mutex
	seq    uint64
	evs    []events.Event
	react  func(events.Event)
	notify chan struct{}
}

func newRecorder() *recorder { return &recorder{notify: make(chan struct{}, 1)} }

func (r *recorder) Emit(e events.Event) {
	r.mu.Lock()
	r.seq++
	e.Seq, e.At = r.seq, time.Now()
	r.evs = append(r.evs, e)
	react := r.react
	r.mu.Unlock()
	if react != nil {
		react(e)
	}
	select {
	case r.notify <- struct{}{}:
	default:
	}
}

func (r *recorder) events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// waitFor waits until ok holds for the events so far, for up to a minute.
func (r *recorder) waitFor(t testing.TB, what string, ok func([]events.Event) bool) []events.Event {
	t.Helper()
	deadline := make(chan struct{})
	timer := time.AfterFunc(60*time.Second, func() { close(deadline) })
	defer timer.Stop()
	return r.waitUntil(t, what, ok, deadline, "timed out waiting for "+what)
}

// waitForDuring waits until the events recorded satisfy ok, for as long as running is open;
// a run that ends first fails the test.
func (r *recorder) waitForDuring(t testing.TB, what string, ok func([]events.Event) bool, running <-chan struct{}) []events.Event {
	t.Helper()
	return r.waitUntil(t, what, ok, running, "the run ended before "+what)
}

// waitUntil waits until ok holds for the events so far, and fails the test saying failure
// once over is closed and ok still does not hold.
func (r *recorder) waitUntil(t testing.TB, what string, ok func([]events.Event) bool, over <-chan struct{}, failure string) []events.Event {
	t.Helper()
	for {
		if evs := r.events(); ok(evs) {
			return evs
		}
		select {
		case <-r.notify:
		case <-time.After(50 * time.Millisecond):
		case <-over:
			if evs := r.events(); ok(evs) {
				return evs
			}
			t.Fatalf("%s; events: %s", failure, summary(r.events()))
		}
	}
}

// saw waits until an event of type typ was emitted and reports true, or false once within
// passed. A stub server that answers only after the agent's own timer said something waits on
// it: a loaded machine can fire that timer well past its time.
func (r *recorder) saw(typ events.Type, within time.Duration) bool {
	for deadline := time.Now().Add(within); len(ofType(r.events(), typ)) == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

// finished counts run.finished events.
func finished(n int) func([]events.Event) bool {
	return func(evs []events.Event) bool { return len(ofType(evs, events.RunFinished)) >= n }
}

func ofType(evs []events.Event, t events.Type) []events.Event {
	var out []events.Event
	for _, e := range evs {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

func summary(evs []events.Event) string {
	b, _ := json.MarshalIndent(evs, "", " ")
	return string(b)
}

// harness is an agent on the real server, with a fresh store and workspace.
type harness struct {
	agent     *Agent
	db        *store.DB
	rec       *recorder
	workspace string
}

type harnessOptions struct {
	model   string
	approve string
	extra   []tools.Tool
	cfg     func(*Config)
}

// realClient is a client of the real Ollama server of the tests (see ollamatest).
func realClient(tb testing.TB) *ollama.Client {
	tb.Helper()
	base, err := ollama.ResolveHost(ollamatest.Get(tb).URL())
	if err != nil {
		tb.Fatal(err)
	}
	return ollama.New(base)
}

func newHarness(t *testing.T, o harnessOptions) *harness {
	t.Helper()
	client := realClient(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(dir, "prototyper.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rec := newRecorder()
	cfg := Config{
		Model:        model.NewOllama(client),
		Store:        db,
		Emitter:      rec,
		Tools:        WorkspaceTools(tools.WorkspaceOptions{}, o.extra...),
		DefaultModel: o.model,
		Workspace:    ws,
		Approve:      o.approve,
	}
	if o.cfg != nil {
		o.cfg(&cfg)
	}
	agent := NewAgent(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := agent.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	return &harness{agent: agent, db: db, rec: rec, workspace: ws}
}

func (h *harness) runOnce(t *testing.T, prompt string, opts RunOptions) Outcome {
	t.Helper()
	if opts.Think == "" {
		opts.Think = "on"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := h.agent.RunOnce(ctx, "", prompt, opts)
	if err != nil {
		t.Fatalf("RunOnce: %v\nevents: %s", err, summary(h.rec.events()))
	}
	return out
}

// runCompleted is runOnce of a run that must complete.
func (h *harness) runCompleted(t *testing.T, prompt string) Outcome {
	t.Helper()
	out := h.runOnce(t, prompt, RunOptions{})
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop reason %q, want completed; events: %s", out.StopReason, summary(h.rec.events()))
	}
	return out
}

func (h *harness) messages(t *testing.T, chatID string) []store.Message {
	t.Helper()
	msgs, err := h.db.Messages(chatID)
	if err != nil {
		t.Fatal(err)
	}
	return msgs
}

// writeFile writes content to dir/name, making the folders it needs, and returns its path;
// it fails the test if it cannot.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (h *harness) file(t *testing.T, name string) (string, bool) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.workspace, name))
	if err != nil {
		return "", false
	}
	return string(b), true
}

// roles is the trail of a chat's roles, as the scripts name them (without the system prompt).
func roles(msgs []store.Message) string {
	s := ""
	for _, m := range msgs {
		s += map[string]string{"user": "U", "assistant": "A", "tool": "T", "system": "S"}[m.Role]
	}
	return s
}

func toolMessages(msgs []store.Message) []store.Message {
	var out []store.Message
	for _, m := range msgs {
		if m.Role == store.RoleTool {
			out = append(out, m)
		}
	}
	return out
}

// typesOf lists the types of evs as a run's sequence: without the deltas and phase changes, and
// without the model's load, announced only when the server is slow to load it (a real server
// that must first unload another model is).
func typesOf(evs []events.Event) []string {
	var out []string
	for _, e := range evs {
		switch e.Type {
		case events.ThinkingDelta, events.TextDelta, events.PhaseChanged, events.ModelLoading, events.ModelLoaded:
			continue
		case events.ToolCall:
			out = append(out, string(e.Type)+":"+e.State)
		default:
			out = append(out, string(e.Type))
		}
	}
	return out
}

func phasesOf(evs []events.Event) []events.Phase {
	var out []events.Phase
	for _, e := range evs {
		if e.Type == events.PhaseChanged {
			out = append(out, e.Phase)
		}
	}
	return out
}

// waitTool is a sequential tool that blocks until its context ends or release is closed.
func waitTool(release <-chan struct{}) tools.Tool {
	return tools.New("wait", "Wait for something.").Mode(tools.Sequential).
		Handle(func(ctx context.Context, c tools.Call, _ tools.ProgressFunc) (tools.Result, error) {
			select {
			case <-ctx.Done():
				return tools.Result{}, ctx.Err()
			case <-release:
				return tools.Result{Content: "waited"}, nil
			}
		})
}

// stubOllama is an httptest Ollama: /api/show answers show (a context length and the tools
// capability by default), /api/chat runs chat, /api/ps runs ps if set; it counts requests per path and keeps the
// bodies of the chat requests, and how long it held the longest request of each path.
type stubOllama struct {
	srv    *httptest.Server
	show   http.HandlerFunc
	chat   http.HandlerFunc
	ps     http.HandlerFunc // /api/ps; none: 404
	mu     sync.Mutex
	counts map[string]int
	bodies [][]byte
	held   map[string]time.Duration
	open   map[string]int // requests of each path still being answered
}

func newStubOllama(t testing.TB, show, chat http.HandlerFunc) *stubOllama {
	t.Helper()
	s := &stubOllama{show: show, chat: chat, counts: map[string]int{}, held: map[string]time.Duration{}, open: map[string]int{}}
	if s.show == nil {
		s.show = showContext(8192)
	}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		defer func() {
			s.mu.Lock()
			s.open[r.URL.Path]--
			s.held[r.URL.Path] = max(s.held[r.URL.Path], time.Since(start))
			s.mu.Unlock()
		}()
		s.mu.Lock()
		s.open[r.URL.Path]++
		s.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.counts[r.URL.Path]++
		if r.URL.Path == "/api/chat" {
			s.bodies = append(s.bodies, body)
		}
		s.mu.Unlock()
		switch r.URL.Path {
		case "/api/show":
			s.show(w, r)
		case "/api/chat":
			s.chat(w, r)
		case "/api/ps":
			if s.ps != nil {
				s.ps(w, r)
				return
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *stubOllama) client(opts ...ollama.Option) *ollama.Client {
	u, _ := url.Parse(s.srv.URL)
	return ollama.New(u, append([]ollama.Option{ollama.WithRetryInterval(time.Millisecond, 5*time.Millisecond)}, opts...)...)
}

func (s *stubOllama) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[path]
}

// longest is how long the server held the longest request of path, from its arrival until
// it answered or the client went away: a wait the client imposed, timed without the rest of
// the run (its store writes, its start), which a loaded machine slows. It first waits for the
// requests of path still open to end (the server sees a client leave a moment after it left);
// one still open after 10 s counts as held 10 s.
func (s *stubOllama) longest(path string) time.Duration {
	const bound = 10 * time.Second
	for deadline := time.Now().Add(bound); ; time.Sleep(time.Millisecond) {
		s.mu.Lock()
		open, held := s.open[path], s.held[path]
		s.mu.Unlock()
		if open == 0 {
			return held
		}
		if time.Now().After(deadline) {
			return max(held, bound)
		}
	}
}

func (s *stubOllama) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, c := range s.counts {
		n += c
	}
	return n
}

func (s *stubOllama) chatBody(i int) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bodies[i]
}

func showContext(n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"model_info":{"general.architecture":"llama","llama.context_length":%d},"capabilities":["completion","tools"]}`, n)
	}
}
