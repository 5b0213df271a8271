package managed

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
)

// program writes an executable file at path.
func program(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindChoosesPathThenTheToolsBesideTheAppThenTheSetting(t *testing.T) {
	repo := t.TempDir()
	app := program(t, filepath.Join(repo, "build", "bin", "prototyper"))
	tools := program(t, filepath.Join(repo, ".tools", "bin", "ollama"))
	setting := program(t, filepath.Join(t.TempDir(), "my-ollama"))
	elsewhere := program(t, filepath.Join(t.TempDir(), "bin", "prototyper"))
	link := filepath.Join(t.TempDir(), "prototyper")
	if err := os.Symlink(app, link); err != nil {
		t.Fatal(err)
	}
	onPath := func(string) (string, error) { return "/usr/bin/ollama", nil }
	notOnPath := func(string) (string, error) { return "", exec.ErrNotFound }

	for _, tc := range []struct {
		name string
		loc  Locations
		want string
	}{
		{"ollama on PATH comes first", Locations{LookPath: onPath, Executable: app, Setting: setting}, "/usr/bin/ollama"},
		{"else the one make installed beside the app", Locations{LookPath: notOnPath, Executable: app, Setting: setting}, tools},
		{"found through a link to the app", Locations{LookPath: notOnPath, Executable: link}, tools},
		{"else the settings' path", Locations{LookPath: notOnPath, Executable: elsewhere, Setting: setting}, setting},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Find(tc.loc)
			if err != nil || got != tc.want {
				t.Errorf("Find = %q, %v; want %q", got, err, tc.want)
			}
		})
	}

	t.Run("nothing anywhere says how to get it", func(t *testing.T) {
		_, err := Find(Locations{LookPath: notOnPath, Executable: elsewhere})
		if !errors.Is(err, ErrNoBinary) || !strings.Contains(err.Error(), "settings") {
			t.Errorf("Find = %v; want ErrNoBinary, saying where to set the path", err)
		}
	})
	t.Run("a setting that is no program names it", func(t *testing.T) {
		dir := t.TempDir()
		_, err := Find(Locations{LookPath: notOnPath, Executable: elsewhere, Setting: dir})
		if err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("Find = %v; want an error naming %s", err, dir)
		}
	})
}

func TestOnlyALoopbackHTTPAddressIsManaged(t *testing.T) {
	for raw, want := range map[string]string{
		"http://127.0.0.1:11434":    "127.0.0.1:11434",
		"http://localhost:11434":    "127.0.0.1:11434",
		"http://127.0.0.2:8080":     "127.0.0.2:8080",
		"http://[::1]:11434":        "[::1]:11434",
		"http://192.168.1.20:11434": "",
		"http://0.0.0.0:11434":      "",
		"http://gpu-box:11434":      "",
		"https://127.0.0.1:443":     "",
		"http://127.0.0.1:11434/ol": "",
		"http://127.0.0.1:0":        "",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ListenAddress(u)
		if want == "" {
			if !errors.Is(err, ErrNotLocal) {
				t.Errorf("ListenAddress(%s) = %q, %v; want ErrNotLocal", raw, got, err)
			}
		} else if got != want || err != nil {
			t.Errorf("ListenAddress(%s) = %q, %v; want %q", raw, got, err, want)
		}
	}
}

func TestEnsureNeverStartsAServerForARemoteAddress(t *testing.T) {
	looked := false
	s := New(Options{LogDir: t.TempDir(), Locations: Locations{LookPath: func(string) (string, error) {
		looked = true
		return os.Args[0], nil
	}}})
	defer s.Stop()
	for _, raw := range []string{"http://192.0.2.1:11434", "http://gpu-box.example:11434"} {
		state, err := s.Ensure(context.Background(), mustURL(t, raw), "")
		if !errors.Is(err, ErrNotLocal) || state.Started {
			t.Errorf("Ensure(%s) = %+v, %v; want ErrNotLocal and nothing started", raw, state, err)
		}
	}
	if looked {
		t.Error("Ensure looked for a program to start for a remote address")
	}
}

// fakeServer returns a Server whose program is this test binary acting as `ollama serve` in
// the given mode, and a free loopback address for it.
func fakeServer(t *testing.T, mode string, opts Options) (*Server, *url.URL) {
	t.Helper()
	opts.Locations.LookPath = func(string) (string, error) { return os.Args[0], nil }
	if opts.LogDir == "" {
		opts.LogDir = t.TempDir()
	}
	opts.Env = append(os.Environ(), fakeEnv+"="+mode, "OLLAMA_HOST=0.0.0.0:1", "OLLAMA_MODELS=/the/user/models")
	s := New(opts)
	t.Cleanup(s.Stop)
	return s, mustURL(t, ollamatest.FreeURL(t))
}

