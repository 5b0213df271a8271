package tests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// The small Python project commandLoopModel writes: add is wrong at first, then fixed.
const (
	calcWrong = "def add(a, b):\n    return a - b\n"
	calcFixed = "def add(a, b):\n    return a + b\n"
	// The test says it starts on stdout, then waits long enough for its card to be read
	// running with that line in it; unittest reports on stderr.
	calcTest = `import time
import unittest

from calc import add


class AddTest(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 3), 5)


if __name__ == "__main__":
    print("testing calc.add", flush=True)
    time.sleep(4)
    unittest.main()
`
	firstRun  = "python3 test_calc.py"
	secondRun = "python3 test_calc.py -v"
	// bigRun prints 79 MB (one number a line), then fails: its output stays open on its card.
	bigRun = "seq 1 10000000; exit 3"
	// longRun would run for ten minutes: the user stops it.
	longRun = "sleep 600"
)

// commandLoopModel writes calc.py (wrong) and its test, runs the test, fixes calc.py after
// the failure, runs the test again (the same program, another command line), then answers;
// asked again, it sleeps ten minutes; asked once more, it prints ten million lines.
var commandLoopModel = ollamatest.Model{Name: "e2e-command-loop", Scripts: ollamatest.Scripts{
	"SU":                ollamatest.ToolCall("write_file", map[string]any{"path": "calc.py", "content": calcWrong}),
	"SUAT":              ollamatest.ToolCall("write_file", map[string]any{"path": "test_calc.py", "content": calcTest}),
	"SUATAT":            ollamatest.ToolCall("run_command", map[string]any{"command": firstRun}),
	"SUATATAT":          ollamatest.ToolCall("write_file", map[string]any{"path": "calc.py", "content": calcFixed}),
	"SUATATATAT":        ollamatest.ToolCall("run_command", map[string]any{"command": secondRun}),
	"SUATATATATAT":      []string{"The test ", "passes now."},
	"SUATATATATATAU":    ollamatest.ToolCall("run_command", map[string]any{"command": longRun}),
	"SUATATATATATAUATU": ollamatest.ToolCall("run_command", map[string]any{"command": bigRun}),
}}

// The AT-SPI roles and state a command's approval is read with: ATSPI_ROLE_CHECK_BOX, and
// ATSPI_STATE_CHECKED.
const (
	roleCheckBox a11yRole = 7
	stateChecked          = 4
)

// namedText is the text of the window's objects named name, their descendants' included, as
// a screen reader reads them ("" when none is there).
func (a *desktopApp) namedText(name string) (string, bool) {
	var b strings.Builder
	found := false
	a.each(func(n a11yNode) {
		if found || a.name(n) != name {
			return
		}
		found = true
		var collect func(n a11yNode, depth int)
		collect = func(n a11yNode, depth int) {
			if t := a.text(n); t != "" {
				b.WriteString(t)
			}
			if depth < 6 {
				for _, c := range a.children(n) {
					collect(c, depth+1)
				}
			}
		}
		collect(n, 0)
	})
	return b.String(), found
}

// waitNamedText waits until an object named name holds every part, and returns its text; it
// fails the test with a screenshot when the time is up.
func (a *desktopApp) waitNamedText(name string, timeout time.Duration, parts ...string) string {
	a.tb.Helper()
	var text string
	var found bool
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if text, found = a.namedText(name); found && containsAll(text, parts) {
			return text
		}
	}
	a.tb.Fatalf("the window has %s named %q holding %q after %s (its text: %q; %s)",
		map[bool]string{true: "an object", false: "no object"}[found], name, parts, timeout, text, a.screenshot("command-timeout.png"))
	return ""
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// outputPaintLatency is, over the batches holding tool.output events, the time from the
// batch sent to the first acknowledgement of its paint: p50, p99 and the number of batches.
func outputPaintLatency(lines []bridgeLine) (p50, p99 time.Duration, n int) {
	var waits []time.Duration
	for i, l := range lines {
		if l.Kind != events.LogKindBatch || !slices.ContainsFunc(l.Events, func(e events.LogEvent) bool { return e.Type == events.ToolOutput }) {
			continue
		}
		sent, err := time.Parse(time.RFC3339Nano, l.At)
		if err != nil {
			continue
		}
		last := l.Events[len(l.Events)-1].Seq
		for _, a := range lines[i+1:] {
			if a.Kind == events.LogKindAck && a.Seq >= last {
				if at, err := time.Parse(time.RFC3339Nano, a.At); err == nil {
					waits = append(waits, at.Sub(sent))
				}
				break
			}
		}
	}
	if len(waits) == 0 {
		return 0, 0, 0
	}
	slices.Sort(waits)
	return waits[len(waits)/2], waits[(len(waits)*99)/100], len(waits)
}

