package tests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/preview"
	"prototyper/store"
)

// The window's main states, kept as screenshots to be looked at: an empty chat, a call
// waiting for approval, a run with its cards, the Changes review, the settings, the model
// menu, the search and the preview pane, each at 1440×900 and at 900×650, in the light and in the dark theme
// (tests/artifacts/screen-THEME-STATE-WxH.png). The test sets the window's sizes itself, so
// it has no second layout.

// screenSizes are the window sizes each state is kept at: a laptop's full screen, and a
// window beside another.
var screenSizes = [][2]int{{1440, 900}, {900, 650}}

const screenPage = `<!doctype html><html><head><title>Counter</title></head>
<body style="font-family: sans-serif"><h1>Counter</h1><p>The page the preview shows.</p></body></html>
`

func TestDesktopTheMainStatesAreKeptAsScreenshots(t *testing.T) {
	for _, theme := range []string{"light", "dark"} {
		t.Run(theme, func(t *testing.T) {
			log := filepath.Join(t.TempDir(), "preview.jsonl")
			r := newDesktopRun(t, store.Settings{Think: "on", Theme: theme, ToolApproval: map[string]string{"write_file": "ask"}})
			writeFile(t, filepath.Join(r.workspace, "index.html"), screenPage, 0o644)
			srv := ollamatest.Get(t).URL()
			display := startXvfbScreen(t, "1600x1000x24")
			r.app = launchDesktop(t, desktopBinary(t), display,
				[]string{"--db", r.db, "--workspace", r.workspace, "--model", writerModel.Name, "--ollama", srv},
				events.LogEnv+"="+r.bridgeLog, preview.LogEnv+"="+log)
			r.app.waitWindow("Prototyper", 60*time.Second)
			if out, err := r.app.xdotool("windowmove", "--sync", r.app.window, "0", "0"); err != nil {
				t.Fatalf("move the window: %v (%s)", err, out)
			}
			r.waitForComposer(t)
			r.app.focusWindow()
			shoot := func(state string) {
				t.Helper()
				for _, size := range screenSizes {
					w, h := fmt.Sprint(size[0]), fmt.Sprint(size[1])
					if out, err := r.app.xdotool("windowsize", "--sync", r.app.window, w, h); err != nil {
						t.Fatalf("resize the window to %s×%s: %v (%s)", w, h, err, out)
					}
					time.Sleep(time.Second) // laid out and painted at the new size, for the picture only
					t.Logf("%s at %s×%s: %s", state, w, h, r.app.screenshot(fmt.Sprintf("screen-%s-%s-%sx%s.png", theme, state, w, h)))
				}
			}

			shoot("empty-chat")

			r.app.typeText("Write hello.txt with a greeting")
			r.app.key("Return")
			r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
			r.app.waitControl(rolePushButton, "Approve", 20*time.Second)
			if !r.app.says("Will create hello.txt (22 bytes)") {
				t.Errorf("the waiting card does not say what it will do (%s)", r.app.screenshot("screen-approval-words.png"))
			}
			shoot("approval")

			r.app.key("alt+a")
			r.waitResumedFinished(t, 60*time.Second)
			r.wantWritten(t, "hello.txt", "hello from Prototyper\n")
			shoot("run-with-cards")

			r.app.key("alt+c")
			r.app.waitControl(rolePushButton, "Revert hello.txt to before this chat", 20*time.Second)
			shoot("changes")
			r.app.key("Escape")

			r.app.key("ctrl+comma")
			r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
			if name := r.app.waitControlNamed(roleComboBox, "Keep the model loaded after an answer", 10*time.Second); !strings.Contains(name, "30 minutes") {
				t.Errorf("the choice of how long a model stays loaded is named %q, want it to say 30 minutes (%s)", name, r.app.screenshot("screen-settings-words.png"))
			}
			shoot("settings")
			r.app.key("Escape")
			r.app.waitNoControl(rolePushButton, "Cancel", 30*time.Second)

			r.openField("ctrl+m")
			if !r.app.says(" parameters · ") {
				t.Errorf("the model menu does not label a model's sizes (%s)", r.app.screenshot("screen-model-menu-words.png"))
			}
			shoot("model-menu")
			r.app.key("Escape")

			r.openField("ctrl+k")
			r.app.typeText("greeting")
			settle()
			shoot("search")
			r.app.key("Escape")

			r.app.key("alt+p")
			waitPainted(t, log, 1, 30*time.Second)
			shoot("preview")
		})
	}
}

// waitControlNamed waits for a control of role whose accessible name begins with prefix (a
// select's name goes on with the choice it shows) and returns its whole name, or "".
func (a *desktopApp) waitControlNamed(role a11yRole, prefix string, timeout time.Duration) string {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		found := ""
		a.each(func(n a11yNode) {
			if name := a.name(n); found == "" && strings.HasPrefix(name, prefix) && a.role(n) == role {
				found = name
			}
		})
		if found != "" {
			return found
		}
	}
	return ""
}
