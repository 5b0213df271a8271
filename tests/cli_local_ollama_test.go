package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
)

// TestCLIRunStartsTheLocalOllamaWhereNoneAnswersAndEndsInAnAnswer: on a machine with an
// ollama program on PATH and a model in its folder but no server running, `prototyper run`
// starts the server the way the window does, runs, answers, and leaves no server behind.
func TestCLIRunStartsTheLocalOllamaWhereNoneAnswersAndEndsInAnAnswer(t *testing.T) {
	models := modelsFolderWith(t, writerModel)
	url := ollamatest.FreeURL(t)
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	t.Cleanup(func() { killServersAt(t, url) })
	out, errOut, code := cliRunEnv(t, []string{"PATH=" + ollamaOnPath(t), "OLLAMA_MODELS=" + models},
		"run", "--ollama", url, "--db", db, "--workspace", ws, "--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt")
	if !strings.Contains(errOut, "started Ollama at "+url) {
		t.Errorf("stderr does not say that it started Ollama at %s:\n%s", url, errOut)
	}
	assertWroteHello(t, ws, out, errOut, code)
	if _, err := os.Stat(filepath.Join(filepath.Dir(db), "ollama.log")); err != nil {
		t.Errorf("the server's log is not beside the database, as the window's is: %v", err)
	}
	if procs := ollamatest.ServerProcesses(hostOf(t, url)); len(procs) != 0 {
		t.Errorf("processes left at %s after the command ended: %v", url, procs)
	}
}

// TestCLIHintsRunAsPrinted: where the settings say the user runs Ollama, `run` says there is
// no server and names the command that starts one, which, run as printed, starts a server at
// that address; a hint names this program as the shell finds it (its path before `make
// install`, the bare name once it is on PATH).
func TestCLIHintsRunAsPrinted(t *testing.T) {
	url := ollamatest.FreeURL(t)
	t.Cleanup(func() { killServersAt(t, url) })
	db := dbWithManualOllama(t)
	path := ollamaOnPath(t)
	_, errOut, code := cliRunEnv(t, []string{"PATH=" + path}, "run", "--ollama", url, "--db", db, "--workspace", t.TempDir(), "--model", "m", "hi")
	m := regexp.MustCompile("start it with `([^`]+)`").FindStringSubmatch(errOut)
	if code != 1 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "Ollama is not running at "+url) || m == nil {
		t.Fatalf("exit %d, stderr %q; want one line saying no server runs and the command that starts one", code, errOut)
	}
	if !strings.HasPrefix(m[1], "OLLAMA_HOST="+hostOf(t, url)+" /") {
		t.Errorf("the hint %q does not start the server at %s by the program's path", m[1], url)
	}
	serve := exec.Command("sh", "-c", m[1])
	serve.Env = append(os.Environ(), "PATH="+path, "HOME="+t.TempDir(), "OLLAMA_MODELS="+t.TempDir())
	serve.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-serve.Process.Pid, syscall.SIGKILL); _ = serve.Wait() })
	for deadline := time.Now().Add(60 * time.Second); !ollamatest.Answers(url); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("`%s` run as printed: no server answers at %s", m[1], url)
		}
	}

	bin := desktopBinary(t)
	_, errOut, _ = cliRunEnv(t, []string{"PATH=" + pathWithoutOllama()}, "pull")
	if want := "`" + bin + " pull "; !strings.Contains(errOut, want) {
		t.Errorf("without prototyper on PATH, the hint %q does not name the program by its path (%s)", errOut, want)
	}
	onPath := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(onPath, "prototyper")); err != nil {
		t.Fatal(err)
	}
	_, errOut, _ = cliRunEnv(t, []string{"PATH=" + onPath + string(os.PathListSeparator) + pathWithoutOllama()}, "pull")
	if !strings.Contains(errOut, "`prototyper pull ") {
		t.Errorf("with prototyper on PATH, the hint %q does not name it prototyper", errOut)
	}
}

// TestCLIPullOfflineSaysWhatToRunInTheTerminal: `pull` starts the local Ollama as `run`
// does, and on a computer that cannot reach the registry says what to run again, in the
// terminal's words (never the window's "here").
func TestCLIPullOfflineSaysWhatToRunInTheTerminal(t *testing.T) {
	url := ollamatest.FreeURL(t)
	t.Cleanup(func() { killServersAt(t, url) })
	_, errOut, code := cliRunEnv(t, []string{"PATH=" + ollamaOnPath(t), "OLLAMA_MODELS=" + t.TempDir(),
		"HTTPS_PROXY=" + ollamatest.NoRegistryProxy, "HTTP_PROXY=" + ollamatest.NoRegistryProxy},
		"pull", "--ollama", url, "--db", filepath.Join(t.TempDir(), "p.db"), "qwen3:4b")
	if code != 1 || !strings.Contains(errOut, "started Ollama at "+url) || !strings.Contains(errOut, "cannot reach the model registry") {
		t.Fatalf("exit %d, stderr %q; want the server started, then the registry out of reach", code, errOut)
	}
	if !strings.Contains(errOut, "pull qwen3:4b` again") || strings.Contains(errOut, "here") {
		t.Errorf("stderr %q: want what to run again, not the window's words", errOut)
	}
}

// killServersAt kills whatever serves at url, so that no server of a test outlives it.
func killServersAt(t *testing.T, url string) {
	for pid := range ollamatest.ServerProcesses(hostOf(t, url)) {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}
