package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// The window's figures, measured in the real window (the production binary under Xvfb, as the
// window tests run it) and printed with their peers by `make bench`; they assert nothing of
// time. Each is reported as a metric of its benchmark (go test -bench 'Window' -benchtime=Nx).

// BenchmarkWindowStream sends a message to a scripted model that answers 250 words at once
// (e2e-chatty), b.N times in one chat after one untimed message that loads the model, and
// reports from the bridge log: the batches delivered per second while the answer streams, the
// time from a batch sent to the window's acknowledgement that it painted it (p50, p99), and
// Enter → the first text painted, beside its peer: the server's own first content for that
// very request, measured at the server's door by a proxy (server-first-ms: from the request's
// arrival to the first line with content; the request is new to the server, as a user's is,
// where the same request sent again would find its prompt cached), and the server's rate for
// it (server-tok/s, its own eval timings). What Prototyper adds (added-ms) is the rest: Enter
// until the request reached the server (enter-to-request-ms; Enter is taken before xdotool
// starts, which itself takes key-ms, the key's own delivery included), and the first content
// until it was painted (content-to-paint-ms). The same two from Enter as the window received
// it (the key event's time, which the window notes on the bridge log): window-added-ms and
// window-enter-to-request-ms, and key-delivery-ms from Enter taken to Enter received.
func BenchmarkWindowStream(b *testing.B) {
	rec := recordChats(b, ollamatest.Get(b).URL())
	r := startWindowForBench(b, store.Settings{}, withArgs("--ollama", rec.url))
	r.app.typeText("Warm up")
	r.app.key("Return")
	r.waitLogN(b, events.RunFinished, 1, true, 120*time.Second)
	var rates, acks, firsts, runFirsts, servers, asks, paints, added, rate, keys []float64
	var windowAsks, windowAdded, deliveries, keyToGo, goToAsk []float64
	var deliver, frame, back, pagePaints, pageAdded, toSend []float64
	n := 1
	for b.Loop() {
		n++
		r.app.typeAsAPersonWould(fmt.Sprintf("Question %d", n))
		enter := time.Now()
		r.app.key("Return")
		keys = append(keys, ms(time.Since(enter)))
		lines := r.waitLogN(b, events.RunFinished, n, true, 120*time.Second)
		f := streamFigures(lines, n, enter)
		rates, acks = append(rates, f.deliveriesPerSecond), append(acks, f.ackMs...)
		firsts, runFirsts = append(firsts, f.enterToFirstMs), append(runFirsts, f.runToFirstMs)
		ex := rec.last()
		if ex.asked.IsZero() || ex.content.IsZero() {
			b.Fatal("the app's request or the server's first content did not pass the recording proxy")
		}
		server := ms(ex.content.Sub(ex.asked))
		servers, asks = append(servers, server), append(asks, ms(ex.asked.Sub(enter)))
		paints, added = append(paints, f.enterToFirstMs-ms(ex.content.Sub(enter))), append(added, f.enterToFirstMs-server)
		rate = append(rate, ex.tokPerSec)
		deliver, frame, back = append(deliver, f.deliverMs...), append(frame, f.frameMs...), append(back, f.returnMs...)
		if !f.firstPainted.IsZero() {
			pagePaints = append(pagePaints, ms(f.firstPainted.Sub(ex.content)))
		}
		toSend = append(toSend, ms(f.firstSent.Sub(ex.content)))
		if received, noted, ok := enterReceived(lines, enter); ok {
			windowAsks = append(windowAsks, ms(ex.asked.Sub(received)))
			keyToGo, goToAsk = append(keyToGo, ms(noted.Sub(received))), append(goToAsk, ms(ex.asked.Sub(noted)))
			windowAdded = append(windowAdded, ms(ex.asked.Sub(received))+paints[len(paints)-1])
			deliveries = append(deliveries, ms(received.Sub(enter)))
			if !f.firstPainted.IsZero() {
				pageAdded = append(pageAdded, ms(ex.asked.Sub(received))+ms(f.firstPainted.Sub(ex.content)))
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(median(rates), "deliveries/s")
	b.ReportMetric(percentile(acks, 50), "ack-p50-ms")
	b.ReportMetric(percentile(acks, 99), "ack-p99-ms")
	b.ReportMetric(median(firsts), "enter-to-text-ms")
	b.ReportMetric(median(runFirsts), "run-to-text-ms")
	b.ReportMetric(median(servers), "server-first-ms")
	b.ReportMetric(median(added), "added-ms")
	b.ReportMetric(median(asks), "enter-to-request-ms")
	b.ReportMetric(median(paints), "content-to-paint-ms")
	b.ReportMetric(median(rate), "server-tok/s")
	b.ReportMetric(median(keys), "key-ms")
	if len(windowAsks) < len(asks) {
		b.Fatalf("the window noted Enter for %d of %d messages", len(windowAsks), len(asks))
	}
	b.ReportMetric(median(windowAdded), "window-added-ms")
	b.ReportMetric(median(windowAsks), "window-enter-to-request-ms")
	// that split where the window's note of the key reached the Go side: the page's part (the
	// key's handlers, the call to Go) and the Go side's (the send admitted, the run started,
	// the request written)
	b.ReportMetric(median(keyToGo), "key-to-go-ms")
	b.ReportMetric(median(goToAsk), "go-to-request-ms")
	b.ReportMetric(median(deliveries), "key-delivery-ms")
	// The same from the page's own times: the first text painted as the page knew it, before
	// its acknowledgement travelled back (of the runs whose first text was acknowledged as
	// itself, not with a later batch); and each batch's way split in three.
	if len(pageAdded) == 0 || len(deliver) == 0 {
		b.Fatalf("the window gave its own times for %d of %d first texts and %d batches", len(pageAdded), len(windowAdded), len(deliver))
	}
	b.ReportMetric(median(pagePaints), "content-to-page-paint-ms")
	b.ReportMetric(median(pageAdded), "window-added-page-ms")
	b.ReportMetric(median(toSend), "content-to-send-ms")
	for _, m := range []struct {
		name string
		ms   []float64
	}{{"deliver", deliver}, {"frame", frame}, {"return", back}} {
		b.ReportMetric(percentile(m.ms, 50), m.name+"-p50-ms")
		b.ReportMetric(percentile(m.ms, 99), m.name+"-p99-ms")
	}
}

// enterReceived is when the window received the Enter taken at enter, and when its note reached
// the Go side: the first Enter the bridge log notes after it (a key event's time may precede the
// bridge's by the clocks' skew, never by the key's whole delivery: up to a millisecond before
// enter is taken as this one).
func enterReceived(lines []bridgeLine, enter time.Time) (at, noted time.Time, ok bool) {
	for _, l := range lines {
		if l.Kind != events.LogKindKey || l.Key != "Enter" {
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, l.At)
		if err != nil || !at.After(enter.Add(-time.Millisecond)) {
			continue
		}
		noted, err := time.Parse(time.RFC3339Nano, l.Noted)
		return at, noted, err == nil
	}
	return time.Time{}, time.Time{}, false
}

// chatRecorder passes the app's requests to the server and notes, for the last /api/chat,
// when it reached the server's door, when the server's first content went back through it,
// and the server's own rate for it.
type chatRecorder struct {
	url string
	mu  sync.Mutex
	ex  chatExchange
}

// chatExchange is one /api/chat seen at the server's door.
type chatExchange struct {
	asked, content time.Time
	tokPerSec      float64 // eval_count / eval_duration of its last line
}

func (c *chatRecorder) last() chatExchange {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ex
}

func recordChats(b *testing.B, upstream string) *chatRecorder {
	b.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		b.Fatal(err)
	}
	c := &chatRecorder{}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // each line of a stream as it comes
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			c.mu.Lock()
			c.ex = chatExchange{asked: time.Now()}
			c.mu.Unlock()
			w = &contentWatch{ResponseWriter: w, c: c}
		}
		proxy.ServeHTTP(w, r)
	}))
	b.Cleanup(srv.Close)
	c.url = srv.URL
	return c
}

