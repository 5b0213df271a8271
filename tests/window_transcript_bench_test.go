package tests

import (
	"fmt"
	"os"
	"regexp"
	"slices"
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
// e2e-long-chatty answers PROTOTYPER_BENCH_ANSWERS messages (100 unless set) of the text of
// 1,500 tokens each, 150,000 in all. The resident memory of the web view and of the app is
// sampled once the window acknowledged each answer's end, and reported as what survives the
// sawtooth of the collectors: the floor of each stretch of ten answers from the eleventh
// (webview-floor-MB-after-N, app-floor-MB-after-N: the least sample of answers N-9..N), and
// the Theil-Sen slope of the samples from the tenth answer on (the chat already fills the page
// by then), per answer and per 100 KB of answer text shown (webview-MB-per-answer,
// webview-MB-per-100KB, app-…); the same slope of the anonymous memory alone (…-anon-MB-per-
// answer), which leaves out the files mapped: the app's database grows with the chat, and the
// pages of it read are counted in its resident memory.
//
// The web view's collector takes its young objects often and its whole heap when it sees fit,
// which a stream of answers back to back can put off for a hundred of them (a run then climbs
// by tens of MB of garbage, the next does not); so the same chat is streamed again in a second
// window whose collector takes the whole heap every time (JSC_useGenerationalGC=0), and its
// floors and slope (webview-wholegc-floor-MB-after-N, webview-wholegc-MB-per-answer, …-per-
// 100KB) are what the page keeps. Flat once painted is a slope near zero there; answer-s is the
// time of an answer, Enter to painted. Those windows also log the size of the page's JavaScript
// heap after each collection (JSC_logGC=1): its floors and slope (webview-js-wholegc-floor-MB-
// after-N, webview-js-wholegc-MB-per-answer, …) are the part of the web view's growth that the
// page's own objects hold (its state, the strings of the answers); the rest is the engine's.
// PROTOTYPER_BENCH_SAMPLES=FILE appends every sample to FILE (binary, collector, answer, app MB,
// web view MB, then both anonymous, then the page's heap MB).
//
// PROTOTYPER_BENCH_WINDOWS=generational,whole,whole-inaccessible chooses the windows (the first
// two unless set); whole-inaccessible is the whole-heap window kept off the accessibility bus, as
// for a user without assistive technology (webview-wholegc-noa11y-…). PROTOTYPER_BENCH_WINDOW_ENV
// adds variables to every window's environment (e.g. Malloc=1: WebKit then allocates with the
// system's malloc, which tools such as heaptrack can follow).
func BenchmarkWindowLongStream(b *testing.B) {
	answers := 100
	if n, err := strconv.Atoi(os.Getenv("PROTOTYPER_BENCH_ANSWERS")); err == nil && n > 0 {
		answers = n
	}
	textKB := float64(len(strings.Join(longChattyPieces(), ""))) / 1000
	type window struct {
		name, prefix, env string
		inaccessible      bool
	}
	whole := "JSC_useGenerationalGC=0 JSC_logGC=1"
	collectors := []window{{"generational", "", "", false}, {"whole", "wholegc-", whole, false}, {"whole-inaccessible", "wholegc-noa11y-", whole, true}}
	if names := os.Getenv("PROTOTYPER_BENCH_WINDOWS"); names != "" {
		collectors = slices.DeleteFunc(collectors, func(c window) bool { return !slices.Contains(strings.Split(names, ","), c.name) })
	} else {
		collectors = collectors[:2]
	}
	for _, bin := range windowBinaries() {
		b.Run("binary="+bin.name, func(b *testing.B) {
			if bin.path != "" {
				b.Setenv("PROTOTYPER_BIN", bin.path)
			}
			metrics := map[string][]float64{}
			for b.Loop() {
				for _, c := range collectors {
					b.StopTimer()
					var extra []launchExtra
					if c.env != "" {
						extra = append(extra, withEnv(strings.Fields(c.env)...))
					}
					if c.inaccessible {
						extra = append(extra, withoutAccessibility())
					}
					if env := os.Getenv("PROTOTYPER_BENCH_WINDOW_ENV"); env != "" {
						extra = append(extra, withEnv(strings.Fields(env)...))
					}
					// Older messages are left out of the prompt, not offered to be summarized, and
					// the prompt is kept short: what is measured is the window, not the model reading.
					r := startDesktopRunWith(b, longChattyModel, store.Settings{OlderTurns: store.SummarizeNever, ContextCap: 4096}, "", extra...)
					b.StartTimer()
					samples := streamAnswers(b, r, answers)
					writeSamples(b, bin.name, c.name, samples)
					_ = r.app.closeWindow(30 * time.Second)
					for who, s := range samples {
						// the generational window reports both processes; the whole-heap ones the web view
						// and its page's heap, which they alone log
						whole := who == "webview" || who == "webview-js"
						if who == "seconds" || c.prefix != "" && !whole || c.prefix == "" && who == "webview-js" {
							continue
						}
						if who == "webview" || who == "app" || who == "webview-js" {
							for end := 20; end <= answers; end += 10 {
								name := fmt.Sprintf("%s-%sfloor-MB-after-%d", who, c.prefix, end)
								metrics[name] = append(metrics[name], slices.Min(s[end-9:end+1]))
							}
						}
						if answers > 10 {
							slope := theilSen(s[10:])
							metrics[who+"-"+c.prefix+"MB-per-answer"] = append(metrics[who+"-"+c.prefix+"MB-per-answer"], slope)
							if !strings.HasSuffix(who, "-anon") {
								metrics[who+"-"+c.prefix+"MB-per-100KB"] = append(metrics[who+"-"+c.prefix+"MB-per-100KB"], slope*100/textKB)
							}
						}
					}
					if c.prefix == "" {
						metrics["answer-s"] = append(metrics["answer-s"], samples["seconds"][0]/float64(answers))
					}
				}
			}
			for name, v := range metrics {
				b.ReportMetric(median(v), name)
			}
		})
	}
}

// streamAnswers asks the window of r for answers answers, one after the other, and samples the
// memory of the app and its web view, resident and anonymous, once each answer is painted:
// samples[who][n] after the n-th; samples["seconds"][0] is the time they took.
func streamAnswers(b *testing.B, r *desktopRun, answers int) map[string][]float64 {
	samples := map[string][]float64{"seconds": {0}}
	for _, who := range []string{"webview", "app", "webview-anon", "app-anon", "webview-js"} {
		samples[who] = make([]float64, answers+1)
	}
	start := time.Now()
	for n := 1; n <= answers; n++ {
		r.app.typeText(fmt.Sprintf("Question %d", n))
		r.app.key("Return")
		r.waitLogN(b, events.RunFinished, n, true, 180*time.Second)
		pid := r.app.cmd.Process.Pid
		samples["app"][n], samples["webview"][n] = processMemory(b, pid)
		samples["app-anon"][n], samples["webview-anon"][n] = processStatusMB(pid, "RssAnon:")
		samples["webview-js"][n] = pageHeapMB(r.app.out.String())
	}
	samples["seconds"][0] = time.Since(start).Seconds()
	return samples
}

// writeSamples appends the samples of one window to the file PROTOTYPER_BENCH_SAMPLES names,
// if it does: a line an answer.
func writeSamples(b *testing.B, binary, collector string, samples map[string][]float64) {
	name := os.Getenv("PROTOTYPER_BENCH_SAMPLES")
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	for n := 1; n < len(samples["app"]); n++ {
		fmt.Fprintf(f, "%s\t%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\n", binary, collector, n, samples["app"][n], samples["webview"][n], samples["app-anon"][n], samples["webview-anon"][n], samples["webview-js"][n])
	}
}

// gcLine is the end of a collection as JSC_logGC=1 writes it to the standard error of each
// process that runs JavaScript: "[GC<vm>: … => 8213kb, …": the heap's size after it.
var gcLine = regexp.MustCompile(`\[GC<(0x[0-9a-f]+)>: [^\n]*=> (\d+)kb`)

// pageHeapMB is, from what the app and its web view wrote, the size of the page's JavaScript
// heap after its latest collection: of the engines that wrote any, the one whose latest heap is
// the largest (the page's; the app's own engine holds little); 0 when none wrote one.
func pageHeapMB(out string) float64 {
	latest := map[string]float64{}
	for _, m := range gcLine.FindAllStringSubmatch(out, -1) {
		kb, _ := strconv.ParseFloat(m[2], 64)
		latest[m[1]] = kb / 1024
	}
	var most float64
	for _, mb := range latest {
		most = max(most, mb)
	}
	return most
}

// longChattyPieces is e2e-long-chatty's answer: the text of 1,500 tokens, one word each,
// emitted as 150 pieces of ten words. The window paints the same text as from a model of 1,500
// tokens; the scripted model, whose every step costs the square of its vocabulary, emits it in
// about a second rather than ten, so a chat of a hundred answers is measured in minutes.
func longChattyPieces() []string {
	pieces := make([]string, 150)
	for i := range pieces {
		var b strings.Builder
		for w := range 10 {
			fmt.Fprintf(&b, "part%d ", i*10+w)
		}
		pieces[i] = b.String()
	}
	return pieces
}

// theilSen is the median of the slopes between every two of the samples y, one a step: a
// straight line's slope that a sawtooth's teeth do not tilt, where least squares follows a
// tooth at either end.
func theilSen(y []float64) float64 {
	var slopes []float64
	for i := range y {
		for j := i + 1; j < len(y); j++ {
			slopes = append(slopes, (y[j]-y[i])/float64(j-i))
		}
	}
	return median(slopes)
}
