package ollamatest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/internal/testenv"
)

// HowToInstall says how to get the server binary the harness runs.
const HowToInstall = "`GOBIN=$PWD/.tools/bin go install -ldflags=-X=github.com/ollama/ollama/version.Version=0.11.4 github.com/ollama/ollama@v0.11.4` from the repository root (on Debian, `apt-get install nlohmann-json3-dev libstb-dev` first), or set PROTOTYPER_OLLAMA to an ollama v0.11.4 binary"

// ErrNoBinary is returned by [FindBinary] when no ollama binary is found.
var ErrNoBinary = errors.New("ollamatest: the ollama binary is missing")

// ErrServerExited is returned when `ollama serve` exits before it answers.
var ErrServerExited = errors.New("ollamatest: ollama serve exited")

// ErrBadModel is returned (wrapped) by [Start] for a model without a name, or with the name of
// another model of the same call.
var ErrBadModel = errors.New("ollamatest: invalid model")

// Timings are how long each step of [Start] took.
type Timings struct {
	Serve  time.Duration // `ollama serve` started until /api/version answered
	Create time.Duration // GGUF written, uploaded and every model created
	Load   time.Duration // every model's runner loaded (the first request's cost)
	Total  time.Duration
}

func (t Timings) String() string {
	return fmt.Sprintf("%s (serve %s, create %s, load %s)", t.Total.Round(time.Millisecond),
		t.Serve.Round(time.Millisecond), t.Create.Round(time.Millisecond), t.Load.Round(time.Millisecond))
}

// Server is a running `ollama serve` with its own models directory and home, on a free
// loopback port. Stop ends it and every runner it started.
type Server struct {
	url     string // the server's own address
	front   *front // what URL gives: the server, kept from losing a model's slot to a client that leaves
	dir     string
	cmd     *exec.Cmd
	stdin   io.Closer     // closing it makes the supervising shell kill the server's group
	exited  chan struct{} // closed when the serve process has exited
	waitErr error
	logs    *testenv.Output
	timings Timings
	models  []Model

	stopOnce sync.Once
}

// URL returns the server's base URL, e.g. "http://127.0.0.1:PORT". It is a front that passes
// every request on as it is, and reads on an answer whose client left in the middle of it
// (for a few seconds at most), which the server itself does not survive (see [front]).
func (s *Server) URL() string { return s.front.addr }

// Timings returns how long the server took to start.
func (s *Server) Timings() Timings { return s.timings }

// Models returns the models created on the server.
func (s *Server) Models() []Model { return s.models }

// Logs returns everything the server (and its runners) wrote so far.
func (s *Server) Logs() string { return s.logs.String() }