// workspaceEntries lists the names at the top of the workspace.
func (r *desktopRun) workspaceEntries(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(r.workspace)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A run writes a small Python project, runs its test (the command approved by its prefix with
// "Always allow", from the keyboard), sees it fail, fixes the code and runs the test again
// (allowed by that prefix, unasked): each command's card is read running with its output live,
// then ended with its exit status. Undo then puts the workspace back as it was, the files the
// command made (Python's bytecode cache) included.
func TestDesktopACommandRunsTheTestsSeesOneFailAndUndoTakesBackTheWholeRun(t *testing.T) {
	r := startDesktopRunWith(t, commandLoopModel,
		store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "auto", "run_command": "ask"}},
		"Write add in calc.py with a test, and make the test pass")

	// The approval: the command line, its folder, the network off, the prefix to always allow.
	r.waitLog(t, events.ToolApprovalRequest, true, 90*time.Second)
	r.app.waitNamedText("Command line", 20*time.Second, firstRun)
	if !r.app.says("in the workspace, in a sandbox") {
		t.Error("the approval card does not say the command runs in the workspace, in a sandbox")
	}
	network := r.app.waitControl(roleCheckBox, "Allow network", 20*time.Second)
	if r.app.hasState(network.node, network.name, stateChecked) {
		t.Error("Allow network is on before the user chose it")
	}
	prefix := r.app.waitControl(roleEntry, "Always allow commands starting with", 20*time.Second)
	if got := r.app.text(prefix.node); got != firstRun {
		t.Errorf("the prefix offered to always allow is %q, want %q", got, firstRun)
	}
	r.app.screenshot("command-approval.png")
	r.wantFile(t, "calc.py", calcWrong, 0o644) // written before the command, unasked
	if names := r.workspaceEntries(t); !slices.Equal(names, []string{"calc.py", "test_calc.py"}) {
		t.Errorf("the workspace holds %v before the command ran, want calc.py and test_calc.py", names)
	}

	// Always allow (Alt+L, from the composer): the first command runs, seen running with its
	// output as it comes, then ended with its exit status and what failed.
	r.app.key("alt+l")
	r.app.waitNamedText("Output of "+firstRun+", live", 60*time.Second, "testing calc.add")
	r.app.waitNamedText("Running "+firstRun+"…", 5*time.Second)
	r.app.screenshot("command-running.png")
	r.app.waitNamedText("Ran "+firstRun+", exit 1", 60*time.Second)
	out := r.app.waitNamedText("Output of "+firstRun, 20*time.Second, "testing calc.add", "FAIL: test_adds", "AssertionError: -1 != 5", "FAILED (failures=1)")
	t.Logf("the first command's output, as the window reads it:\n%s", out)
	r.app.screenshot("command-completed.png")

	// The fix, and the second command, allowed by the prefix: seen running, then passing.
	r.app.waitNamedText("Output of "+secondRun+", live", 60*time.Second, "testing calc.add")
	r.app.waitNamedText("Ran "+secondRun+", exit 0", 60*time.Second)
	lines := r.waitResumedFinished(t, 60*time.Second)
	r.app.screenshot("command-passed.png")

	results := assertEveryCallPaintedRunningBeforeItsResult(t, lines)
	if len(results) != 5 {
		t.Errorf("tool results sent: %v, want five (three writes, two commands)", results)
	}
	approvals, outputs := 0, map[string]int{}
	for _, l := range lines {
		for _, e := range l.Events {
			switch e.Type {
			case events.ToolApprovalRequest:
				approvals++
			case events.ToolOutput:
				outputs[e.ToolCallID]++
			}
		}
	}
	if approvals != 1 {
		t.Errorf("%d approvals asked, want one: the second command matches the prefix allowed", approvals)
	}
	if len(outputs) != 2 {
		t.Errorf("tool.output sent for %d calls (%v), want both commands'", len(outputs), outputs)
	}
	r.wantFile(t, "calc.py", calcFixed, 0o644)
	made := slices.DeleteFunc(r.workspaceEntries(t), func(n string) bool { return n == "calc.py" || n == "test_calc.py" })
	if len(made) == 0 {
		t.Errorf("the commands made nothing in the workspace (%v); Python's bytecode cache was expected", r.workspaceEntries(t))
	}

	// Undo (Alt+Z) of the run's changes until it stands no more: the one before the approval
	// and the one that went on after it.
	for i := 1; len(r.workspaceEntries(t)) > 0 && i <= 2; i++ {
		r.app.key("alt+z")
		r.waitLogN(t, events.Undo, i, true, 30*time.Second)
	}
	if names := r.workspaceEntries(t); len(names) != 0 {
		t.Errorf("after Undo the workspace holds %v, want it empty as it was", names)
	}
	for _, name := range append([]string{"calc.py", "test_calc.py"}, made...) {
		if _, err := os.Lstat(filepath.Join(r.workspace, name)); err == nil {
			t.Errorf("%s is still in the workspace after Undo", name)
		}
	}
	r.app.screenshot("command-undone.png")

	// A command stopped while it runs (Esc, from the composer): its card says so.
	r.app.typeText("Wait ten minutes")
	r.app.key("Return")
	r.waitLogN(t, events.ToolApprovalRequest, 2, true, 60*time.Second)
	r.app.key("alt+a")
	r.app.waitNamedText("Running "+longRun+"…", 60*time.Second)
	r.app.key("Escape")
	r.app.waitNamedText("Ran "+longRun+", stopped", 30*time.Second)
	r.waitLogN(t, events.RunFinished, 4, true, 60*time.Second) // its pause for approval, then its end
	r.app.screenshot("command-stopped.png")

	// A command printing 79 MB: its card keeps the head and the tail, and says the middle was
	// cut. (The model then reads the head and tail it was given, which takes the tiny scripted
	// model long: the window is closed while it reads.)
	r.app.typeText("Now count to ten million")
	r.app.key("Return")
	r.waitLogN(t, events.ToolApprovalRequest, 3, true, 60*time.Second)
	r.app.key("alt+a")
	r.app.waitNamedText("Ran "+bigRun+", exit 3", 120*time.Second)
	big := r.app.waitNamedText("Output of "+bigRun, 20*time.Second, "\n9999999\n10000000\n")
	if !strings.HasPrefix(big, "1\n2\n3\n") || !(strings.Contains(big, "bytes of output not shown") || strings.Contains(big, "characters cut here")) || len(big) > 200_000 {
		t.Errorf("the card of %q shows %d characters, beginning %q: want its head, its tail, and the middle said cut", bigRun, len(big), big[:min(len(big), 40)])
	}
	r.app.screenshot("command-big-output.png")
	p50, p99, n := outputPaintLatency(readBridgeLog(t, r.bridgeLog))
	t.Logf("tool.output, from the batch sent to the window's acknowledgement of its paint: p50 %s, p99 %s over %d batches", p50, p99, n)

	_, db := r.finish(t, "command-end.png")
	s, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	rules := s.CommandRules[r.workspace]
	if len(rules) != 1 || rules[0].Pattern != firstRun || rules[0].Network {
		t.Errorf("the workspace's command rules are %+v, want %q without network", s.CommandRules, firstRun)
	}
}

