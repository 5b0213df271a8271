//go:build moonshot

package tests

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
)

// The moonshot, measured (`make moonshot`): what a new user does on a fresh machine where an
// `ollama` is installed and a small model is present, timed step by step. A fresh clone of
// the committed tree, with empty Go build, Go module and npm caches (modules come from the
// proxy, packages from the registry); `make run` to the window; then, in the window, by
// keyboard and the accessibility tree: open a folder, choose the model, ask the approval of
// write_file in the settings, type the request, see the change before it is made, approve
// it, see the page in the preview, undo it and find the file gone; close the window. It is
// not part of `make test` (the build tag moonshot): it takes minutes and the network.
//
// The model is scripted (internal/ollamatest), as in the window's tests: it writes its page
// at once. What a real small model adds is printed as an estimate, from the stated figures.
// On a machine that has a real small model, PROTOTYPER_MOONSHOT_MODEL names it (as Ollama
// lists it) and PROTOTYPER_MOONSHOT_MODELS its models folder (by default ~/.ollama/models):
// the same steps then measure that model, which must write its page as index.html with a
// heading (<h1>) the preview shows.

// moonshotPage is the page the scripted model writes; its heading is what the preview shows.
const (
	moonshotHeading = "Tea, steeped slowly"
	moonshotPage    = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Tea</title>
<style>body{font-family:sans-serif;max-width:40em;margin:2em auto;color:#333}h1{color:#7a4}</style>
</head>
<body>
<h1>` + moonshotHeading + `</h1>
<p>` + moonshotParagraph + `</p>
<ul><li>Warm the pot first.</li><li>Weigh the leaves: 2 g a cup.</li><li>Taste before you add milk.</li></ul>
</body>
</html>
`
	moonshotParagraph = "Green tea likes water at 80 °C and two minutes; black tea boiling water and four."
	moonshotAnswer    = "I wrote index.html, a page about tea."
)

// The test starts the Ollama it needs; the shared one of the other tests would only load.
func init() { noSharedServer = true }

// moonshotModel is the small model already present: it writes index.html, then says so.
var moonshotModel = ollamatest.Model{Name: "moonshot-scripted", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": moonshotPage}),
	"SUAT": []string{moonshotAnswer},
}}

// What a real small model would add, stated as assumptions (no real model runs here): the
// agent's first request (system prompt, tool schemas, the message) read at a CPU's prompt
// speed, the page generated at its generation speed, and the short answer after the call.
const (
	estimateModel        = "qwen3:4b (Q4_K_M) on two x86 cores"
	estimatePromptTokens = 4000 // the system prompt and the tools' schemas, read once
	estimatePromptPerSec = 30.0 // prompt evaluation on two cores
	estimatePageTokens   = 300  // a one-page site with a little style, as the write_file call
	estimateAnswerTokens = 40   // the answer after the call (the prompt is cached by then)
	estimateGenPerSec    = 4.0  // generation on two cores
)

// moonshotSubject is the model the moonshot asks: the scripted one, or a real one present on
// this machine (PROTOTYPER_MOONSHOT_MODEL).
type moonshotSubject struct {
	name   string
	models string // the Ollama models folder it is in
	real   bool
}

func moonshotSubjectFor(t *testing.T) moonshotSubject {
	name := os.Getenv("PROTOTYPER_MOONSHOT_MODEL")
	if name == "" {
		return moonshotSubject{name: moonshotModel.Name, models: modelsFolderWith(t, moonshotModel)}
	}
	models := os.Getenv("PROTOTYPER_MOONSHOT_MODELS")
	if models == "" {
		home, _ := os.UserHomeDir()
		models = filepath.Join(home, ".ollama", "models")
	}
	if _, err := os.Stat(filepath.Join(models, "manifests")); err != nil {
		t.Fatalf("PROTOTYPER_MOONSHOT_MODEL=%s: no Ollama models folder at %s (set PROTOTYPER_MOONSHOT_MODELS to the folder that holds it): %v", name, models, err)
	}
	return moonshotSubject{name: name, models: models, real: true}
}

// pageHeading is the text of the first <h1> of an HTML page, "" when it has none.
func pageHeading(page string) string {
	m := regexp.MustCompile(`(?is)<h1[^>]*>(.*?)</h1>`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(m[1], ""))
}

// stopwatch prints each step's time since the start and since the step before.
type stopwatch struct {
	start, last time.Time
	rows        []string
}

func newStopwatch() *stopwatch { now := time.Now(); return &stopwatch{start: now, last: now} }

func (s *stopwatch) step(what string) {
	now := time.Now()
	row := fmt.Sprintf("moonshot: %7.1f s  (+%6.1f s)  %s", now.Sub(s.start).Seconds(), now.Sub(s.last).Seconds(), what)
	s.last = now
	s.rows = append(s.rows, row)
	fmt.Println(row)
}

func TestMoonshotFromMakeRunToAnUndoneChange(t *testing.T) {
	bin := ollamatest.Binary(t)
	root := moduleRoot(t)
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	caches := map[string]string{
		"GOCACHE":          filepath.Join(dir, "cache", "go-build"),
		"GOMODCACHE":       filepath.Join(dir, "cache", "go-mod"),
		"GOPATH":           filepath.Join(dir, "cache", "gopath"),
		"npm_config_cache": filepath.Join(dir, "cache", "npm"),
	}
	// the module cache is read-only, which t.TempDir's removal cannot undo
	t.Cleanup(func() {
		_ = exec.Command("chmod", "-R", "u+w", caches["GOMODCACHE"]).Run()
	})

	// The machine: Ollama installed (on PATH), a small model in its models folder, no server
	// running at the address the app will use, and a desktop (an X server, a session bus).
	subject := moonshotSubjectFor(t)
	models := subject.models
	onPath := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(onPath, "ollama")); err != nil {
		t.Fatal(err)
	}
	ollamaURL := ollamatest.FreeURL(t)
	display := startXvfb(t)
	bus, _ := sessionBuses.Load(display)

	if subject.real {
		fmt.Printf("moonshot: the model is %s, from %s (PROTOTYPER_MOONSHOT_MODEL)\n", subject.name, subject.models)
	} else {
		fmt.Println("moonshot: the model is SCRIPTED (" + moonshotModel.Name + ", internal/ollamatest): it writes its page at once; a real model's time is estimated at the end")
	}
	head, _ := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	fmt.Printf("moonshot: cloning the committed tree of %s at %s (uncommitted changes are not measured)\n", root, strings.TrimSpace(string(head)))
	fmt.Printf("moonshot: %d CPUs, load average %s at the start\n", runtime.NumCPU(), loadAverage())
	sw := newStopwatch()
	clone := filepath.Join(dir, "prototyper")
	if out, err := exec.Command("git", "clone", "--quiet", root, clone).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	sw.step("git clone")

	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR=" + filepath.Join(home, "run"),
		"PATH=" + onPath + string(os.PathListSeparator) + pathWithoutOllama(),
		"DISPLAY=" + display,
		"DBUS_SESSION_BUS_ADDRESS=" + bus.(string),
		"GDK_BACKEND=x11",
		"OLLAMA_HOST=" + strings.TrimPrefix(ollamaURL, "http://"),
		"OLLAMA_MODELS=" + models,
	}
	// PROTOTYPER_MOONSHOT_WARM=1 keeps this machine's caches: a run of the window's steps
	// after a short build, not the moonshot's figure
	warm := os.Getenv("PROTOTYPER_MOONSHOT_WARM") != ""
	if warm {
		fmt.Println("moonshot: WARM caches (PROTOTYPER_MOONSHOT_WARM): the build's time is not a fresh machine's")
		for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
			v, _ := exec.Command("go", "env", k).Output()
			env = append(env, k+"="+strings.TrimSpace(string(v)))
		}
		npmCache, _ := exec.Command("npm", "config", "get", "cache").Output()
		env = append(env, "npm_config_cache="+strings.TrimSpace(string(npmCache)))
	} else {
		for k, v := range caches {
			env = append(env, k+"="+v)
		}
	}
	for _, d := range []string{home, filepath.Join(home, "run")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	run := exec.Command("make", "run")
	run.Dir = clone
	run.Env = append(cleanEnviron(), env...)
	run.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &testenv.Output{}
	pr, pw := io.Pipe()
	run.Stdout, run.Stderr = pw, pw
	built := stampLines(pr, out, sw.start)
	if err := run.Start(); err != nil {
		t.Fatalf("make run: %v", err)
	}
	done := waitClosing(run, pw)
	t.Cleanup(func() { // whatever happens, nothing it started is left
		_ = syscall.Kill(-run.Process.Pid, syscall.SIGKILL)
		for pid := range ollamatest.ServerProcesses(hostOf(t, ollamaURL)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	a := &desktopApp{tb: t, display: display, out: out, done: done}

	// `make run` to the window: as a user sees it, a window titled Prototyper on the display.
	var buildAt time.Time
	for deadline := time.Now().Add(40 * time.Minute); a.window == ""; time.Sleep(500 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("make run exited (%v) before a window opened:\n%s", err, out.String())
		case at := <-built:
			buildAt = at
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no window 40 min after make run:\n%s", out.String())
		}
		// xdotool matches names without case: GTK's window named after the program
		// ("prototyper") is not the one
		ids, _ := a.xdotool("search", "--onlyvisible", "--name", "^Prototyper$")
		for _, id := range strings.Fields(ids) {
			if name, err := a.xdotool("getwindowname", id); err == nil && name == "Prototyper" {
				a.window = id
			}
		}
	}
	if !buildAt.IsZero() {
		fmt.Printf("moonshot: %7.1f s  make run said it opens the window (the build's end)\n", buildAt.Sub(sw.start).Seconds())
	}
	sw.step("make run: the window is there (load average " + loadAverage() + ")")
	// The a11y tree is read from the app's own process, make's grandchild.
	pid, err := a.xdotool("getwindowpid", a.window)
	n, _ := strconv.Atoi(pid)
	if err != nil || n == 0 {
		t.Fatalf("the window's process: %v (%s)", err, pid)
	}
	proc, _ := os.FindProcess(n)
	a.cmd = &exec.Cmd{Process: proc}
	r := &desktopRun{app: a, workspace: filepath.Join(home, "tea-site")}
	a.waitForPage("moonshot-start.png", 60*time.Second)
	a.focusWindow()
	if !a.says("Pick a workspace folder") {
		t.Fatalf("the window does not ask for a folder first (%s)", a.screenshot("moonshot-start.png"))
	}
	sw.step("the page is painted: it asks for a folder")

	// Open a folder: a new one, which the picker offers to create.
	r.openField("ctrl+o")
	a.typeText(r.workspace)
	if !a.says("Create " + r.workspace + " and use it") {
		t.Fatalf("the picker does not offer to create %s (%s)", r.workspace, a.screenshot("moonshot-folder.png"))
	}
	a.key("Return")
	r.waitHeaderFolder(r.workspace)
	sw.step("folder created and opened (Ctrl+O)")

	// Choose the model.
	r.openField("ctrl+m")
	a.typeText(subject.name)
	a.waitTexts(func(s string) bool { return strings.Contains(s, subject.name) }, 20*time.Second)
	a.key("Return")
	// with a folder and a model the message box can be used, and takes the keys
	r.waitComposerFocus()
	a.screenshot("moonshot-model.png")
	sw.step("model chosen (Ctrl+M): the message box has the keys")

	// Ask before writing files: write_file runs without asking by default (every write can be
	// undone); the user who wants to see each change first says so in the settings.
	a.key("ctrl+comma")
	a.waitFocus(roleComboBox, "Model server", 30*time.Second)
	approval := a.waitControl(roleComboBox, "Approval for write_file", 20*time.Second)
	var ok bool
	if err := a.a11yBus().Object(approval.node.Dest, approval.node.Path).Call(atspiComponent+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		t.Fatalf("focus the approval of write_file: %v (done: %v)", err, ok)
	}
	a.waitFocus(roleComboBox, "Approval for write_file", 10*time.Second)
	a.key("Down") // from "Run without asking" to "Ask me"
	a.screenshot("moonshot-settings.png")
	a.focus("Save")
	a.waitFocus(rolePushButton, "Save", 10*time.Second)
	a.key("Return")
	a.waitNoControl(rolePushButton, "Save", 20*time.Second)
	sw.step("settings: write_file asks first (Ctrl+,)")

	// The request.
	r.waitComposerFocus()
	a.screenshot("moonshot-ready.png")
	a.typeText("Make me a one-page site about tea, in index.html")
	a.key("Return")
	answerWithin := 3 * time.Minute
	if subject.real {
		answerWithin = 30 * time.Minute
	}
	if len(a.waitTexts(func(s string) bool { return strings.Contains(s, "waits for your approval") }, answerWithin)) == 0 {
		t.Fatalf("no call waits for approval (%s)\n%s", a.screenshot("moonshot-no-approval.png"), out.String())
	}
	// the change's diff, in the card: the scripted page's heading, or a real model's file
	seen := moonshotHeading
	if subject.real {
		seen = "index.html"
	}
	shown := a.says(seen)
	a.screenshot("moonshot-approval.png")
	index := filepath.Join(r.workspace, "index.html")
	if _, err := os.Stat(index); err == nil {
		t.Fatal("index.html was written before it was approved")
	}
	if !shown {
		t.Errorf("the waiting call does not show the page's text before it is written (%s)", a.screenshot("moonshot-approval.png"))
	}
	sw.step("request sent; the change is shown, not yet made")

	a.key("alt+a")
	var page []byte
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if page, err = os.ReadFile(index); err == nil && (string(page) == moonshotPage || subject.real && len(page) > 0) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index.html not written a minute after the approval (%s)", a.screenshot("moonshot-approved.png"))
		}
	}
	sw.step("approved (Alt+A): index.html written")
	if subject.real {
		// its answer is its own: the run's end is when the Stop button goes
		a.waitNoControl(rolePushButton, "■ Stop", answerWithin)
		sw.step("the model's run ended")
	} else {
		if !a.says(moonshotAnswer) {
			t.Errorf("the model's answer is not shown (%s)", a.screenshot("moonshot-answer.png"))
		}
		sw.step("the model's answer shown")
	}

	// A text of the page as a text of its own: in the preview's page, not in the card's diff
	// (whose line also holds the tags); not there before the pane opens. The scripted page's
	// paragraph, a real model's heading.
	pageText := moonshotParagraph
	if subject.real {
		if pageText = pageHeading(string(page)); pageText == "" {
			t.Fatalf("the page %s wrote has no <h1> for the preview's check:\n%s", subject.name, page)
		}
	}
	paragraph := func(s string) bool { return strings.TrimSpace(s) == pageText }
	if len(a.texts(paragraph)) != 0 {
		t.Fatal("the page's paragraph is shown before the preview is opened: the check below would prove nothing")
	}
	a.key("alt+p")
	if len(a.waitTexts(paragraph, time.Minute)) == 0 {
		t.Fatalf("the preview does not show the page (%s)", a.screenshot("moonshot-preview.png"))
	}
	a.screenshot("moonshot-preview.png")
	sw.step("the page seen in the preview (Alt+P)")

	a.key("alt+z")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(index); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("index.html still there a minute after the undo (%s)", a.screenshot("moonshot-undone.png"))
		}
	}
	sw.step("undone (Alt+Z): index.html is gone")
	total := time.Since(sw.start)
	// the pane reloads after the undo: the page that is gone is no longer shown
	for deadline := time.Now().Add(30 * time.Second); len(a.texts(paragraph)) != 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("30 s after the undo the preview still shows the page it removed (%s)", a.screenshot("moonshot-undone.png"))
			break
		}
	}
	a.screenshot("moonshot-undone.png")
	sw.step("the preview no longer shows the removed page")

	if err := a.closeWindow(60 * time.Second); err != nil {
		t.Errorf("make run did not end cleanly after the window closed: %s\n%s", describeExit(err), out.String())
	}
	for deadline := time.Now().Add(15 * time.Second); len(ollamatest.ServerProcesses(hostOf(t, ollamaURL))) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("Ollama processes left at %s after the window closed: %v", ollamaURL, ollamatest.ServerProcesses(hostOf(t, ollamaURL)))
			break
		}
	}
	sw.step("window closed: make run ended, the Ollama it started stopped")
	// On a machine others share, the wall time above is theirs too: the CPU time of make run
	// (the build, npm, the app) says what it costs on free cores.
	if ps := run.ProcessState; ps != nil {
		fmt.Printf("moonshot: make run used %.0f s of CPU (user %.0f s, system %.0f s), load average %s at the end\n",
			(ps.UserTime() + ps.SystemTime()).Seconds(), ps.UserTime().Seconds(), ps.SystemTime().Seconds(), loadAverage())
	}

	prompt := estimatePromptTokens / estimatePromptPerSec
	gen := (estimatePageTokens + estimateAnswerTokens) / estimateGenPerSec
	if subject.real {
		fmt.Printf("moonshot: TOTAL from git clone to the undone change: %.1f s (%.1f min) with %s\n", total.Seconds(), total.Minutes(), subject.name)
	} else {
		fmt.Printf("moonshot: TOTAL from git clone to the undone change: %.1f s (%.1f min) with the scripted model\n", total.Seconds(), total.Minutes())
		fmt.Printf("moonshot: ESTIMATE for a real model, %s (assumed, not measured): prompt %d tokens at %.0f/s = %.0f s, page and answer %d tokens at %.0f/s = %.0f s; total about %.1f min\n",
			estimateModel, estimatePromptTokens, estimatePromptPerSec, prompt, estimatePageTokens+estimateAnswerTokens, estimateGenPerSec, gen,
			(total.Seconds()+prompt+gen)/60)
	}
	if !warm {
		fmt.Printf("moonshot: caches filled: %s\n", duSizes(caches))
		fmt.Printf("moonshot: the module download alone (go mod download into another empty module cache): %s\n", timeModDownload(t, clone, env))
	}
}

// cleanEnviron is the environment without what would make the build use this machine's
// caches, this test's settings or the make that runs it.
func cleanEnviron() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "GOFLAGS" || k == "GOCACHE" || k == "GOMODCACHE" || k == "GOPATH" || k == "GOENV":
		case k == "MAKEFLAGS" || k == "MFLAGS" || k == "MAKELEVEL": // `make moonshot`'s, not a user's
		case strings.HasPrefix(k, "PROTOTYPER_") || strings.HasPrefix(k, "npm_config_") || strings.HasPrefix(k, "OLLAMA_"):
		default:
			env = append(env, kv)
		}
	}
	return env
}

// stampLines copies make's output to stdout and out, each line stamped with the seconds since
// start; the returned channel gets the moment make says it opens the window.
func stampLines(r io.Reader, out *testenv.Output, start time.Time) <-chan time.Time {
	opening := make(chan time.Time, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		blank := false // a blank line held back: GLib's messages begin with one
		print := func(text string) {
			line := fmt.Sprintf("  [%7.1f s] %s\n", time.Since(start).Seconds(), text)
			fmt.Print(line)
			_, _ = out.Write([]byte(line))
		}
		for sc.Scan() {
			// GTK complains when the test reads the text of an object that has none through
			// AT-SPI (a screen reader asks only objects that have text): the test's, not the app's
			if strings.Contains(sc.Text(), "impl_GetText: assertion 'ATK_IS_TEXT (user_data)' failed") {
				blank = false
				continue
			}
			if blank {
				print("")
			}
			if blank = sc.Text() == ""; blank {
				continue
			}
			print(sc.Text())
			if strings.HasPrefix(sc.Text(), "make: opening the window") {
				opening <- time.Now()
			}
		}
	}()
	return opening
}

// waitClosing waits for cmd in the background and closes w once it has exited.
func waitClosing(cmd *exec.Cmd, w *io.PipeWriter) chan error {
	done := make(chan error, 1)
	var once sync.Once
	go func() {
		err := cmd.Wait()
		once.Do(func() { _ = w.Close() })
		done <- err
	}()
	return done
}

// loadAverage is the machine's load over the last 1, 5 and 15 minutes.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// duSizes is the size each cache reached.
func duSizes(dirs map[string]string) string {
	var parts []string
	for _, k := range []string{"GOMODCACHE", "GOCACHE", "npm_config_cache"} {
		b, _ := exec.Command("du", "-sh", dirs[k]).Output()
		size, _, _ := strings.Cut(string(b), "\t")
		parts = append(parts, k+" "+size)
	}
	return strings.Join(parts, ", ")
}

// timeModDownload downloads the clone's modules again into an empty module cache and says
// how long it took: the download's share of the first build.
func timeModDownload(t *testing.T, clone string, env []string) string {
	modcache := filepath.Join(t.TempDir(), "go-mod")
	t.Cleanup(func() { _ = exec.Command("chmod", "-R", "u+w", modcache).Run() })
	cmd := exec.Command("go", "mod", "download")
	cmd.Dir = clone
	cmd.Env = append(append(cleanEnviron(), env...), "GOMODCACHE="+modcache)
	begin := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Sprintf("failed (%v): %s", err, out)
	}
	return fmt.Sprintf("%.1f s", time.Since(begin).Seconds())
}