// FindBinary finds the ollama binary: $PROTOTYPER_OLLAMA, else <module root>/.tools/bin/ollama
// (the module root is the nearest parent of the working directory holding go.mod), else PATH.
func FindBinary() (string, error) {
	if p := os.Getenv("PROTOTYPER_OLLAMA"); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("%w: PROTOTYPER_OLLAMA=%s does not exist", ErrNoBinary, p)
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				p := filepath.Join(dir, ".tools", "bin", "ollama")
				if _, err := os.Stat(p); err == nil {
					return p, nil
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	if p, err := exec.LookPath("ollama"); err == nil {
		return p, nil
	}
	return "", ErrNoBinary
}

// Binary is [FindBinary] for a test that runs the server itself: when there is none it calls
// testenv.Missing (a skip under bare `go test`, a failure under `make test`).
func Binary(tb testing.TB) string {
	tb.Helper()
	bin, err := FindBinary()
	if err != nil {
		testenv.Missing(tb, "the ollama server (v0.11.4)", HowToInstall)
	}
	return bin
}

// Start starts `ollama serve` (binary bin) on a free loopback port with OLLAMA_MODELS and HOME
// in a fresh temporary directory, creates models and loads each one (so the first request of a
// test does not pay for it). On error the server is stopped and the error carries its logs.
func Start(ctx context.Context, bin string, models ...Model) (*Server, error) {
	begin := time.Now()
	names := map[string]bool{}
	for _, m := range models {
		if m.Name == "" || names[m.name()] {
			return nil, fmt.Errorf("%w: give every model its own Name (got %q)", ErrBadModel, m.Name)
		}
		names[m.name()] = true
	}
	sweepOrphanDirs()
	dir, err := os.MkdirTemp("", dirPrefix)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	s := &Server{dir: dir, logs: &testenv.Output{}, exited: make(chan struct{}), models: models}
	fail := func(err error) (*Server, error) {
		s.Stop()
		return nil, fmt.Errorf("%w\n--- ollama serve log ---\n%s", err, s.logs.Tail(16<<10))
	}

	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	host := net.JoinHostPort("127.0.0.1", port)
	s.url = "http://" + host
	for _, sub := range []string{"models", "home"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return fail(err)
		}
	}
	s.cmd = supervised(bin)
	s.cmd.Env = append(os.Environ(),
		"OLLAMA_HOST="+host,
		"OLLAMA_MODELS="+filepath.Join(dir, "models"),
		"HOME="+filepath.Join(dir, "home"),
		"OLLAMA_NOPRUNE=1",
		"OLLAMA_KEEP_ALIVE=-1",        // runners stay loaded for the whole test binary
		"OLLAMA_MAX_LOADED_MODELS=16", // one runner per scripted model, none evicted
		"OLLAMA_NUM_PARALLEL=1",
		"OLLAMA_DEBUG=1", // the log then holds each rendered prompt
		"OLLAMA_NOHISTORY=1",
		// No test reaches the internet: a pull fails at once, as it does offline.
		"HTTPS_PROXY="+NoRegistryProxy, "HTTP_PROXY="+NoRegistryProxy,
	)
	s.cmd.Stdout = s.logs
	s.cmd.Stderr = s.logs
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		return fail(err)
	}
	if err := s.cmd.Start(); err != nil {
		return fail(fmt.Errorf("starting %s serve: %w", bin, err))
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		close(s.exited)
	}()

	if err := s.waitReady(ctx, 60*time.Second); err != nil {
		return fail(err)
	}
	s.timings.Serve = time.Since(begin)

	t := time.Now()
	for _, m := range models {
		if err := s.create(ctx, m); err != nil {
			return fail(fmt.Errorf("creating model %s: %w", m.name(), err))
		}
	}
	s.timings.Create = time.Since(t)

	t = time.Now()
	errs := make([]error, len(models))
	var wg sync.WaitGroup
	for i, m := range models {
		wg.Go(func() {
			if err := s.load(ctx, m.name()); err != nil {
				errs[i] = fmt.Errorf("loading model %s: %w", m.name(), err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return fail(err)
	}
	s.timings.Load = time.Since(t)
	if s.front, err = startFront(s.url); err != nil {
		return fail(err)
	}
	s.timings.Total = time.Since(begin)
	return s, nil
}

// Stop kills the server and every runner it started (the whole process group: nothing
// there is worth a graceful shutdown), then removes its directory. It is safe to call more
// than once.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		if s.cmd != nil && s.cmd.Process != nil {
			s.stdin.Close()
			killGroup(s.cmd)
			<-s.exited
		}
		if s.front != nil {
			s.front.close()
		}
		os.RemoveAll(s.dir)
	})
}

func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.url+"/api/version", nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("%w before answering: %v", ErrServerExited, s.waitErr)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(25 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("ollama serve did not answer /api/version within %s", limit)
		}
	}
}

// create uploads m's GGUF as a blob and creates the model from it.
func (s *Server) create(ctx context.Context, m Model) error {
	var gguf bytes.Buffer
	if err := m.writeGGUF(&gguf); err != nil {
		return err
	}
	sum := sha256.Sum256(gguf.Bytes())
	digest := "sha256:" + hex.EncodeToString(sum[:])
	if err := s.post(ctx, "/api/blobs/"+digest, "application/octet-stream", &gguf, nil); err != nil {
		return fmt.Errorf("uploading the GGUF: %w", err)
	}
	req := map[string]any{
		"model":      m.name(),
		"files":      map[string]string{"model.gguf": digest},
		"template":   m.Template(),
		"parameters": m.parameters(),
		"stream":     false,
	}
	var status struct {
		Status string `json:"status"`
	}
	if err := s.postJSON(ctx, "/api/create", req, &status); err != nil {
		return err
	}
	if status.Status != "success" {
		return fmt.Errorf("create answered status %q", status.Status)
	}
	return nil
}

