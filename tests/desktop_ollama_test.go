package tests

import (
	"context"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
	"prototyper/store"
)

// ollamaOnPath returns a PATH whose first folder holds the built ollama server as `ollama`, as
// a system install would put it.
func ollamaOnPath(t *testing.T) string {
	t.Helper()
	bin := ollamatest.Binary(t)
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "ollama")); err != nil {
		t.Fatal(err)
	}
	return pathWith(dir)
}

// pathWithoutOllama is PATH without the folders that hold an `ollama`, as on a machine where
// Ollama was never installed.
func pathWithoutOllama() string {
	var keep []string
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(dir, "ollama")); err != nil {
			keep = append(keep, dir)
		}
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

// requireToolsOllama makes sure the app finds the server `make` installed in the repository's
// .tools/bin, beside build/bin/prototyper.
func requireToolsOllama(t *testing.T, app string) (tools string) {
	t.Helper()
	real, err := filepath.EvalSymlinks(app)
	if err != nil {
		t.Fatal(err)
	}
	tools = filepath.Join(filepath.Dir(filepath.Dir(filepath.Dir(real))), ".tools", "bin", "ollama")
	if _, err := os.Stat(tools); err != nil {
		testenv.Missing(t, "the ollama server make installs beside the app ("+tools+")", "run `make test` from the repository, which installs it")
	}
	return tools
}

// waitGone waits until the process pid has exited: at most 15 s after the app ended.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for ollamatest.ProcessRuns(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("the server the app started (pid %d) still runs 15 s after the app ended", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hostOf is the host:port of raw.
func hostOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := neturl.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// servedOllama is an `ollama serve` a test started, with the file its output goes to: its log,
// and gin's line for each request it answered.
type servedOllama struct {
	*exec.Cmd
	log string
}

// said is what the server wrote so far.
func (s *servedOllama) said() string {
	b, _ := os.ReadFile(s.log)
	return string(b)
}

// startServe starts the built ollama serving at host (OLLAMA_HOST), with env added to the
// test's, cut off from the model registry, and waits until it answers; it is killed when the
// test ends.
func startServe(t *testing.T, host string, env ...string) *servedOllama {
	t.Helper()
	serve := exec.Command(ollamatest.Binary(t), "serve")
	serve.Env = append(append(os.Environ(), "OLLAMA_HOST="+host, "HOME="+t.TempDir(),
		"HTTPS_PROXY="+ollamatest.NoRegistryProxy, "HTTP_PROXY="+ollamatest.NoRegistryProxy), env...)
	// A file, not a pipe: the model runners the server starts write to its standard output
	// too and may outlive it a moment; a pipe would hold Wait until they are gone.
	log, err := os.Create(filepath.Join(t.TempDir(), "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	serve.Stdout, serve.Stderr = log, log
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	s := &servedOllama{Cmd: serve, log: log.Name()}
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	for deadline := time.Now().Add(30 * time.Second); !ollamatest.Answers("http://" + host); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the ollama serve started at %s did not answer: %s", host, s.said())
		}
	}
	// Another server answering there (the app's own) would leave this one unable to listen.
	if !ollamatest.ProcessRuns(serve.Process.Pid) {
		t.Fatalf("another server answers at %s; the one this test started exited: %s", host, s.said())
	}
	return s
}

// waitAnswered waits until the server has answered a request of method for path with status:
// its request log (gin's, on its standard output) has the line, e.g.
// `[GIN] 2025/08/13 - 10:00:00 | 404 |  512µs |  127.0.0.1 | POST  "/api/show"`.
func (s *servedOllama) waitAnswered(t *testing.T, status int, method, path string, timeout time.Duration) {
	t.Helper()
	line := regexp.MustCompile(`(?m)^\[GIN\] .*\| ` + strconv.Itoa(status) + ` \|.*\| ` + method + ` +"` + regexp.QuoteMeta(path) + `"`)
	for deadline := time.Now().Add(timeout); !line.MatchString(s.said()); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server answered no %s %s with %d within %s: %s", method, path, status, timeout, s.said())
		}
	}
}

// modelsFolderWith is an Ollama models folder (for OLLAMA_MODELS) holding models, created
// through a server of its own, which is gone when it returns.
func modelsFolderWith(t *testing.T, models ...ollamatest.Model) string {
	t.Helper()
	dir := t.TempDir()
	url := ollamatest.FreeURL(t)
	serve := startServe(t, hostOf(t, url), "OLLAMA_MODELS="+dir)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, m := range models {
		if err := ollamatest.Create(ctx, url, m); err != nil {
			t.Fatalf("create %s in %s: %v", m.Name, dir, err)
		}
	}
	_ = serve.Process.Kill()
	_ = serve.Wait()
	return dir
}

