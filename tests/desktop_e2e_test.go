package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// desktopRun is one end-to-end run of the real window: the production binary under Xvfb,
// pointed at the real Ollama server with a scripted model, the workspace and model given by
// flags, the prompt typed with xdotool.
type desktopRun struct {
	app       *desktopApp
	workspace string
	db        string
	bridgeLog string
}

// startDesktopRun presets the settings a user would have chosen (thinking on), opens the
// window, types prompt into the composer and presses Enter.
func startDesktopRun(t *testing.T, model ollamatest.Model, prompt string) *desktopRun {
	t.Helper()
	return startDesktopRunWith(t, model, store.Settings{Think: "on"}, prompt)
}

// launchExtra is what a window test adds to the app's command line and environment, and
// what it puts in the database before the window opens.
type launchExtra struct {
	args, env    []string
	seed         func(db *store.DB, workspace string)
	inaccessible bool
}

// withArgs adds flags of the window; withEnv adds KEY=VALUE to the app's environment.
func withArgs(args ...string) launchExtra { return launchExtra{args: args} }
func withEnv(env ...string) launchExtra   { return launchExtra{env: env} }

// withoutAccessibility keeps the window off the accessibility bus, as for a user who runs no
// screen reader or other assistive technology: WebKit then builds no accessibility tree for
// its page. Such a window is driven by keys alone; its tree cannot be read.
func withoutAccessibility() launchExtra {
	return launchExtra{env: []string{"DBUS_SESSION_BUS_ADDRESS=", "NO_AT_BRIDGE=1"}, inaccessible: true}
}

// withSeed fills the database (the workspace is the window's folder) before the window opens.
func withSeed(seed func(db *store.DB, workspace string)) launchExtra { return launchExtra{seed: seed} }