// The settings list the commands allowed in each workspace: removed by keyboard, the focus
// goes to the next one, then to the deny list, never out of the dialog; a pattern added to
// the deny list and running unconfined (Space on its checkbox) are saved.
func TestDesktopTheSettingsRemoveACommandRuleAndEditTheDenyListByKeyboard(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "off", CommandRules: map[string][]store.CommandRule{
		"/srv/shop": {{Pattern: "npm test"}, {Pattern: "npm install", Network: true}},
	}}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	if !r.app.says("with network, in /srv/shop") {
		t.Error("the settings do not list npm install, allowed with network in /srv/shop")
	}
	r.app.focus("Remove npm test in /srv/shop")
	time.Sleep(time.Second) // scrolled to the focus and painted, for the screenshot
	r.app.screenshot("command-settings-rules.png")
	r.app.key("Return")
	r.app.waitFocus(rolePushButton, "Remove npm install in /srv/shop", 10*time.Second)
	r.app.key("Return")
	r.app.waitFocus(roleEntry, "Never run commands matching", 10*time.Second)
	r.app.key("ctrl+End", "Return")
	r.app.typeText("npm publish")
	r.app.key("Tab", "space") // the checkbox after the deny list
	// checked, the keys before it were read too: the focus moved below goes to the page at once
	// and could overtake keys still on their way
	unconfined := r.app.waitControl(roleCheckBox, "Run commands without the sandbox where it cannot start", 20*time.Second)
	if !r.app.waitState(unconfined.node, unconfined.name, stateChecked, true, 20*time.Second) {
		t.Fatalf("Space after the deny list does not check %q (%s)", unconfined.name, r.app.screenshot("command-settings.png"))
	}
	time.Sleep(time.Second) // painted, for the screenshot
	t.Logf("the Commands of the settings: %s", r.app.screenshot("command-settings.png"))
	r.app.focus("Save")
	r.app.key("Return")
	s := r.savedSettings(t, "command-settings-saved.png")
	if len(s.CommandRules) != 0 {
		t.Errorf("command rules saved: %+v, want none left", s.CommandRules)
	}
	if want := append(slices.Clone(store.DefaultCommandDeny), "npm publish"); !slices.Equal(s.CommandDeny, want) {
		t.Errorf("deny list saved: %q, want %q", s.CommandDeny, want)
	}
	if !s.UnconfinedCommands {
		t.Error("running commands unconfined was turned on with Space, and not saved")
	}
}

