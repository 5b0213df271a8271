package managed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"prototyper/internal/tether"
)

// Defaults of [Options].
const (
	DefaultReadyTimeout = 30 * time.Second
	DefaultStopGrace    = 5 * time.Second
	// LogName is the server's log file in [Options].LogDir; the previous start's log is kept
	// beside it as LogName+".1".
	LogName = "ollama.log"
)

// probeTimeout bounds one question of whether a server answers.
const probeTimeout = 2 * time.Second

// Options configure a [Server].
type Options struct {
	// Locations are where the ollama program is looked for (see [Find]); their Setting is
	// replaced by the one each [Server.Ensure] is given.
	Locations Locations
	// LogDir is the folder of the server's log (created when missing): the app's data folder.
	LogDir string
	// Env is the server's environment (os.Environ() when nil); its OLLAMA_HOST is replaced.
	Env []string
	// ReadyTimeout bounds the wait for a started server to answer (DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// StopGrace is how long Stop waits after SIGTERM before SIGKILL (DefaultStopGrace).
	StopGrace time.Duration
}

// State says which server answers at an address, as the window shows it.
type State struct {
	// Started is true when the server is the one Prototyper started.
	Started bool
	URL     string
	// Binary, PID and LogPath describe the server Prototyper started.
	Binary  string
	PID     int
	LogPath string
}

// ErrNoAnswer is the Err of a [StartError] whose server ran but did not answer within
// [Options].ReadyTimeout.
var ErrNoAnswer = errors.New("the server did not answer in time")

// StartError is returned by [Server.Ensure] when the server it started exited, or did not
// answer in time. Its message is one sentence: for a server that exited, ending with the last
// line of its log; for one that did not answer ([ErrNoAnswer]), saying so, with the timeout
// and what a user can do (a hung server's last line says nothing of why it hangs).
type StartError struct {
	Binary   string
	URL      string
	LogPath  string
	LastLine string // the last line of the log, "" when it is empty
	Err      error  // why: the exit status, [ErrNoAnswer], or the failure to run the program
	// Timeout is how long it was waited for when Err is [ErrNoAnswer].
	Timeout time.Duration
}

func (e *StartError) Error() string {
	if errors.Is(e.Err, ErrNoAnswer) {
		return fmt.Sprintf("Ollama, started by Prototyper at %s (%s serve), did not answer within %s and was stopped — "+
			"see its log %s, or start `ollama serve` yourself and press Retry", e.URL, e.Binary, seconds(e.Timeout), e.LogPath)
	}
	why := e.LastLine
	if why == "" {
		why = fmt.Sprint(e.Err)
	}
	return fmt.Sprintf("Prototyper could not start Ollama at %s (%s serve): %s (its log: %s)", e.URL, e.Binary, why, e.LogPath)
}

func (e *StartError) Unwrap() error { return e.Err }

// Server is the Ollama server one app starts and stops. Its methods are safe for concurrent
// use; an Ensure that starts a server holds the others until the server answers.
type Server struct {
	opts   Options
	client *http.Client

	mu   sync.Mutex
	proc *process // the server this started; nil when none

	startMu     sync.Mutex
	cancelStart context.CancelFunc // ends the start in progress, if any
}

// New returns a Server that has started nothing yet.
func New(opts Options) *Server {
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = DefaultReadyTimeout
	}
	if opts.StopGrace <= 0 {
		opts.StopGrace = DefaultStopGrace
	}
	// No proxy: the question is whether this computer's loopback answers.
	transport := &http.Transport{Proxy: nil, DisableKeepAlives: true}
	return &Server{opts: opts, client: &http.Client{Transport: transport, Timeout: probeTimeout}}
}

// LogPath is where a server started by s writes its log.
func (s *Server) LogPath() string { return filepath.Join(s.opts.LogDir, LogName) }

// Ensure makes sure a server answers at u and says whose it is. An address that is not local
// is [ErrNotLocal] at once: nothing is asked or started (the caller asks the server as
// usual). A server that already answers is used as it is, also when it is not Ollama (the
// client then says so). When nothing answers, a server is started with the program [Find]
// chooses, binarySetting being the settings' path ([ErrNoBinary] when there is none), and
// Ensure returns once it answers, or a [StartError]. A server started earlier for another
// address is stopped first.
func (s *Server) Ensure(ctx context.Context, u *url.URL, binarySetting string) (State, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.proc; p != nil {
		switch {
		case p.url == u.String() && p.alive():
			return p.state(), nil
		case p.url != u.String():
			s.proc = nil
			p.stop(s.opts.StopGrace)
		default:
			s.proc = nil // it exited on its own: start another
			p.release()
		}
	}
	listen, err := ListenAddress(u)
	if err != nil {
		return State{URL: u.String()}, err
	}
	if !s.refused(ctx, u) {
		return State{URL: u.String()}, nil
	}
	loc := s.opts.Locations
	loc.Setting = binarySetting
	bin, err := Find(loc)
	if err != nil {
		return State{URL: u.String()}, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.startMu.Lock()
	s.cancelStart = cancel
	s.startMu.Unlock()
	p, err := s.start(ctx, u, listen, bin)
	s.startMu.Lock()
	s.cancelStart = nil
	s.startMu.Unlock()
	if err != nil {
		// Another app may have started a server at u meanwhile: then use that one.
		if ctx.Err() == nil && !s.refused(ctx, u) {
			return State{URL: u.String()}, nil
		}
		return State{URL: u.String()}, err
	}
	s.proc = p
	return p.state(), nil
}

// State is the server s started and that still runs, if any.
func (s *Server) State() (State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil || !s.proc.alive() {
		return State{}, false
	}
	return s.proc.state(), true
}

// Stop stops the server s started, if any (see the package doc), and ends a start in progress
// at once; a server s did not start is never touched. It may be called more than once;
// Ensure may start a server again after it.
func (s *Server) Stop() {
	s.startMu.Lock()
	if s.cancelStart != nil {
		s.cancelStart()
	}
	s.startMu.Unlock()
	s.mu.Lock()
	p := s.proc
	s.proc = nil
	s.mu.Unlock()
	if p != nil {
		p.stop(s.opts.StopGrace)
	}
}

// refused reports whether u refuses connections: nothing listens there. Any answer, and any
// other failure (a listener that does not answer), counts as a server that is not ours to
// start.
func (s *Server) refused(ctx context.Context, u *url.URL) bool {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath("/api/version").String(), nil)
	if err != nil {
		return false
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return errors.Is(err, syscall.ECONNREFUSED)
	}
	resp.Body.Close()
	return false
}