// contentWatch reads the server's answer as it goes back to the app, line by line: the first
// line with content (text or thinking) and the rate the last line reports.
type contentWatch struct {
	http.ResponseWriter
	c       *chatRecorder
	partial []byte
}

func (f *contentWatch) Write(p []byte) (int, error) {
	f.partial = append(f.partial, p...)
	for {
		i := bytes.IndexByte(f.partial, '\n')
		if i < 0 {
			break
		}
		f.line(f.partial[:i])
		f.partial = f.partial[i+1:]
	}
	return f.ResponseWriter.Write(p)
}

func (f *contentWatch) line(l []byte) {
	var chunk struct {
		Message struct {
			Content  string `json:"content"`
			Thinking string `json:"thinking"`
		} `json:"message"`
		Done         bool  `json:"done"`
		EvalCount    int   `json:"eval_count"`
		EvalDuration int64 `json:"eval_duration"`
	}
	if json.Unmarshal(l, &chunk) != nil {
		return
	}
	f.c.mu.Lock()
	defer f.c.mu.Unlock()
	if f.c.ex.content.IsZero() && chunk.Message.Content+chunk.Message.Thinking != "" {
		f.c.ex.content = time.Now()
	}
	if chunk.Done && chunk.EvalDuration > 0 {
		f.c.ex.tokPerSec = float64(chunk.EvalCount) / (float64(chunk.EvalDuration) / 1e9)
	}
}

