package ollamatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/internal/testenv"
)

// FreeURL returns an http address on loopback where nothing listens: where a test expects
// the app to start its own server.
func FreeURL(tb testing.TB) string {
	tb.Helper()
	port, err := freePort()
	if err != nil {
		tb.Fatal(err)
	}
	return "http://" + net.JoinHostPort("127.0.0.1", port)
}

// Answers reports whether a server at url answers /api/version with 200 within 2 s.
func Answers(url string) bool {
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(url + "/api/version")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// ProcessRuns reports whether the process pid runs. On Linux a zombie, exited but not yet
// reaped, does not.
func ProcessRuns(pid int) bool {
	if runtime.GOOS != "linux" {
		return processAlive(pid)
	}
	state, _ := testenv.ProcStat(pid)
	return state != "" && state != "Z" && state != "X"
}

// ServerProcesses returns the running processes of the Ollama server whose OLLAMA_HOST is
// host (e.g. "127.0.0.1:11434"): `… serve` and the `… runner` processes it started, each with
// its parent's pid. It reads Linux's /proc: elsewhere it finds none.
func ServerProcesses(host string) map[int]int {
	found := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if len(args) < 2 || (args[1] != "serve" && args[1] != "runner") || !ProcessRuns(pid) {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if slices.Contains(strings.Split(string(environ), "\x00"), "OLLAMA_HOST="+host) {
			found[pid] = parentOf(pid)
		}
	}
	return found
}

func parentOf(pid int) int {
	status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "PPid:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// KillRunner kills the runner that serves m on s with SIGKILL, as an out-of-memory killer or
// a crashed GPU driver ends one: the answer it was streaming fails mid-way (on /api/chat an
// {"error":…} line, "an error was encountered while running the model: unexpected EOF"), and
// the server loads the model again for the next request. It reports whether m had a runner.
func (s *Server) KillRunner(m Model) (bool, error) {
	var gguf bytes.Buffer
	if err := WriteGGUF(&gguf, m.Scripts); err != nil {
		return false, err
	}
	sum := sha256.Sum256(gguf.Bytes())
	blob := "sha256-" + hex.EncodeToString(sum[:]) // the runner's --model is the blob's path
	for pid := range ServerProcesses(strings.TrimPrefix(s.url, "http://")) {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		if !strings.Contains(string(cmdline), blob) {
			continue
		}
		p, err := os.FindProcess(pid)
		if err == nil {
			err = p.Kill()
		}
		return true, err
	}
	return false, nil
}
