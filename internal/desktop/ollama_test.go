package desktop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/internal/cli"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// openDesktopWith opens a Desktop on url with the given settings saved first.
func openDesktopWith(t *testing.T, url string, settings store.Settings) (*Desktop, func() error) {
	t.Helper()
	dbPath := filepath.Join(t.TempDir(), "data", "prototyper.db")
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.PutSettings(settings); err != nil {
		t.Fatal(err)
	}
	db.Close()
	d, err := OpenDesktop(cli.DesktopOptions{Common: cli.Common{Ollama: url, DB: dbPath}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	closeDesk := func() error {
		if closed {
			return nil
		}
		closed = true
		return d.Close()
	}
	t.Cleanup(func() { _ = closeDesk() })
	return d, closeDesk
}

func TestTheWindowStartsOllamaWhereNothingAnswersAndStopsItWhenItCloses(t *testing.T) {
	bin := ollamatest.Binary(t)
	// Nothing on PATH: the program comes from the settings' path.
	t.Setenv("PATH", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("OLLAMA_MODELS", filepath.Join(t.TempDir(), "models"))
	url := ollamatest.FreeURL(t)
	d, closeDesk := openDesktopWith(t, url, store.Settings{OllamaBinary: bin})

	st := d.OllamaStatus(context.Background())
	if !st.Running || !st.StartedByApp || st.StartError != "" {
		t.Fatalf("status = %+v; want Ollama running, started by the app", st)
	}
	if filepath.Dir(st.LogPath) != filepath.Dir(d.DBPath()) {
		t.Errorf("server log at %s; want it in the app's data folder %s", st.LogPath, filepath.Dir(d.DBPath()))
	}
	if again := d.OllamaStatus(context.Background()); !again.StartedByApp {
		t.Errorf("the second status = %+v; want the same server, started by the app", again)
	}
	if err := closeDesk(); err != nil {
		t.Fatal(err)
	}
	if ollamatest.Answers(url) {
		t.Errorf("the server the app started still answers at %s after the app closed", url)
	}
}

func TestTheWindowUsesAServerThatAnswersAndNeverStopsIt(t *testing.T) {
	users := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"version":"0.11.4"}`))
	}))
	defer users.Close()
	d, closeDesk := openDesktopWith(t, users.URL, store.Settings{})
	if st := d.OllamaStatus(context.Background()); !st.Running || st.StartedByApp || st.StartError != "" {
		t.Errorf("status = %+v; want the user's server, running", st)
	}
	if err := closeDesk(); err != nil {
		t.Fatal(err)
	}
	if !ollamatest.Answers(users.URL) {
		t.Error("the user's server stopped answering when the app closed")
	}
}

func TestTheWindowStartsNoServerWhenTheSettingsSaySo(t *testing.T) {
	url := ollamatest.FreeURL(t)
	d, _ := openDesktopWith(t, url, store.Settings{ManualOllama: true})
	st := d.OllamaStatus(context.Background())
	if st.Running || st.StartedByApp || st.StartError != "" || !strings.Contains(st.Error, "ollama serve") {
		t.Errorf("status = %+v; want not running, nothing started, and how to start it", st)
	}
	if c, _ := d.Config(); c.Saved.StartsOllama() {
		t.Error("Config says the window starts Ollama")
	}
}

func TestAServerThatCannotStartIsOneSentenceInTheStatus(t *testing.T) {
	t.Setenv("PATH", "")
	// A program that fails the way Ollama does when its port is taken.
	bin := filepath.Join(t.TempDir(), "ollama")
	writeExecutable(t, bin, "#!/bin/sh\necho 'Error: listen tcp 127.0.0.1:1: bind: permission denied' >&2\nexit 1\n")
	d, _ := openDesktopWith(t, ollamatest.FreeURL(t), store.Settings{OllamaBinary: bin})
	st := d.OllamaStatus(context.Background())
	if st.Running || !strings.Contains(st.StartError, "bind: permission denied") || strings.Contains(st.StartError, "\n") || st.LogPath == "" {
		t.Errorf("status = %+v; want one sentence ending with the log's last line, and the log's path", st)
	}
}

func writeExecutable(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestTurningStartingOffStopsTheServerTheWindowStarted(t *testing.T) {
	bin := ollamatest.Binary(t)
	t.Setenv("PATH", "")
	t.Setenv("HOME", t.TempDir())
	url := ollamatest.FreeURL(t)
	d, _ := openDesktopWith(t, url, store.Settings{OllamaBinary: bin})
	if st := d.OllamaStatus(context.Background()); !st.StartedByApp {
		t.Fatalf("status = %+v; want a server started by the app", st)
	}
	c, err := d.Config()
	if err != nil || !c.Saved.StartsOllama() || c.Saved.OllamaBinary != bin {
		t.Fatalf("Config = %+v, %v; want starting on, with the program set", c.Saved, err)
	}
	c.Saved.ManualOllama = true
	if err := d.SaveSettings(c.Saved); err != nil {
		t.Fatal(err)
	}
	if ollamatest.Answers(url) {
		t.Errorf("the server the window started still answers at %s once starting was turned off", url)
	}
}

// loadingOllama is an Ollama that sends each load asked of it (/api/generate) to loads, as
// "MODEL KEEPALIVE num_ctx=N".
func loadingOllama(loads chan<- string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/version":
			fmt.Fprint(w, `{"version":"0.11.4"}`)
		case "/api/show":
			fmt.Fprint(w, `{"model_info":{"general.architecture":"llama","llama.context_length":4096},"capabilities":["completion","tools"]}`)
		case "/api/generate":
			var req struct {
				Model     string         `json:"model"`
				KeepAlive string         `json:"keep_alive"`
				Options   map[string]int `json:"options"`
			}
			_ = json.NewDecoder(r.Body).Decode(&req)
			loads <- fmt.Sprintf("%s %s num_ctx=%d", req.Model, req.KeepAlive, req.Options["num_ctx"])
			fmt.Fprint(w, `{"model":"m","response":"","done":true,"done_reason":"load"}`)
		default:
			http.NotFound(w, r)
		}
	})
}

// nextLoad is the next load loads receives, failing t after 5 s.
func nextLoad(t *testing.T, loads <-chan string) string {
	t.Helper()
	select {
	case l := <-loads:
		return l
	case <-time.After(5 * time.Second):
		t.Fatal("no model was loaded")
		return ""
	}
}

func TestPickingAModelAndStartingWithOneLoadItOnTheServer(t *testing.T) {
	loads := make(chan string, 4)
	srv := httptest.NewServer(loadingOllama(loads))
	t.Cleanup(srv.Close)
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: srv.URL}, Model: "first"})
	next := func() string { return nextLoad(t, loads) }
	if got := next(); got != "first 30m0s num_ctx=4096" {
		t.Fatalf("at start: %q", got)
	}
	if err := d.SetModel("second"); err != nil {
		t.Fatal(err)
	}
	if got := next(); got != "second 30m0s num_ctx=4096" {
		t.Fatalf("after picking: %q", got)
	}
}

func TestTheModelTheWindowStartsWithIsLoadedOnceRetryFindsTheServer(t *testing.T) {
	addr := ollamatest.FreeURL(t)
	d, _ := openDesktopWith(t, addr, store.Settings{ManualOllama: true, DefaultModel: "first"})
	if st := d.OllamaStatus(context.Background()); st.Running {
		t.Fatalf("status = %+v; want nothing running yet", st)
	}

	// The user starts Ollama at that address, then presses Retry.
	loads := make(chan string, 4)
	u, _ := url.Parse(addr)
	listener, err := net.Listen("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	users := httptest.NewUnstartedServer(loadingOllama(loads))
	users.Listener.Close()
	users.Listener = listener
	users.Start()
	t.Cleanup(users.Close)
	if st := d.OllamaStatus(context.Background()); !st.Running {
		t.Fatalf("status after Retry = %+v; want the user's server running", st)
	}
	if got := nextLoad(t, loads); got != "first 30m0s num_ctx=4096" {
		t.Fatalf("the load once the server answered: %q", got)
	}
	select {
	case again := <-loads:
		t.Errorf("the model was loaded again: %q", again)
	case <-time.After(500 * time.Millisecond):
	}
}

// arrivals is the set of models that have arrived on the server of [arrivals.ollama].
type arrivals struct {
	mu     sync.Mutex
	models map[string]bool
}

func (a *arrivals) arrive(model string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.models == nil {
		a.models = map[string]bool{}
	}
	a.models[model] = true
}

func (a *arrivals) has(model string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.models[model]
}

// ollama is [loadingOllama] for the models that have arrived, which it lists; of any other it
// answers as Ollama does, HTTP 404, and sends its name to missed. A pull makes its model
// arrive.
func (a *arrivals) ollama(missed, loads chan<- string) http.Handler {
	loading := loadingOllama(loads)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		switch {
		case r.URL.Path == "/api/tags":
			a.mu.Lock()
			var list []string
			for m := range a.models {
				list = append(list, fmt.Sprintf(`{"name":%q,"model":%q}`, m, m))
			}
			a.mu.Unlock()
			fmt.Fprintf(w, `{"models":[%s]}`, strings.Join(list, ","))
		case r.URL.Path == "/api/pull":
			a.arrive(req.Model)
			fmt.Fprintln(w, `{"status":"success"}`)
		case r.URL.Path != "/api/show" && r.URL.Path != "/api/generate", a.has(req.Model):
			loading.ServeHTTP(w, r)
		default:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":"model '%s' not found"}`, req.Model)
			select {
			case missed <- req.Model:
			default:
			}
		}
	})
}