// assertNoLoadShown checks from the bridge log that the window never showed "Loading MODEL…":
// the model was in memory before the first message.
func assertNoLoadShown(t *testing.T, lines []bridgeLine) {
	t.Helper()
	for _, l := range lines {
		for _, e := range l.Events {
			if e.Type == events.ModelLoading {
				t.Errorf("the window showed the model loading (seq %d): the first message paid the load", e.Seq)
			}
		}
	}
}

// managedRun is the window launched on an address where nothing answers, with PATH given
// and no way to the model registry.
type managedRun struct {
	desktopRun
	url string
}

func launchOnEmptyAddress(t *testing.T, bin, path string, args ...string) *managedRun {
	t.Helper()
	return launchOnEmptyAddressWith(t, store.Settings{Think: "on"}, bin, path, args...)
}

// launchOnEmptyAddressWith is [launchOnEmptyAddress] with the app's settings.
func launchOnEmptyAddressWith(t *testing.T, settings store.Settings, bin, path string, args ...string) *managedRun {
	t.Helper()
	display := startXvfb(t)
	r := &managedRun{url: ollamatest.FreeURL(t), desktopRun: *newDesktopRun(t, settings)}
	r.app = launchDesktop(t, bin, display,
		append([]string{"--db", r.db, "--workspace", r.workspace, "--ollama", r.url}, args...),
		"PATH="+path, events.LogEnv+"="+r.bridgeLog,
		"HTTPS_PROXY="+ollamatest.NoRegistryProxy, "HTTP_PROXY="+ollamatest.NoRegistryProxy)
	// Whatever happens, no server of this test outlives it.
	t.Cleanup(func() {
		for pid := range ollamatest.ServerProcesses(hostOf(t, r.url)) {
			if p, err := os.FindProcess(pid); err == nil {
				_ = p.Kill()
			}
		}
	})
	r.app.waitWindow("Prototyper", 60*time.Second)
	return r
}

// waitServer waits until a server answers at the run's address and returns the pid of the
// one serve process there, which the app started (beside it may run the runner of the model
// the window preloads).
func (r *managedRun) waitServer(t *testing.T) int {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !ollamatest.Answers(r.url) {
		if r.app.hasExited() {
			t.Fatalf("the app exited before a server answered at %s: %s", r.url, r.app.out.String())
		}
		if time.Now().After(deadline) {
			t.Fatalf("no server answers at %s 60 s after the window opened", r.url)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The window preloads its model as soon as the server answers: the model's runner, a child
	// of the server, may already be there. It is not a serve process.
	procs := ollamatest.ServerProcesses(hostOf(t, r.url))
	var servers []int // the processes at the address that no other one there started
	for pid, parent := range procs {
		if _, runner := procs[parent]; !runner {
			servers = append(servers, pid)
		}
	}
	if len(servers) != 1 {
		t.Fatalf("serve processes at %s: %v; want one, and the runners it started", r.url, procs)
	}
	if parent := procs[servers[0]]; parent != r.app.cmd.Process.Pid {
		t.Errorf("the server at %s (pid %d) is a child of %d, not of the app (%d)", r.url, servers[0], parent, r.app.cmd.Process.Pid)
	}
	return servers[0]
}

// TestDesktopStartsItsOwnOllamaWhereNoneAnswersAndStopsItWhenTheWindowCloses opens the window
// on an address where nothing answers, with the built ollama on PATH and a scripted model in
// its models folder: the app starts the server, loads the model it starts with as soon as the
// server answers (the first message shows no load), the model serves a run in the window, and
// once the window is closed no server is left.
func TestDesktopStartsItsOwnOllamaWhereNoneAnswersAndStopsItWhenTheWindowCloses(t *testing.T) {
	t.Setenv("OLLAMA_MODELS", modelsFolderWith(t, writerModel)) // the app's, and so its server's
	r := launchOnEmptyAddress(t, desktopBinary(t), ollamaOnPath(t), "--model", writerModel.Name)
	pid := r.waitServer(t)
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.db), "ollama.log")); err != nil {
		t.Errorf("the server's log is not in the app's data folder: %v", err)
	}
	waitLoaded(t, r.url, writerModel.Name)

	r.waitForComposer(t)
	r.app.focusWindow()
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	lines := r.waitFinished(t, 120*time.Second)
	assertNoLoadShown(t, lines)
	r.assertWroteHelloSeenRunning(t, lines)

	// The model's runner, started by the server, runs beside it until the app quits.
	if procs := ollamatest.ServerProcesses(hostOf(t, r.url)); len(procs) < 2 {
		t.Errorf("server processes after the run: %v; want the server and the model's runner", procs)
	}
	shot, _ := r.finish(t, "ollama-started-by-app.png")
	t.Logf("screenshot after the run: %s", shot)
	waitGone(t, pid)
	if procs := ollamatest.ServerProcesses(hostOf(t, r.url)); len(procs) != 0 || ollamatest.Answers(r.url) {
		t.Errorf("after the window closed: server and runner processes %v, answering %v; want none", procs, ollamatest.Answers(r.url))
	}
}