// hiddenTailRun reads as a harmless echo: a right-to-left override turns what follows around,
// a zero-width space hides, and forty blank lines push the part that matters out of sight.
var hiddenTailRun = "echo \u202Etxt.exe\u200B" + strings.Repeat("\n", 40) + "rm -rf notes"

// hiddenTailModel asks to run hiddenTailRun.
var hiddenTailModel = ollamatest.Model{Name: "e2e-hidden-tail", Scripts: ollamatest.Scripts{
	"SU": ollamatest.ToolCall("run_command", map[string]any{"command": hiddenTailRun}),
}}

// A command to approve shows its invisible characters as marks and its newlines as ⏎, and
// says how many more lines there are past the first few, a button that shows them: nothing of
// it reaches the screen unmarked or hides below the card.
func TestDesktopACommandToApproveShowsItsInvisibleCharactersAndItsHiddenTail(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, hiddenTailModel,
		store.Settings{Think: "off", ToolApproval: map[string]string{"run_command": "ask"}}, "Tidy up")
	r.waitLog(t, events.ToolApprovalRequest, true, 90*time.Second)
	shown := r.app.waitNamedText("Command line", 20*time.Second, "echo <U+202E>txt.exe<U+200B>⏎")
	if strings.ContainsAny(shown, "\u202E\u200B") || strings.Contains(shown, "rm -rf notes") {
		t.Errorf("the command line reads %q: an invisible character unmarked, or the tail shown before asked", shown)
	}
	prefix := r.app.waitControl(roleEntry, "Always allow commands starting with", 20*time.Second)
	if got := r.app.text(prefix.node); got != "" {
		t.Errorf("the prefix offered to always allow is %q, want none: the user could not read it", got)
	}
	const more = "Show the rest of the command: 33 more lines"
	r.app.focus(more) // it takes the keyboard focus
	r.app.screenshot("command-hidden-tail.png")
	r.app.press(more)
	r.app.waitNamedText("Command line", 20*time.Second, "echo <U+202E>txt.exe<U+200B>"+strings.Repeat("⏎\n", 40)+"rm -rf notes")
	r.app.screenshot("command-hidden-tail-shown.png")
}