func TestEnsureStartsAServerWhereNothingAnswersAndStopStopsIt(t *testing.T) {
	s, u := fakeServer(t, fakeAnswers, Options{})
	state, err := s.Ensure(context.Background(), u, "")
	if err != nil || !state.Started || state.PID == 0 || state.URL != u.String() {
		t.Fatalf("Ensure = %+v, %v; want a server started at %s", state, err, u)
	}
	if !ollamatest.Answers(u.String()) {
		t.Fatalf("nothing answers at %s after Ensure", u)
	}
	log, _ := os.ReadFile(state.LogPath)
	if want := "host=" + u.Host + " models=/the/user/models"; !strings.Contains(string(log), want) {
		t.Errorf("log %s = %q; want the server on the loopback address with the user's models (%q)", state.LogPath, log, want)
	}
	if again, err := s.Ensure(context.Background(), u, ""); err != nil || again.PID != state.PID {
		t.Errorf("Ensure again = %+v, %v; want the same server", again, err)
	}
	s.Stop()
	waitGone(t, state.PID)
	if ollamatest.Answers(u.String()) {
		t.Errorf("%s still answers after Stop", u)
	}
	if _, running := s.State(); running {
		t.Error("State says a server runs after Stop")
	}
}

func TestEnsureUsesAServerThatAlreadyAnswersAndStopNeverStopsIt(t *testing.T) {
	users := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"version":"0.11.4"}`))
	}))
	defer users.Close()
	s, _ := fakeServer(t, fakeAnswers, Options{})
	u := mustURL(t, users.URL)
	state, err := s.Ensure(context.Background(), u, "")
	if err != nil || state.Started {
		t.Fatalf("Ensure = %+v, %v; want the user's server used as it is", state, err)
	}
	s.Stop()
	if !ollamatest.Answers(u.String()) {
		t.Error("the user's server stopped answering after Stop")
	}
}

func TestAServerThatFailsToStartIsOneSentenceWithTheLastLineOfItsLog(t *testing.T) {
	s, u := fakeServer(t, fakeFails, Options{})
	_, err := s.Ensure(context.Background(), u, "")
	var se *StartError
	if !errors.As(err, &se) {
		t.Fatalf("Ensure = %v; want a StartError", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "bind: address already in use") || !strings.Contains(msg, s.LogPath()) || strings.Contains(msg, "\n") {
		t.Errorf("error = %q; want one line with the log's last line and the log's path", msg)
	}
}

func TestAServerThatNeverAnswersSaysItDidNotAnswerWithinTheTimeoutAndIsStopped(t *testing.T) {
	s, u := fakeServer(t, fakeSilent, Options{ReadyTimeout: 500 * time.Millisecond})
	_, err := s.Ensure(context.Background(), u, "")
	var se *StartError
	if !errors.As(err, &se) || !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("Ensure = %v; want a StartError of ErrNoAnswer", err)
	}
	msg := err.Error()
	for _, want := range []string{"did not answer within 0.5 s", s.LogPath(), "ollama serve` yourself"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error = %q; want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "fake ollama serve") || strings.Contains(msg, "\n") {
		t.Errorf("error = %q; want one sentence, not the log's last line (a hung server's last line says nothing of why)", msg)
	}
	if _, running := s.State(); running {
		t.Error("a server that never answered is still kept")
	}
}

func TestStopKillsAServerThatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	s, u := fakeServer(t, fakeIgnoresTerm, Options{StopGrace: 300 * time.Millisecond})
	state, err := s.Ensure(context.Background(), u, "")
	if err != nil {
		t.Fatal(err)
	}
	s.Stop()
	waitGone(t, state.PID)
}

func TestEnsureStartsAnotherServerWhenItsOwnExited(t *testing.T) {
	s, u := fakeServer(t, fakeAnswers, Options{})
	first, err := s.Ensure(context.Background(), u, "")
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(first.PID, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, running := s.State(); !running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("State still says the killed server runs")
		}
	}
	second, err := s.Ensure(context.Background(), u, "")
	if err != nil || !second.Started || second.PID == first.PID {
		t.Errorf("Ensure after the server died = %+v, %v; want a new server", second, err)
	}
}

