package managed

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/tether"
)

// The test binary doubles as a fake `ollama serve`: run with fakeEnv set, it behaves as the
// value says, listening on OLLAMA_HOST like the real server.
const fakeEnv = "MANAGED_FAKE_OLLAMA"

const (
	fakeAnswers     = "answers"      // answers /api/version
	fakeFails       = "fails"        // logs a bind error and exits 1
	fakeSilent      = "silent"       // never listens
	fakeIgnoresTerm = "ignores-term" // answers, and ignores SIGTERM
)

// runnerEnv makes the fake server start a child that sleeps, as the real one starts a runner
// per loaded model; sleepEnv is that child.
const (
	runnerEnv = "MANAGED_FAKE_RUNNER"
	sleepEnv  = "MANAGED_FAKE_SLEEP"
)

func TestMain(m *testing.M) {
	tether.Supervise()
	if os.Getenv(sleepEnv) != "" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	if mode := os.Getenv(fakeEnv); mode != "" {
		os.Exit(fakeServe(mode))
	}
	if os.Getenv(killedAppEnv) != "" {
		os.Exit(killedApp())
	}
	os.Exit(m.Run())
}

func fakeServe(mode string) int {
	host := os.Getenv("OLLAMA_HOST")
	fmt.Printf("time=now level=INFO msg=\"fake ollama serve\" host=%s models=%s\n", host, os.Getenv("OLLAMA_MODELS"))
	switch mode {
	case fakeFails:
		fmt.Fprintf(os.Stderr, "Error: listen tcp %s: bind: address already in use\n", host)
		return 1
	case fakeSilent:
		time.Sleep(time.Hour)
		return 0
	case fakeIgnoresTerm:
		signal.Ignore(syscall.SIGTERM)
	}
	if os.Getenv(runnerEnv) != "" {
		runner := exec.Command(os.Args[0])
		runner.Env = append(os.Environ(), sleepEnv+"=1")
		if err := runner.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "Error: cannot start a runner:", err)
			return 1
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/version", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"version":"0.0.0-fake"}`)
	})
	if err := http.ListenAndServe(host, mux); err != nil {
		fmt.Fprintln(os.Stderr, "Error:", err)
		return 1
	}
	return 0
}

// The killed app: a child test binary that starts a server and waits to be killed.
const killedAppEnv = "MANAGED_KILLED_APP"

func killedApp() int {
	opts := Options{LogDir: os.Getenv("MANAGED_LOG_DIR"),
		Env:       append(os.Environ(), fakeEnv+"="+fakeAnswers, runnerEnv+"=1"),
		Locations: Locations{LookPath: func(string) (string, error) { return os.Args[0], nil }}}
	state, err := New(opts).Ensure(context.Background(), &url.URL{Scheme: "http", Host: os.Getenv(killedAppEnv)}, "")
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		return 1
	}
	os.Stdout.WriteString(strconv.Itoa(state.PID) + "\n")
	time.Sleep(time.Hour)
	return 0
}