// startDesktopRunWith is startDesktopRun with the given stored settings, and extra flags of
// the window or variables of its environment.
func startDesktopRunWith(t testing.TB, model ollamatest.Model, settings store.Settings, prompt string, extra ...launchExtra) *desktopRun {
	t.Helper()
	srv := ollamatest.Get(t)
	bin := desktopBinary(t)
	display := startXvfb(t)
	r := newDesktopRun(t, settings)
	for _, x := range extra {
		if x.seed != nil {
			db, err := store.Open(r.db, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			x.seed(db, r.workspace)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	args := []string{"--db", r.db, "--workspace", r.workspace, "--model", model.Name, "--ollama", srv.URL()}
	env := []string{events.LogEnv + "=" + r.bridgeLog}
	for _, x := range extra {
		args, env = append(args, x.args...), append(env, x.env...)
	}
	r.app = launchDesktop(t, bin, display, args, env...)
	r.app.inaccessible = slices.ContainsFunc(extra, func(x launchExtra) bool { return x.inaccessible })
	r.app.waitWindow("Prototyper", 60*time.Second)
	r.waitForComposer(t)
	// The composer has the focus at start: the prompt is typed, not clicked into.
	r.app.focusWindow()
	if prompt != "" {
		r.app.typeText(prompt)
		r.app.key("Return")
	}
	return r
}

// newDesktopRun makes the folders of a window test (workspace, database, bridge log) and
// saves the settings a user would have chosen.
func newDesktopRun(t testing.TB, settings store.Settings) *desktopRun {
	t.Helper()
	dir := t.TempDir()
	r := &desktopRun{
		workspace: filepath.Join(dir, "workspace"),
		db:        filepath.Join(dir, "data", "prototyper.db"),
		bridgeLog: filepath.Join(dir, "bridge.jsonl"),
	}
	if err := os.MkdirAll(r.workspace, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(r.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if settings.AckFallbackMs == 0 {
		// The bridge sends a result anyway when the window has not acknowledged its call within
		// the fallback (250 ms), so that a hung window never stalls a run. A loaded 2-core
		// machine can take that long to paint; these tests prove the window acknowledges every
		// card running before its result, not how fast it paints, so they allow it 10 s.
		settings.AckFallbackMs = 10000
	}
	if err := db.PutSettings(settings); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return r
}

// waitForComposer waits until the page has loaded its configuration (the window then shows
// more than the background: the page renders its layout only once it has the config) and the
// composer has the keyboard focus, as it takes it at start: what the test types goes there.
func (r *desktopRun) waitForComposer(t testing.TB) {
	t.Helper()
	r.app.waitForPage("e2e-start.png", 30*time.Second)
	r.app.focusWindow()
	if r.app.inaccessible {
		// a window kept off the accessibility bus cannot be asked where its focus is; the
		// composer has it at start, and a question typed elsewhere never finishes a run
		return
	}
	r.app.waitFocus(roleEntry, "Message", 60*time.Second)
}

// bridgeLine is one line of the bridge log: a batch sent or an ack received.
type bridgeLine struct {
	Kind    string            `json:"kind"`
	At      string            `json:"at"`
	Events  []events.LogEvent `json:"events"`
	Seq     uint64            `json:"seq"`
	Running []string          `json:"running"`
	Key     string            `json:"key"`
	Noted   string            `json:"noted"` // a key's: when the Go side noted it
	// Received and Painted are an ack's page times of its batch ("" where not given).
	Received string `json:"received"`
	Painted  string `json:"painted"`
}

func readBridgeLog(t testing.TB, path string) []bridgeLine {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var lines []bridgeLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var l bridgeLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			break // a line being written
		}
		lines = append(lines, l)
	}
	return lines
}

// waitLog waits until the bridge has sent an event of type typ — and, when acked, until the
// window acknowledged the batch holding it — and returns the log so far. It fails at once
// when the app exits meanwhile.
func (r *desktopRun) waitLog(t *testing.T, typ events.Type, acked bool, timeout time.Duration) []bridgeLine {
	t.Helper()
	return r.waitLogN(t, typ, 1, acked, timeout)
}

// waitLogN is waitLog for the n-th event of type typ.
func (r *desktopRun) waitLogN(t testing.TB, typ events.Type, n int, acked bool, timeout time.Duration) []bridgeLine {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		lines := readBridgeLog(t, r.bridgeLog)
		seen := 0
		for i, l := range lines {
			for _, e := range l.Events {
				if e.Type != typ {
					continue
				}
				if seen++; seen < n {
					continue
				}
				if !acked {
					return lines
				}
				for _, later := range lines[i+1:] {
					if later.Kind == events.LogKindAck && later.Seq >= e.Seq {
						return lines
					}
				}
			}
		}
		if r.app.hasExited() {
			t.Fatalf("the app exited while waiting for %s: %s\n%s", typ, describeExit(r.app.exitErr), r.app.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.app.screenshot("e2e-timeout.png")
	t.Fatalf("no %s #%d (acknowledged: %v) within %s; bridge log:\n%s", typ, n, acked, timeout, mustRead(r.bridgeLog))
	return nil
}

// waitFinished waits until the window painted the finished run.
func (r *desktopRun) waitFinished(t *testing.T, timeout time.Duration) []bridgeLine {
	t.Helper()
	return r.waitLog(t, events.RunFinished, true, timeout)
}

// waitResumedFinished waits until the window painted the end of the run that a decision
// resumed: the second run.finished, the first being the pause.
func (r *desktopRun) waitResumedFinished(t *testing.T, timeout time.Duration) []bridgeLine {
	t.Helper()
	return r.waitLogN(t, events.RunFinished, 2, true, timeout)
}

func mustRead(path string) string {
	b, _ := os.ReadFile(path)
	return string(b)
}

// hasFile reports whether name is in the run's workspace.
func (r *desktopRun) hasFile(name string) bool {
	_, err := os.Stat(filepath.Join(r.workspace, name))
	return err == nil
}

// wantWritten checks that name in the run's workspace holds want.
func (r *desktopRun) wantWritten(t *testing.T, name, want string) {
	t.Helper()
	wantContent(t, filepath.Join(r.workspace, name), want)
}

// writeFile writes name in the run's workspace with mode, as the user left it there.
func (r *desktopRun) writeFile(t *testing.T, name, content string, mode os.FileMode) {
	t.Helper()
	writeFile(t, filepath.Join(r.workspace, name), content, mode)
}

// wantFile checks the content and mode of name in the run's workspace; mode 0 means it must
// not exist.
func (r *desktopRun) wantFile(t *testing.T, name, content string, mode os.FileMode) {
	t.Helper()
	wantFile(t, filepath.Join(r.workspace, name), content, mode)
}

// assertEveryCallPaintedRunningBeforeItsResult checks the guarantee from the log: for every
// tool.result sent, an earlier ack listed its call among the running cards in the DOM. It
// returns the tool call ids seen.
func assertEveryCallPaintedRunningBeforeItsResult(t *testing.T, lines []bridgeLine) []string {
	t.Helper()
	paintedRunning := map[string]bool{}
	var ids []string
	for _, l := range lines {
		switch l.Kind {
		case events.LogKindAck:
			for _, id := range l.Running {
				paintedRunning[id] = true
			}
		case events.LogKindBatch:
			for _, e := range l.Events {
				if e.Type != events.ToolResult {
					continue
				}
				ids = append(ids, e.ToolCallID)
				if !paintedRunning[e.ToolCallID] {
					t.Errorf("tool call %s: its result (seq %d) was sent before any ack reported its card painted running\n%s",
						e.ToolCallID, e.Seq, bridgeLogText(lines))
				}
			}
		}
	}
	return ids
}

// bridgeLogText is the log as it reads, for a failure's message.
func bridgeLogText(lines []bridgeLine) string {
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	return b.String()
}

// finish takes the after-run screenshot, closes the window, and opens the store.
func (r *desktopRun) finish(t *testing.T, shotName string) (shot string, db *store.DB) {
	t.Helper()
	time.Sleep(500 * time.Millisecond) // the last frames of the reasoning fold and the answer
	shot = r.app.screenshot(shotName)
	// The bridge log beside the screenshot: what the window was sent and acknowledged.
	if data, err := os.ReadFile(r.bridgeLog); err == nil {
		_ = os.WriteFile(strings.TrimSuffix(shot, ".png")+".bridge.jsonl", data, 0o644)
	}
	if n, _ := colourCount(t, shot, 256); n < 32 {
		t.Errorf("the screenshot after the run shows %d colours: a blank or error screen (%s)", n, shot)
	}
	if err := r.app.closeWindow(15 * time.Second); err != nil {
		t.Errorf("the app did not exit cleanly: %s", describeExit(err))
	}
	db, err := store.Open(r.db, store.Options{})
	if err != nil {
		t.Fatalf("open the store after the run: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return shot, db
}

// savedSettings waits for the settings dialog to close once saved, finishes the run with the
// screenshot shotName, and returns the settings the store then holds.
func (r *desktopRun) savedSettings(t *testing.T, shotName string) store.Settings {
	t.Helper()
	r.app.waitNoControl(rolePushButton, "Cancel", 30*time.Second) // saved: the dialog closes
	_, db := r.finish(t, shotName)
	s, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reopen quits the window and opens it again on the run's database (the chat it shows is the
// newest, as the store has it), with a bridge log of its own.
func (r *desktopRun) reopen(t *testing.T, model ollamatest.Model, name string) {
	t.Helper()
	if err := r.app.closeWindow(15 * time.Second); err != nil {
		t.Fatalf("the app did not exit cleanly: %s", describeExit(err))
	}
	r.relaunch(t, model, name)
}

// relaunch opens the window again on the run's database, once it was closed, as reopen does.
func (r *desktopRun) relaunch(t *testing.T, model ollamatest.Model, name string) {
	t.Helper()
	r.bridgeLog = filepath.Join(filepath.Dir(r.bridgeLog), name+".jsonl")
	r.app = launchDesktop(t, desktopBinary(t), r.app.display,
		[]string{"--db", r.db, "--workspace", r.workspace, "--model", model.Name, "--ollama", ollamatest.Get(t).URL()},
		events.LogEnv+"="+r.bridgeLog)
	r.app.waitWindow("Prototyper", 60*time.Second)
	r.waitForComposer(t) // the window opens the newest chat by itself: the caller waits for it
}

// assertWroteHelloSeenRunning checks a finished run of writerModel in the window: its one
// call painted running before its result was sent, and hello.txt as the model wrote it.
func (r *desktopRun) assertWroteHelloSeenRunning(t *testing.T, lines []bridgeLine) {
	t.Helper()
	if ids := assertEveryCallPaintedRunningBeforeItsResult(t, lines); len(ids) != 1 {
		t.Errorf("tool results sent: %v, want one (write_file)", ids)
	}
	r.wantWritten(t, "hello.txt", "hello from Prototyper\n")
}

// theEndedAnswer returns the one run of the one chat in db, which must have ended as stop,
// and its answer: the chat holds the prompt and that answer, incomplete, and nothing else.
func theEndedAnswer(t *testing.T, db *store.DB, stop string) (store.Run, store.Message) {
	t.Helper()
	chat := theOneChat(t, db)
	runs, err := db.RunsOf(chat.ID)
	if err != nil || len(runs) != 1 || runs[0].Live || runs[0].StopReason != stop {
		t.Fatalf("runs = %+v, %v; want one, ended as %q", runs, err, stop)
	}
	msgs, err := db.Messages(chat.ID)
	if err != nil || len(msgs) != 2 || msgs[1].Role != store.RoleAssistant || msgs[1].Complete {
		t.Fatalf("messages = %+v, %v; want the prompt and the partial answer, incomplete", msgs, err)
	}
	return runs[0], msgs[1]
}

// TestDesktopAPastedMessageTooLongForTheModelIsNeverSent pastes 200 KB into the composer of a
// model with a 4k context: the composer says it is too long, Enter sends nothing, and no chat
// is stored.
func TestDesktopAPastedMessageTooLongForTheModelIsNeverSent(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.paste(t, []byte(strings.Repeat("Please build a site with many pages. ", 5500)), "")
	// the composer asks for the model's budget and says what it found
	if !r.app.says("Shorten it or attach less") {
		t.Fatalf("the composer does not say the message is too long for the model (%s)", r.app.screenshot("e2e-too-long.png"))
	}
	r.assertEnterSendsNothing(t, "e2e-too-long.png")
}

// paste puts data on the display's clipboard, as a user's Copy does, and pastes it into the
// focused field with Ctrl+V. mime is the type the clipboard offers it as; "" offers text.
func (r *desktopRun) paste(t *testing.T, data []byte, mime string) {
	t.Helper()
	args := []string{"-selection", "clipboard", "-i"}
	if mime != "" {
		args = append(args, "-t", mime)
	}
	cmd := exec.Command(debianTool(t, "xclip", "xclip"), args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+r.app.display)
	cmd.Stdin = bytes.NewReader(data)
	// xclip stays behind to serve the clipboard: no pipes to wait on (until Xvfb goes).
	if err := cmd.Run(); err != nil {
		t.Fatalf("put %d bytes on the clipboard: %v", len(data), err)
	}
	r.app.key("ctrl+v")
}

// assertEnterSendsNothing presses Enter in the composer, which refuses its draft: no run
// starts (the bridge log says so), and once the window is closed no chat is stored.
func (r *desktopRun) assertEnterSendsNothing(t *testing.T, shotName string) {
	t.Helper()
	r.app.key("Return")
	time.Sleep(3 * time.Second)
	shot := r.app.screenshot(shotName)
	for _, l := range readBridgeLog(t, r.bridgeLog) {
		for _, e := range l.Events {
			if e.Type == events.RunStarted {
				t.Fatalf("a run started for a message the composer refused (%s)", shot)
			}
		}
	}
	_, db := r.finish(t, strings.TrimSuffix(shotName, ".png")+"-after.png")
	if chats, err := db.ListChats(); err != nil || len(chats) != 0 {
		t.Errorf("chats after the refused message = %v, %v; want none", chats, err)
	}
}

// TestDesktopEndToEndThinkWriteFileAnswerEveryCardSeenRunning: the thinking, the card seen
// running before its result, the file, the answer without the thinking's tags, its usage.
func TestDesktopEndToEndThinkWriteFileAnswerEveryCardSeenRunning(t *testing.T) {
	layoutCanMatter(t)
	eachProvider(t, func(t *testing.T, p provider) {
		r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "Write hello.txt with a greeting", p.window(t))
		r.assertWroteHelloSeenRunning(t, r.waitFinished(t, 90*time.Second))

		shot, db := r.finish(t, "e2e-write-file-"+string(p)+".png")
		t.Logf("screenshot after the run: %s", shot)
		chat := theOneChat(t, db)
		msgs, err := db.Messages(chat.ID)
		if err != nil {
			t.Fatal(err)
		}
		var roles []string
		for _, m := range msgs {
			roles = append(roles, m.Role)
		}
		if want := []string{"user", "assistant", "tool", "assistant"}; !slices.Equal(roles, want) {
			t.Fatalf("stored roles = %v, want %v", roles, want)
		}
		if msgs[0].Content != "Write hello.txt with a greeting" {
			t.Errorf("stored prompt = %q", msgs[0].Content)
		}
		if msgs[1].Thinking != "The user wants a file. I should write hello.txt." || strings.Contains(msgs[1].Content+msgs[3].Content, "<think>") {
			t.Errorf("first answer %+v: want the thinking apart from the content", msgs[1])
		}
		if last := msgs[3]; !last.Complete || !strings.Contains(last.Content, "I wrote `hello.txt` with a greeting.") || last.Usage == nil || last.Usage.EvalTokens == 0 {
			t.Errorf("stored answer = %+v, want the complete answer with its usage", last)
		}
		calls, err := db.ToolCalls(chat.ID)
		if err != nil || len(calls) != 1 || calls[0].Pending || !calls[0].OK || calls[0].Name != "write_file" {
			t.Errorf("tool records = %+v, %v; want one completed write_file", calls, err)
		}
	})
}

// TestDesktopEndToEndFiveInstantCallsInARowEachSeenRunning: one call per turn, five turns,
// every card painted running before its result.
func TestDesktopEndToEndFiveInstantCallsInARowEachSeenRunning(t *testing.T) {
	layoutCanMatter(t)
	eachProvider(t, func(t *testing.T, p provider) {
		r := startDesktopRunWith(t, fiveCallsModel, store.Settings{Think: "on"}, "List the workspace five times", p.window(t))
		lines := r.waitFinished(t, 120*time.Second)
		ids := assertEveryCallPaintedRunningBeforeItsResult(t, lines)
		if len(ids) != 5 {
			t.Errorf("tool results sent: %d (%v), want five", len(ids), ids)
		}
		shot, db := r.finish(t, "e2e-five-calls-"+string(p)+".png")
		t.Logf("screenshot after the run: %s", shot)
		calls, err := db.ToolCalls(theOneChat(t, db).ID)
		if err != nil || len(calls) != 5 {
			t.Fatalf("tool records = %d, %v; want five", len(calls), err)
		}
		for _, c := range calls {
			if c.Pending || !c.OK {
				t.Errorf("tool record %s = pending %v ok %v, want completed", c.ID, c.Pending, c.OK)
			}
		}
	})
}

// TestDesktopClosingTheWindowDuringARunStopsItAndKeepsThePartialAnswer closes the window
// while the answer streams: the app exits on its own, the run is recorded as aborted with
// the partial answer kept, and the window opens again on the same chat.
func TestDesktopClosingTheWindowDuringARunStopsItAndKeepsThePartialAnswer(t *testing.T) {
	r := startDesktopRun(t, longAnswerModel, "Write a long answer")
	r.waitLog(t, events.TextDelta, false, 60*time.Second) // the answer streams

	closedAt := time.Now()
	if err := r.app.closeWindow(15 * time.Second); err != nil {
		t.Errorf("the app did not exit cleanly when closed during a run: %s", describeExit(err))
	}
	exitTook := time.Since(closedAt)

	db, err := store.Open(r.db, store.Options{})
	if err != nil {
		t.Fatalf("open the store after closing: %v", err)
	}
	run, answer := theEndedAnswer(t, db, events.StopAborted)
	stopTook := run.FinishedAt.Sub(closedAt)
	t.Logf("closed during the run: run stopped %s after the close, process exited after %s",
		stopTook.Round(time.Millisecond), exitTook.Round(time.Millisecond))
	full := strings.Join(longAnswerPieces(), "")
	if answer.Content == "" || !strings.HasPrefix(full, answer.Content) {
		t.Errorf("stored answer: %d bytes; want a non-empty prefix of the script", len(answer.Content))
	}
	if len(answer.Content) == len(full) {
		t.Errorf("the whole answer was stored: the run was not stopped while streaming")
	}
	db.Close()

	// Reopen: the window shows the chat as it was.
	again := launchDesktop(t, desktopBinary(t), r.app.display, []string{"--db", r.db, "--ollama", ollamatest.Get(t).URL()})
	again.waitWindow("Prototyper", 60*time.Second)
	// the window opens the newest chat by itself; on a busy machine it takes a while
	var shot string
	for n, deadline := 0, time.Now().Add(30*time.Second); n < 32; time.Sleep(300 * time.Millisecond) {
		shot = again.screenshot("e2e-reopened.png")
		if n, _ = colourCount(t, shot, 256); n < 32 && time.Now().After(deadline) {
			t.Errorf("the reopened window shows %d colours: a blank or error screen (%s)", n, shot)
			break
		}
	}
	if err := again.closeWindow(15 * time.Second); err != nil {
		t.Errorf("the reopened app did not exit cleanly: %s", describeExit(err))
	}
}

// TestDesktopAnAnswerTheServerCutsOffKeepsItsThinkingAndWhatArrived: the model thinks
// (slowly: a proxy passes its first lines on 300 ms apart), begins its answer, and the server
// ends the stream before the answer's end. The window painted the thinking while it streamed,
// before any of the answer was sent to it, and then the error with its Retry; the store keeps
// the thinking and the partial answer, incomplete, and the run ended as an error.
func TestDesktopAnAnswerTheServerCutsOffKeepsItsThinkingAndWhatArrived(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		slow := pacedProxy(t, ollamatest.Get(t).URL(), 6, 300*time.Millisecond)
		r := startDesktopRunWith(t, cutModel, store.Settings{Think: "on"}, "Explain it", withArgs(p.argsAt(slow)...))
		lines := r.waitFinished(t, 90*time.Second)
		var order []events.Type
		var thinkingPainted, paintedBeforeAnswer bool
		for _, l := range lines {
			if l.Kind == events.LogKindAck && len(order) > 0 && !slices.Contains(order, events.TextDelta) {
				thinkingPainted = true // an ack of a batch sent after the first thinking, before any answer
			}
			for _, e := range l.Events {
				if e.Type == events.ThinkingDelta || e.Type == events.TextDelta || e.Type == events.Error {
					order = append(order, e.Type)
				}
				if e.Type == events.TextDelta && !slices.Contains(order[:len(order)-1], events.TextDelta) {
					paintedBeforeAnswer = thinkingPainted
				}
			}
		}
		if len(order) < 3 || order[0] != events.ThinkingDelta || order[len(order)-1] != events.Error {
			t.Errorf("thinking, answer and error sent in the order %v; want the thinking first and the error last", order)
		}
		if !paintedBeforeAnswer {
			t.Errorf("no batch of thinking was painted before the answer was sent: the thinking did not show live\n%s", bridgeLogText(lines))
		}
		r.app.waitControl(rolePushButton, "Retry", 20*time.Second) // the error's notice, with what to do
		shot, db := r.finish(t, "e2e-cut-"+string(p)+".png")
		t.Logf("screenshot after the run: %s", shot)
		_, answer := theEndedAnswer(t, db, events.StopError)
		if answer.Thinking != strings.Join(cutThinking, "") || !strings.HasPrefix(answer.Content, strings.Join(cutAnswer, "")) ||
			strings.Contains(answer.Content, "<think>") {
			t.Errorf("stored answer: thinking %q, content %q; want the thinking and the partial answer", answer.Thinking, answer.Content)
		}
	})
}

// longPath is deep enough that the card's line cannot hold it whole in any layout.
const longPath = "site/assets/a/folder/name/that/goes/on/and/on/and/on/and/on/until/it/no/longer/fits/components/ToolCard.tsx"

// cardsModel writes a file at a long path, searches the workspace, reads a file that is not
// there (a failed call), then asks to delete the file (the user replies instead); after the
// reply it lists the workspace again and again (the loop guard refuses the repeats, then
// stops the run).
var cardsModel = ollamatest.Model{Name: "e2e-cards", Scripts: ollamatest.Scripts{
	"SU":       slices.Concat(ollamatest.Think("Write it."), ollamatest.ToolCall("write_file", map[string]any{"path": longPath, "content": "hello\n"})),
	"SUAT":     slices.Concat(ollamatest.Think("Find it."), ollamatest.ToolCall("search_files", map[string]any{"pattern": "hello", "path": "."})),
	"SUATAT":   slices.Concat(ollamatest.Think("Read it."), ollamatest.ToolCall("read_file", map[string]any{"path": "missing.txt"})),
	"SUATATAT": slices.Concat(ollamatest.Think("Remove it."), ollamatest.ToolCall("delete_path", map[string]any{"path": longPath})),
	// after the reply: the same call until the loop guard stops the run
	ollamatest.Fallback: slices.Concat(ollamatest.Think("Look."), ollamatest.ToolCall("list_dir", map[string]any{"path": "."})),
}}

// The tool cards of issue #16 and #17 in the real window, by keyboard only: a long path keeps
// its file name, a search shows its pattern, a failed call says why on its card; a call the
// user answered by replying, and the calls the loop guard refused, read "not run" (neutral,
// with the reason); the loop's stop sentence comes back when the chat is opened from the store;
// a listing of the workspace reads "the workspace", not "."; the run that wrote the long path
// changed that file (the folders it made are counted apart).
// The screenshots (tests/artifacts/cards-*.png) show each.
func TestDesktopToolCardsSayWhatACallIsAboutAndWhyItFailedOrDidNotRun(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, cardsModel,
		store.Settings{Think: "on", ToolApproval: map[string]string{"*": "auto", "delete_path": "ask"}}, "Make the site")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	time.Sleep(time.Second)
	r.app.screenshot("cards-path-search-failed.png")

	// quit while the delete waits; the window opened again shows the chat with the card
	// waiting, and the focus stays in the composer: the user replies instead of approving
	r.reopen(t, cardsModel, "bridge-reply")
	r.app.waitControl(rolePushButton, "Approve", 20*time.Second) // the chat is open
	r.app.typeText("No, leave it")
	r.app.key("Return")
	replied := r.waitLog(t, events.RunFinished, true, 60*time.Second)
	time.Sleep(time.Second)
	r.app.screenshot("cards-not-run-live.png")

	// opened from the store: the cards still read "not run" and the loop's sentence is there;
	// the listing of the workspace says so in words, never "."
	r.reopen(t, cardsModel, "bridge-reopened")
	r.app.waitControl(rolePushButton, "Open the workspace", 20*time.Second)
	// the first run's Undo names the file it wrote, not the folders the write made for it
	r.app.waitControl(rolePushButton, "Undo the run that changed "+longPath, 20*time.Second)
	if dots := r.app.controls(rolePushButton, "Open ."); len(dots) != 0 {
		t.Errorf("%d buttons named %q: the listing of the workspace reads as \".\"", len(dots), "Open .")
	}
	shot, db := r.finish(t, "cards-reopened.png")
	t.Logf("the reopened chat: %s", shot)

	if !r.hasFile(longPath) {
		t.Error("the file at the long path is gone or was never written")
	}
	chat := theOneChat(t, db)
	calls, _ := db.ToolCalls(chat.ID)
	var got []string
	for _, c := range calls {
		state := "failed"
		switch {
		case c.NotRun != "":
			state = "not run (" + c.NotRun + ")"
		case c.OK:
			state = "ok"
		}
		got = append(got, c.Name+" "+state)
	}
	want := []string{"write_file ok", "search_files ok", "read_file failed", "delete_path not run (replied)",
		"list_dir ok", "list_dir not run (repeated)", "list_dir not run (loop)"}
	if !slices.Equal(got, want) {
		t.Errorf("tool calls:\n got %v\nwant %v", got, want)
	}
	// a call that did not run was never painted running; the one that ran was
	painted := map[string]bool{}
	for _, l := range replied {
		for _, id := range l.Running {
			painted[id] = true
		}
	}
	for _, c := range calls[3:] {
		if painted[c.ID] != (c.NotRun == "") {
			t.Errorf("%s (not run: %q) painted running: %v", c.Name, c.NotRun, painted[c.ID])
		}
	}
	runs, err := db.RunsOf(chat.ID)
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs = %+v, %v; want the paused one and the one stopped as a loop", runs, err)
	}
	loop := runs[1]
	if loop.StopReason != events.StopLoop || len(loop.Notes) != 1 || loop.Notes[0].StopReason != events.StopLoop ||
		!strings.Contains(loop.Notes[0].Message, "list_dir") {
		t.Errorf("the loop's run = stop %q, notes %+v; want its sentence naming list_dir kept with it", loop.StopReason, loop.Notes)
	}
}