func (f *contentWatch) Flush() {
	if fl, ok := f.ResponseWriter.(http.Flusher); ok {
		fl.Flush()
	}
}

// BenchmarkWindowMemory opens the window empty, and with 10,000 chats and a chat of 1,000
// messages opened, and reports the resident memory of the app and of its WebKit web process
// once the window painted the chat and settled.
func BenchmarkWindowMemory(b *testing.B) {
	for _, size := range []struct {
		name            string
		chats, messages int
	}{{"empty", 0, 0}, {"chats=10000+messages=1000", 10_000, 1000}} {
		b.Run("window="+size.name, func(b *testing.B) {
			var app, web []float64
			for b.Loop() {
				r := startWindowForBench(b, store.Settings{}, withSeed(func(db *store.DB, ws string) {
					if size.chats > 0 {
						seedChats(b, db, ws, size.chats, size.messages)
					}
				}))
				if size.messages > 0 {
					r.app.focusNamed(rolePushButton, "Long chat")
					r.app.key("Return")
					last := fmt.Sprintf("Answer %d:", size.messages-1)
					r.app.waitTexts(func(s string) bool { return strings.Contains(s, last) }, 60*time.Second)
				}
				time.Sleep(5 * time.Second) // what is freed once painted is given back: a figure, not a test
				a, w := processMemory(b, r.app.cmd.Process.Pid)
				app, web = append(app, a), append(web, w)
				_ = r.app.closeWindow(30 * time.Second)
			}
			b.ReportMetric(median(app), "app-MB")
			b.ReportMetric(median(web), "webview-MB")
		})
	}
}

// startWindowForBench opens the window on the scripted model e2e-chatty with nothing typed:
// startDesktopRunWith, for a benchmark.
func startWindowForBench(b *testing.B, settings store.Settings, extra ...launchExtra) *desktopRun {
	b.Helper()
	b.StopTimer()
	defer b.StartTimer()
	return startDesktopRunWith(b, chattyModel, settings, "", extra...)
}

// streamRun is what the bridge log says of the n-th run of a chat.
type streamRun struct {
	deliveriesPerSecond          float64
	ackMs                        []float64
	enterToFirstMs, runToFirstMs float64
	// The ack's way split by the page's own times, for each batch acknowledged as itself:
	// sent → received by the page, received → the frame showing it painted, painted → the
	// ack received; and when the first text was painted as the page saw it (zero: not known).
	deliverMs, frameMs, returnMs []float64
	firstPainted                 time.Time
	// firstSent is when the bridge sent the first text.
	firstSent time.Time
}