// TestDesktopUsesTheOllamaThatRunsAndLeavesItRunningWhenItQuits opens the window on a server
// that already runs, with the built ollama on PATH: the app starts no other server, runs the
// agent on that one, and leaves it running when the window closes.
func TestDesktopUsesTheOllamaThatRunsAndLeavesItRunningWhenItQuits(t *testing.T) {
	srv := ollamatest.Get(t)
	path := ollamaOnPath(t)
	before := ollamatest.ServerProcesses(hostOf(t, srv.URL()))
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "Write hello.txt with a greeting", withEnv("PATH="+path))
	r.waitFinished(t, 90*time.Second)
	if during := ollamatest.ServerProcesses(hostOf(t, srv.URL())); len(during) != len(before) {
		t.Errorf("serve processes at %s: %v before the window, %v with it; the app started another", srv.URL(), before, during)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(r.db), "ollama.log")); err == nil {
		t.Error("the app wrote a server log: it started a server beside the one that runs")
	}
	r.finish(t, "ollama-users-server.png")
	if !ollamatest.Answers(srv.URL()) {
		t.Fatal("the server that was running stopped answering when the window closed")
	}
}

// TestDesktopOffersAFirstModelAndSaysWhenItCannotBeDownloaded is `make run` on a fresh machine:
// no ollama on PATH, none running, no model. The app starts the server make installed beside
// it, the first-model offer has the focus, Enter pulls the recommended model, and with no way
// to the registry the pull fails at once and says so.
func TestDesktopOffersAFirstModelAndSaysWhenItCannotBeDownloaded(t *testing.T) {
	layoutCanMatter(t)
	bin := desktopBinary(t)
	tools := requireToolsOllama(t, bin)
	r := launchOnEmptyAddress(t, bin, pathWithoutOllama())
	pid := r.waitServer(t)
	exe, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if want, _ := filepath.EvalSymlinks(tools); exe != want {
		t.Errorf("the app started %s; want the server make installed, %s", exe, want)
	}
	r.app.waitForPage("first-model.png", 30*time.Second)
	r.app.focusWindow()
	// the offer comes with the first status of the server, the recommended model's Pull focused
	t.Logf("focused: %s", r.app.waitFocus(rolePushButton, "Pull ", 60*time.Second))
	if !r.app.says("of memory.") { // the recommendation fits this machine, and says so
		t.Errorf("the first-model offer does not say why its recommended model suits this machine: %q", r.app.textsWith("recommended"))
	}
	r.app.screenshot("first-model.png")
	r.app.key("Return")
	r.waitLog(t, events.PullProgress, true, 30*time.Second)
	r.waitLog(t, events.Error, true, 30*time.Second)
	time.Sleep(500 * time.Millisecond)
	shot := r.app.screenshot("first-model-offline.png")
	t.Logf("screenshot of the failed pull: %s", shot)
	if err := r.app.closeWindow(15 * time.Second); err != nil {
		t.Errorf("the app did not exit cleanly: %s", describeExit(err))
	}
	waitGone(t, pid)
}

// TestDesktopKilledLeavesNoOllamaBehind kills the app (SIGKILL: no cleanup runs) while the
// server it started runs: the server goes with it.
func TestDesktopKilledLeavesNoOllamaBehind(t *testing.T) {
	r := launchOnEmptyAddress(t, desktopBinary(t), ollamaOnPath(t))
	pid := r.waitServer(t)
	if err := r.app.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.app.waitExit(15 * time.Second)
	waitGone(t, pid)
	if ollamatest.Answers(r.url) {
		t.Errorf("a server still answers at %s after the app was killed", r.url)
	}
}