// NoRegistryProxy is a proxy address where nothing listens: a server given it as HTTPS_PROXY
// cannot reach the model registry, and fails a pull at once, as an offline computer does. The
// servers [Start] runs have it; a test gives it to a server it starts another way.
const NoRegistryProxy = "http://127.0.0.1:1"

// Create creates m on the Ollama server at url, which need not be one this package started
// (e.g. the one the app started itself). The model is not loaded.
func Create(ctx context.Context, url string, m Model) error {
	return (&Server{url: url}).create(ctx, m)
}

// load loads a model's runner: a generate request without a prompt loads and returns.
// load loads a model into a runner. A runner that dies while starting is tried again, twice:
// when many models load at once the server hands each runner a port that was free a moment
// before, and one of them can find it taken ("llama runner process has terminated").
func (s *Server) load(ctx context.Context, name string) error {
	var err error
	for attempt := 0; attempt < 3; attempt++ {
		err = s.postJSON(ctx, "/api/generate", map[string]any{"model": name, "stream": false}, nil)
		if err == nil || !strings.Contains(err.Error(), "runner process has terminated") {
			return err
		}
	}
	return err
}

func (s *Server) postJSON(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return s.post(ctx, path, "application/json", bytes.NewReader(body), out)
}

func (s *Server) post(ctx context.Context, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("POST %s: %s: %s", path, resp.Status, strings.TrimSpace(string(data)))
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("POST %s: decoding %q: %w", path, data, err)
		}
	}
	return nil
}

// A server's directory is os.TempDir()/ollamatest-*, holding the pid of the process that owns
// it. A test binary that dies without cleanup leaves it behind (its processes are killed
// anyway, see supervised); the next Start removes it.
const (
	dirPrefix = "ollamatest-"
	ownerFile = "owner.pid"
)

func sweepOrphanDirs() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), dirPrefix+"*"))
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue // not ours, or being created
		}
		if pid, err := strconv.Atoi(string(b)); err == nil && !processAlive(pid) {
			os.RemoveAll(dir)
		}
	}
}

func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// The server shared by the tests of one test binary, set by Main.
var (
	shared    *Server
	sharedErr error // why there is no server; ErrNoBinary means skip (or fail under make test)
)

// Main starts one server for the whole test binary, creates the models, runs m, stops the
// server, and returns the exit code: in TestMain, `os.Exit(ollamatest.Main(m, models...))`.
// When the ollama binary is missing it still runs m; Get then fails or skips each test via
// testenv. It prints how long the start took.
func Main(m *testing.M, models ...Model) int {
	if !flag.Parsed() {
		flag.Parse()
	}
	bin, err := FindBinary()
	if err != nil {
		sharedErr = err
		return m.Run()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	shared, sharedErr = Start(ctx, bin, models...)
	cancel()
	if sharedErr != nil {
		fmt.Fprintf(os.Stderr, "ollamatest: %v\n", sharedErr)
		return m.Run() // every test that calls Get fails with the reason
	}
	fmt.Fprintf(os.Stderr, "ollamatest: %s serve ready with %d model(s) in %s\n", bin, len(models), shared.timings)
	defer shared.Stop()
	return m.Run()
}

// Get returns the server started by Main. When the binary is missing it calls testenv.Missing
// (a skip under bare `go test`, a failure under `make test`); when the server failed to start
// it fails tb. When tb fails, the server log written during tb is printed.
func Get(tb testing.TB) *Server {
	tb.Helper()
	switch {
	case errors.Is(sharedErr, ErrNoBinary):
		testenv.Missing(tb, "the ollama server (v0.11.4)", HowToInstall)
	case sharedErr != nil:
		tb.Fatalf("the ollama server did not start: %v", sharedErr)
	case shared == nil:
		tb.Fatal("ollamatest.Get: no server; call os.Exit(ollamatest.Main(m, models...)) in TestMain")
	}
	mark := shared.logs.Len()
	tb.Cleanup(func() {
		if tb.Failed() {
			tb.Logf("--- ollama serve log during this test ---\n%s", shared.logs.Since(mark, 32<<10))
		}
	})
	return shared
}