// answers reports whether the server at u says its version.
func (s *Server) answers(ctx context.Context, u *url.URL) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath("/api/version").String(), nil)
	if err != nil {
		return false
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// start runs `bin serve` listening on listen and waits until it answers at u.
func (s *Server) start(ctx context.Context, u *url.URL, listen, bin string) (*process, error) {
	logPath := s.LogPath()
	fail := func(err error) error {
		return &StartError{Binary: bin, URL: u.String(), LogPath: logPath, LastLine: lastLine(logPath), Err: err}
	}
	if err := os.MkdirAll(s.opts.LogDir, 0o755); err != nil {
		return nil, fail(err)
	}
	_ = os.Rename(logPath, logPath+".1") // the previous start's log stays one start longer
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fail(err)
	}
	env := s.opts.Env
	if env == nil {
		env = serverEnvironment(os.Environ())
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = withHost(env, listen)
	cmd.Stdout, cmd.Stderr = log, log
	proc, err := tether.Start(cmd)
	if err != nil {
		log.Close()
		return nil, fail(err)
	}
	p := &process{url: u.String(), bin: bin, logPath: logPath, log: log, proc: proc}

	deadline := time.NewTimer(s.opts.ReadyTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !s.answers(ctx, u) {
		select {
		case <-proc.Done():
			p.release()
			return nil, fail(fmt.Errorf("ollama serve exited: %v", proc.Err()))
		case <-deadline.C:
			p.stop(s.opts.StopGrace)
			se := fail(ErrNoAnswer).(*StartError)
			se.Timeout = s.opts.ReadyTimeout
			return nil, se
		case <-ctx.Done():
			p.stop(s.opts.StopGrace)
			return nil, ctx.Err()
		case <-tick.C:
		}
	}
	return p, nil
}

// seconds says d as a user reads a timeout: "30 s", "0.5 s".
func seconds(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

// withHost is env with OLLAMA_HOST set to listen (any other value removed).
func withHost(env []string, listen string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "OLLAMA_HOST=") {
			out = append(out, kv)
		}
	}
	return append(out, "OLLAMA_HOST="+listen)
}

// serverEnvironment is what of the app's environment the server it starts is given: what
// any program needs (PATH, HOME, the user, the locale, TMPDIR, TZ), Ollama's own settings
// (OLLAMA_*), what finds and picks a GPU (CUDA_*, NVIDIA_*, HIP_*, ROCR_*, ROCM_*, HSA_*,
// GPU_*, GGML_*, LD_LIBRARY_PATH) and the proxies its downloads go through; never the rest
// of the app's environment, where an API key of another provider may be.
func serverEnvironment(appEnv []string) []string {
	names := []string{"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "TZ", "LANG", "LANGUAGE",
		"LD_LIBRARY_PATH", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"}
	prefixes := []string{"LC_", "OLLAMA_", "CUDA_", "NVIDIA_", "HIP_", "ROCR_", "ROCM_", "HSA_", "GPU_", "GGML_"}
	var out []string
	for _, kv := range appEnv {
		name, _, _ := strings.Cut(kv, "=")
		keep := slices.Contains(names, name)
		for _, p := range prefixes {
			keep = keep || strings.HasPrefix(name, p)
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// process is a running `ollama serve` this package started.
type process struct {
	url, bin, logPath string
	log               *os.File
	proc              *tether.Process

	releaseOnce sync.Once
}

func (p *process) alive() bool { return !p.proc.Exited() }

func (p *process) state() State {
	return State{Started: true, URL: p.url, Binary: p.bin, PID: p.proc.Pid, LogPath: p.logPath}
}

// stop sends SIGTERM to the server, which stops its runners, kills it after grace, and waits
// for it to exit; whatever it started and left behind is killed with it.
func (p *process) stop(grace time.Duration) {
	p.proc.Signal(syscall.SIGTERM)
	select {
	case <-p.proc.Done():
	case <-time.After(grace):
	}
	p.proc.Kill()
	p.release()
}

// release closes the log once the process has exited.
func (p *process) release() {
	p.releaseOnce.Do(func() { p.log.Close() })
}

// lastLine is the last non-empty line of the log at path, at most 300 bytes; "" when there is
// none.
func lastLine(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 8 << 10
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	off := max(fi.Size()-tail, 0)
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	lines := strings.Split(string(buf[:n]), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if line := strings.TrimSpace(lines[i]); line != "" {
			if len(line) > 300 {
				line = line[:300] + "…"
			}
			return line
		}
	}
	return ""
}