// TestDesktopSaysWhyOllamaCouldNotStartAndRetryUsesTheServerStartedMeanwhile puts on PATH an
// ollama that fails the way a taken port makes it fail: the window says so (its log's last
// line is in the app's folder) with Retry focused; the user starts a server there, presses
// Enter to retry, and only then pulls the model the window started with, as a user who runs
// `ollama serve` and then `ollama pull` would: the window, which found the server without the
// model, loads the model once it is there (the first message shows no load), and the agent
// runs on that server, which the app leaves running.
func TestDesktopSaysWhyOllamaCouldNotStartAndRetryUsesTheServerStartedMeanwhile(t *testing.T) {
	broken := t.TempDir()
	if err := os.WriteFile(filepath.Join(broken, "ollama"), []byte("#!/bin/sh\n"+
		"echo \"Error: listen tcp $OLLAMA_HOST: bind: address already in use\" >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	launched := time.Now()
	r := launchOnEmptyAddress(t, desktopBinary(t), broken+string(os.PathListSeparator)+pathWithoutOllama(), "--model", writerModel.Name)
	logPath := filepath.Join(filepath.Dir(r.db), "ollama.log")
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if log, _ := os.ReadFile(logPath); strings.Contains(string(log), "bind: address already in use") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the failed start left no log at %s", logPath)
		}
	}
	r.app.waitForPage("ollama-start-failed.png", 30*time.Second)
	r.app.focusWindow()
	r.app.waitFocus(rolePushButton, "Retry", 30*time.Second) // the panel comes with the status
	shot := r.app.screenshot("ollama-start-failed.png")
	t.Logf("the window after the failed start: %s", shot)

	// The user reads the panel for a while (longer than any request's own retries last), then
	// starts a server there, as the panel suggests, and retries.
	time.Sleep(time.Until(launched.Add(15 * time.Second)))
	serve := startServe(t, hostOf(t, r.url))
	r.app.focusWindow()
	// Retry has the focus, unless the window's own check found the server first: then the
	// composer has it, and Enter in the empty box sends nothing.
	r.app.key("Return")
	r.waitComposerFocus()
	// The window asked the server for its model, which is not there yet.
	serve.waitAnswered(t, 404, "POST", "/api/show", 30*time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := ollamatest.Create(ctx, r.url, writerModel); err != nil {
		t.Fatal(err)
	}

	waitLoaded(t, r.url, writerModel.Name)
	r.waitComposerFocus()
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	assertNoLoadShown(t, r.waitFinished(t, 120*time.Second))
	r.finish(t, "ollama-after-retry.png")
	if !ollamatest.Answers(r.url) {
		t.Error("the user's server stopped answering when the window closed")
	}
}

// TestDesktopAMessageSentWhileOllamaIsAwayIsNeverLeftUnexplained: the server the window works
// with goes away; a message sent then fails, and the window says Ollama is not running; once the
// server answers again, that sentence goes but the chat says the message was not answered, and
// its Retry asks again, on the server that is back.
func TestDesktopAMessageSentWhileOllamaIsAwayIsNeverLeftUnexplained(t *testing.T) {
	models := modelsFolderWith(t, folderModel)
	// The user runs their own server and has told the window not to start one: the app would
	// otherwise find the server make installed beside it and could take the address first.
	r := launchOnEmptyAddressWith(t, store.Settings{Think: "on", ManualOllama: true}, desktopBinary(t), pathWithoutOllama(), "--model", folderModel.Name)
	serve := startServe(t, hostOf(t, r.url), "OLLAMA_MODELS="+models)
	waitLoaded(t, r.url, folderModel.Name) // the window found the server by itself and preloads
	r.waitForComposer(t)
	r.app.focusWindow()
	r.sendAndWait(t, "Write where.txt", 1)

	_ = serve.Process.Kill()
	_ = serve.Wait()
	r.app.typeText("Write it again")
	r.app.key("Return")
	r.waitLog(t, events.Error, true, 90*time.Second)
	if !r.app.says("not running") {
		t.Errorf("the window does not say that Ollama is not running (%s)", r.app.screenshot("ollama-away.png"))
	}

	startServe(t, hostOf(t, r.url), "OLLAMA_MODELS="+models)
	unanswered := func(s string) bool { return strings.Contains(s, "This message was not answered") }
	if said := r.app.waitTexts(unanswered, 60*time.Second); len(said) != 1 {
		t.Fatalf("the chat says %q once Ollama is back, want the one not-answered notice (%s)", said, r.app.screenshot("ollama-back.png"))
	}
	r.app.screenshot("ollama-back.png")
	if err := os.Remove(filepath.Join(r.workspace, "where.txt")); err != nil {
		t.Fatal(err)
	}
	r.app.press("Retry")
	r.waitLogN(t, events.RunFinished, 3, true, 120*time.Second)
	r.wantWritten(t, "where.txt", "here\n")
	if said := r.app.texts(unanswered); len(said) != 0 {
		t.Errorf("the chat still says %q after the retry answered", said)
	}
	r.finish(t, "ollama-back-retried.png")
}