// waitFor receives from c until it gets want, failing t after 30 s (the preload's backoff
// starts at 1 s).
func waitFor(t *testing.T, c <-chan string, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-c:
			if got == want {
				return
			}
		case <-deadline:
			t.Fatalf("no %q within 30 s", want)
		}
	}
}

func TestTheModelTheWindowStartsWithIsLoadedOnceItArrivesOnAServerThatAnsweredWithoutIt(t *testing.T) {
	var models arrivals
	missed, loads := make(chan string, 16), make(chan string, 4)
	srv := httptest.NewServer(models.ollama(missed, loads))
	t.Cleanup(srv.Close)
	openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: srv.URL}, Model: "first"})

	// The server answers, and tells the window's preload that it has no such model; then the
	// user pulls it, in a terminal: the window is not asked anything.
	waitFor(t, missed, "first")
	models.arrive("first")
	waitFor(t, loads, "first 30m0s num_ctx=4096")
}

func TestAPreloadWaitingForAModelTheUserLeftNeverLoadsIt(t *testing.T) {
	var models arrivals
	models.arrive("second")
	missed, loads := make(chan string, 16), make(chan string, 4)
	srv := httptest.NewServer(models.ollama(missed, loads))
	t.Cleanup(srv.Close)
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: srv.URL}, Model: "first"})
	waitFor(t, missed, "first")
	if err := d.SetModel("second"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, loads, "second 30m0s num_ctx=4096")

	models.arrive("first")
	d.OllamaStatus(context.Background()) // wakes a preload still waiting
	select {
	case again := <-loads:
		t.Errorf("loaded %q after the user picked another model", again)
	case <-time.After(2 * time.Second): // longer than the first wait of the preload's backoff
	}
}

func TestAPreloadWaitingForItsModelLoadsItAtOnceWhenTheWindowSeesItArrive(t *testing.T) {
	// Without a wake the preload would ask again only in an hour.
	saved := preloadBackoff
	preloadBackoff.first, preloadBackoff.longest = time.Hour, time.Hour
	t.Cleanup(func() { preloadBackoff = saved })
	for _, tc := range []struct {
		name string
		sees func(context.Context, *Desktop, *arrivals) error
	}{
		{"the window lists the models", func(ctx context.Context, d *Desktop, models *arrivals) error {
			models.arrive("first") // pulled in a terminal
			_, err := d.Models(ctx)
			return err
		}},
		{"a pull in the window ends", func(ctx context.Context, d *Desktop, _ *arrivals) error {
			return d.PullModel(ctx, "first")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var models arrivals
			missed, loads := make(chan string, 16), make(chan string, 4)
			srv := httptest.NewServer(models.ollama(missed, loads))
			t.Cleanup(srv.Close)
			d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: srv.URL}, Model: "first"})
			waitFor(t, missed, "first")
			if err := tc.sees(context.Background(), d, &models); err != nil {
				t.Fatal(err)
			}
			waitFor(t, loads, "first 30m0s num_ctx=4096")
		})
	}
}