// streamFigures reads the n-th run's figures from the bridge log: its batches holding text
// from the first to the last, how soon each batch was acknowledged painted, and when its first
// text was painted (from Enter, and from the run's start as the app saw it).
func streamFigures(lines []bridgeLine, n int, enter time.Time) streamRun {
	var f streamRun
	at := func(l bridgeLine) time.Time { t, _ := time.Parse(time.RFC3339Nano, l.At); return t }
	pageTime := func(s string) time.Time { t, _ := time.Parse(time.RFC3339Nano, s); return t }
	ackLine := func(i int, seq uint64) (bridgeLine, bool) {
		for _, l := range lines[i+1:] {
			if l.Kind == events.LogKindAck && l.Seq >= seq {
				return l, true
			}
		}
		return bridgeLine{}, false
	}
	ackOf := func(i int, seq uint64) (time.Time, bool) {
		l, ok := ackLine(i, seq)
		return at(l), ok
	}
	runs, in := 0, false
	var started, firstText, lastText time.Time
	var textBatches int
	for i, l := range lines {
		if l.Kind != events.LogKindBatch || len(l.Events) == 0 {
			continue
		}
		hasText, finished := false, false
		for _, e := range l.Events {
			switch e.Type {
			case events.RunStarted:
				if runs++; runs == n {
					in, started = true, at(l)
				}
			case events.TextDelta:
				hasText = true
			case events.RunFinished:
				finished = true
			}
		}
		if !in {
			continue
		}
		last := l.Events[len(l.Events)-1].Seq
		acked, ok := ackOf(i, last)
		if ok {
			f.ackMs = append(f.ackMs, float64(acked.Sub(at(l)).Microseconds())/1000)
		}
		// the page's times, where the ack is this batch's own
		var painted time.Time
		if a, own := ackLine(i, last); own && a.Seq == last {
			received, p := pageTime(a.Received), pageTime(a.Painted)
			if !received.IsZero() && !p.IsZero() {
				painted = p
				f.deliverMs = append(f.deliverMs, ms(received.Sub(at(l))))
				f.frameMs = append(f.frameMs, ms(p.Sub(received)))
				f.returnMs = append(f.returnMs, ms(at(a).Sub(p)))
			}
		}
		if hasText {
			if textBatches == 0 && ok {
				f.enterToFirstMs = float64(acked.Sub(enter).Microseconds()) / 1000
				f.runToFirstMs = float64(acked.Sub(started).Microseconds()) / 1000
				f.firstPainted, f.firstSent = painted, at(l)
				firstText = at(l)
			}
			textBatches++
			lastText = at(l)
		}
		if finished {
			break
		}
	}
	if d := lastText.Sub(firstText).Seconds(); textBatches > 1 && d > 0 {
		f.deliveriesPerSecond = float64(textBatches-1) / d
	}
	return f
}

// processMemory returns the resident memory, in MB, of the app (pid) and of the WebKit web
// processes it started.
func processMemory(b *testing.B, pid int) (app, web float64) {
	b.Helper()
	return processStatusMB(pid, "VmRSS:")
}

// processStatusMB is processMemory for another line of /proc/PID/status (RssAnon: leaves out
// the files mapped, the database's among them).
func processStatusMB(pid int, field string) (app, web float64) {
	parents := map[int]int{}
	names := map[int]string{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		p, _ := strconv.Atoi(filepath.Base(d))
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so read after its last ')'
		s := string(stat)
		end := strings.LastIndexByte(s, ')')
		fields := strings.Fields(s[end+1:])
		if len(fields) < 2 {
			continue
		}
		parents[p], _ = strconv.Atoi(fields[1])
		names[p] = s[strings.IndexByte(s, '(')+1 : end]
	}
	descends := func(p int) bool {
		for ; p > 1; p = parents[p] {
			if p == pid {
				return true
			}
		}
		return false
	}
	app = statusMB(pid, field)
	for p, name := range names {
		if p != pid && strings.HasPrefix(name, "WebKitWebProces") && descends(p) {
			web += statusMB(p, field)
		}
	}
	return app, web
}

// statusMB is a line of /proc/PID/status in MB (VmRSS:, RssAnon:, …), 0 if it cannot be read.
func statusMB(pid int, field string) float64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(v []float64) float64 { return percentile(v, 50) }

func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}
