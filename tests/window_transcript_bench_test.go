package tests

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// The transcript at scale, measured in the real window and printed by `make bench`, each row
// beside the same row of an earlier build when PROTOTYPER_BIN_BEFORE names its binary (a
// sub-benchmark binary=before; this build's is binary=this). They assert nothing of time.

// windowBinary is a build of the app a window benchmark runs.
type windowBinary struct{ name, path string }

// windowBinaries is this build, and the one PROTOTYPER_BIN_BEFORE names if it does.
func windowBinaries() []windowBinary {
	bins := []windowBinary{{name: "this"}}
	if before := os.Getenv("PROTOTYPER_BIN_BEFORE"); before != "" {
		bins = append(bins, windowBinary{name: "before", path: before})
	}
	return bins
}

// BenchmarkWindowLongChat opens the window empty, and with 10,000 chats and a chat of 5,000
// messages, and reports the time from Enter on the chat to its newest answer in the window
// (open-ms), the resident memory of the app and its web view once it settled, then the time
// from Home in the transcript to its first message in the window (home-ms; -1 when it did not
// come within 20 s) and the memory then.
func BenchmarkWindowLongChat(b *testing.B) {
	const chats, messages = 10_000, 5000
	for _, bin := range windowBinaries() {
		for _, size := range []string{"empty", fmt.Sprintf("chats=%d+messages=%d", chats, messages)} {
			b.Run(fmt.Sprintf("window=%s/binary=%s", size, bin.name), func(b *testing.B) {
				if bin.path != "" {
					b.Setenv("PROTOTYPER_BIN", bin.path)
				}
				long := size != "empty"
				var opens, homes, app, web, appTop, webTop []float64
				for b.Loop() {
					r := startWindowForBench(b, store.Settings{}, withSeed(func(db *store.DB, ws string) {
						if long {
							seedChats(b, db, ws, chats, messages)
						}
					}))
					if long {
						r.app.focusNamed(rolePushButton, "Long chat")
						start := time.Now()
						r.app.key("Return")
						newest := fmt.Sprintf("Answer %d:", messages-1)
						if r.app.waitTexts(func(s string) bool { return strings.HasPrefix(s, newest) }, 60*time.Second) == nil {
							b.Fatalf("the chat of %d messages did not open", messages)
						}
						opens = append(opens, ms(time.Since(start)))
					}
					time.Sleep(5 * time.Second) // what is freed once painted is given back: a figure, not a test
					a, w := processMemory(b, r.app.cmd.Process.Pid)
					app, web = append(app, a), append(web, w)
					if long {
						r.app.grabFocus(lastControl(r.app, rolePushButton, "Copy as Markdown"))
						start := time.Now()
						r.app.key("Home")
						first := "Question 0: what does the page do next?"
						home := float64(-1)
						if r.app.waitTexts(func(s string) bool { return s == first }, 20*time.Second) != nil {
							home = ms(time.Since(start))
						}
						homes = append(homes, home)
						time.Sleep(5 * time.Second)
						a, w := processMemory(b, r.app.cmd.Process.Pid)
						appTop, webTop = append(appTop, a), append(webTop, w)
					}
					_ = r.app.closeWindow(30 * time.Second)
				}
				b.ReportMetric(median(app), "app-MB")
				b.ReportMetric(median(web), "webview-MB")
				if long {
					b.ReportMetric(median(opens), "open-ms")
					b.ReportMetric(median(homes), "home-ms")
					b.ReportMetric(median(appTop), "app-MB-at-top")
					b.ReportMetric(median(webTop), "webview-MB-at-top")
				}
			})
		}
	}
}

// lastControl is the window's last control of role named name.
func lastControl(a *desktopApp, role a11yRole, name string) a11yNode {
	a.tb.Helper()
	var last a11yNode
	a.each(func(n a11yNode) {
		if a.role(n) == role && a.name(n) == name {
			last = n
		}
	})
	if last.Path == "" {
		a.tb.Fatalf("the window has no control of role %v named %q", role, name)
	}
	return last
}

// BenchmarkWindowLongStream is a chat of two hours: one window where the scripted model
// e2e-long-chatty answers PROTOTYPER_BENCH_ANSWERS messages (100 unless set) of 1,500 tokens
// each, reporting the resident memory of the web view after every tenth answer
// (webview-MB-after-N), what it grew by per answer from the tenth to the last
// (webview-MB-per-answer: the chat already fills the page by the tenth), and the memory of the
// app after the last: flat once painted, not growing with every answer.
func BenchmarkWindowLongStream(b *testing.B) {
	answers := 100
	if n, err := strconv.Atoi(os.Getenv("PROTOTYPER_BENCH_ANSWERS")); err == nil && n > 0 {
		answers = n
	}
	for _, bin := range windowBinaries() {
		b.Run("binary="+bin.name, func(b *testing.B) {
			if bin.path != "" {
				b.Setenv("PROTOTYPER_BIN", bin.path)
			}
			rows := map[int][]float64{}
			var app, slopes []float64
			for b.Loop() {
				b.StopTimer()
				// Older messages are left out of the prompt, not offered to be summarized, and the
				// prompt is kept short: what is measured is the window, not the model reading.
				r := startDesktopRunWith(b, longChattyModel, store.Settings{OlderTurns: store.SummarizeNever, ContextCap: 4096}, "")
				b.StartTimer()
				for n := 1; n <= answers; n++ {
					r.app.typeText(fmt.Sprintf("Question %d", n))
					r.app.key("Return")
					r.waitLogN(b, events.RunFinished, n, true, 180*time.Second)
					if n%10 == 0 || n == answers {
						_, w := processMemory(b, r.app.cmd.Process.Pid)
						rows[n] = append(rows[n], w)
					}
				}
				a, _ := processMemory(b, r.app.cmd.Process.Pid)
				app = append(app, a)
				if answers > 10 {
					last, tenth := rows[answers], rows[10]
					slopes = append(slopes, (last[len(last)-1]-tenth[len(tenth)-1])/float64(answers-10))
				}
				_ = r.app.closeWindow(30 * time.Second)
			}
			for n, w := range rows {
				b.ReportMetric(median(w), fmt.Sprintf("webview-MB-after-%d", n))
			}
			if len(slopes) > 0 {
				b.ReportMetric(median(slopes), "webview-MB-per-answer")
			}
			b.ReportMetric(median(app), "app-MB")
		})
	}
}