// TestEnsureStartsTheRealOllamaServer starts the pinned server the way the app does, with
// its models in a folder of the test's.
func TestEnsureStartsTheRealOllamaServer(t *testing.T) {
	bin := ollamatest.Binary(t)
	home := t.TempDir()
	s := New(Options{LogDir: t.TempDir(), Locations: Locations{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }},
		Env: append(os.Environ(), "HOME="+home, "OLLAMA_MODELS="+filepath.Join(home, "models"))})
	defer s.Stop()
	u := mustURL(t, ollamatest.FreeURL(t))
	state, err := s.Ensure(context.Background(), u, bin)
	if err != nil || !state.Started {
		t.Fatalf("Ensure = %+v, %v", state, err)
	}
	if !ollamatest.Answers(u.String()) {
		t.Fatal("the real server does not answer")
	}
	s.Stop()
	waitGone(t, state.PID)
}

func mustURL(t testing.TB, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// waitGone waits until process pid has exited (a zombie not yet reaped counts as gone).
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if !ollamatest.ProcessRuns(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d still runs 10 s later", pid)
}

func TestStopDuringAStartEndsItAtOnceAndLeavesNoServer(t *testing.T) {
	s, u := fakeServer(t, fakeSilent, Options{ReadyTimeout: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := s.Ensure(context.Background(), u, "")
		done <- err
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server was not started")
		}
		log, _ := os.ReadFile(s.LogPath())
		if strings.Contains(string(log), "fake ollama serve") {
			for p := range ollamatest.ServerProcesses(u.Host) {
				pid = p
			}
		}
	}
	stopped := make(chan struct{})
	go func() { s.Stop(); close(stopped) }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Ensure succeeded although Stop ended its start")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Stop did not end the start in progress")
	}
	<-stopped
	waitGone(t, pid)
}

func TestEnsureForAnotherAddressStopsTheServerItStartedForTheFirst(t *testing.T) {
	s, first := fakeServer(t, fakeAnswers, Options{})
	old, err := s.Ensure(context.Background(), first, "")
	if err != nil {
		t.Fatal(err)
	}
	second := mustURL(t, ollamatest.FreeURL(t))
	now, err := s.Ensure(context.Background(), second, "")
	if err != nil || !now.Started || now.URL != second.String() {
		t.Fatalf("Ensure(%s) = %+v, %v; want a server started there", second, now, err)
	}
	waitGone(t, old.PID)
	if ollamatest.Answers(first.String()) {
		t.Errorf("the server at the old address %s still answers", first)
	}
}

// The server the app starts is a program like any other: it gets what it needs to find the
// user's models and GPU and to download, never the app's keys.
func TestTheStartedServerGetsItsOwnVariablesNeverTheAppsKeys(t *testing.T) {
	app := []string{
		"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "OLLAMA_MODELS=/m", "OLLAMA_HOST=127.0.0.1:1",
		"CUDA_VISIBLE_DEVICES=0", "HIP_VISIBLE_DEVICES=1", "LD_LIBRARY_PATH=/opt/cuda", "HTTPS_PROXY=http://proxy:3128",
		"OPENAI_API_KEY=sk-secret", "OLLAMA_TOKEN_FILE_IS_OURS=1", "GITHUB_TOKEN=ghp_secret", "AWS_SECRET_ACCESS_KEY=x",
		"PROTOTYPER_DB=/home/u/p.db", "SSH_AUTH_SOCK=/run/agent",
	}
	got := serverEnvironment(app)
	for _, want := range []string{"PATH=/usr/bin", "HOME=/home/u", "LANG=C.UTF-8", "LC_ALL=C", "OLLAMA_MODELS=/m",
		"CUDA_VISIBLE_DEVICES=0", "HIP_VISIBLE_DEVICES=1", "LD_LIBRARY_PATH=/opt/cuda", "HTTPS_PROXY=http://proxy:3128"} {
		if !slices.Contains(got, want) {
			t.Errorf("the server's environment lacks %s: %q", want, got)
		}
	}
	for _, kv := range got {
		for _, secret := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN", "AWS_SECRET", "PROTOTYPER_DB", "SSH_AUTH_SOCK"} {
			if strings.HasPrefix(kv, secret) {
				t.Errorf("the server was given %s", kv)
			}
		}
	}
}
