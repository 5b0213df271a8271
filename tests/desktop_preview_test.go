package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
	"prototyper/internal/tether"
	"prototyper/preview"
	"prototyper/store"
	"prototyper/tools"
)

// The counter page previewFixModel writes: broken (a misspelt variable), then fixed.
const (
	brokenCounter = `<!doctype html><html><head><title>Counter</title></head><body><h1 id="h">Broken counter</h1>
<p style="height:3000px">tall</p><script>
document.getElementById('h').textContent = 'Counter ' + countr;
</script></body></html>`
	fixedCounter = `<!doctype html><html><head><title>Counter</title></head><body><h1 id="h">Broken counter</h1>
<p style="height:3000px">tall</p><script>
var count = 0;
document.getElementById('h').textContent = 'Working counter ' + count;
</script></body></html>`
)

// previewFixModel writes the broken counter; asked to fix the page's errors, it reads them
// with preview_errors, writes the fixed page, reads the preview's report again and answers.
var previewFixModel = ollamatest.Model{Name: "e2e-preview-fix", Scripts: ollamatest.Scripts{
	"SU":           ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": brokenCounter}),
	"SUAT":         []string{"Wrote index.html."},
	"SUATAU":       ollamatest.ToolCall(preview.ErrorsToolName, map[string]any{}),
	"SUATAUAT":     ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": fixedCounter}),
	"SUATAUATAT":   ollamatest.ToolCall(preview.ErrorsToolName, map[string]any{}),
	"SUATAUATATAT": []string{"The page reports no errors now."},
}}

// previewLog reads the preview's log of pages served and painted.
func previewLog(t *testing.T, path string) []preview.LogLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var lines []preview.LogLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l preview.LogLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			lines = append(lines, l)
		}
	}
	return lines
}

// waitPainted waits until the preview has painted n pages, and returns the n-th paint.
func waitPainted(t *testing.T, path string, n int, timeout time.Duration) preview.LogLine {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		var painted []preview.LogLine
		for _, l := range previewLog(t, path) {
			if l.Kind == "painted" {
				painted = append(painted, l)
			}
		}
		if len(painted) >= n {
			return painted[n-1]
		}
	}
	t.Fatalf("the preview did not paint %d pages within %s: %+v", n, timeout, previewLog(t, path))
	return preview.LogLine{}
}

// modTime is when a file of the workspace was last changed: when the change was applied.
func (r *desktopRun) modTime(t *testing.T, name string) time.Time {
	t.Helper()
	fi, err := os.Stat(filepath.Join(r.workspace, name))
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime()
}

// previewAfterRun opens the window with the preview's log, sends prompt, waits for the run to
// end and shows the pane (Alt+P) until it has painted the page once; it returns the log.
func previewAfterRun(t *testing.T, model ollamatest.Model, prompt string) (*desktopRun, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "preview.jsonl")
	r := startDesktopRunWith(t, model, store.Settings{Think: "off"}, prompt, withEnv(preview.LogEnv+"="+log))
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.app.key("alt+p")
	waitPainted(t, log, 1, 30*time.Second)
	return r, log
}

// By keyboard, in the real window: a run writes a page with a script error; Alt+P shows the
// page and its error count; "Fix these" sends the errors to the chat; the next run fixes the
// script and the pane reloads by itself, with zero errors; Alt+Z brings the broken version
// back and the pane shows it again.
func TestDesktopPreviewPaneShowsAScriptErrorFixesItAndUndoBringsItBack(t *testing.T) {
	layoutCanMatter(t)
	r, log := previewAfterRun(t, previewFixModel, "Make a counter page")
	if !r.app.says("1 error") {
		t.Fatalf("the pane does not count the page's error: %s", r.app.screenshot("preview-broken.png"))
	}
	r.app.screenshot("preview-broken.png")
	if !r.app.says("Broken counter") {
		t.Errorf("the pane does not show the page: %s", r.app.screenshot("preview-broken-page.png"))
	}

	r.app.press("Fix these")
	r.waitLogN(t, events.RunFinished, 2, true, 60*time.Second)
	fixed := waitPainted(t, log, 2, 30*time.Second)
	fixedAt := r.modTime(t, "index.html")
	if !r.app.says("0 errors") || !r.app.says("Working counter 0") {
		t.Fatalf("after the fix the pane does not show the working page with 0 errors: %s", r.app.screenshot("preview-fixed.png"))
	}
	r.app.screenshot("preview-fixed.png")

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	undone := waitPainted(t, log, 3, 30*time.Second)
	undoneAt := r.modTime(t, "index.html")
	if !r.app.says("1 error") || !r.app.says("Broken counter") {
		t.Fatalf("after the undo the pane does not show the broken page again: %s", r.app.screenshot("preview-undone.png"))
	}
	t.Logf("change applied → preview painted: the fix %s, the undo %s", fixed.At.Sub(fixedAt), undone.At.Sub(undoneAt))

	_, db := r.finish(t, "preview-undone.png")
	chat := theOneChat(t, db)
	msgs, err := db.Messages(chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	var sent string
	for _, m := range msgs {
		if m.Role == store.RoleUser && strings.Contains(m.Content, "Please read them") {
			sent = m.Content
		}
	}
	// the page's words are the page's: the model reads them as preview_errors' output (data,
	// from which a call copied is not run), never as the user's own message
	if !strings.Contains(sent, "1 error") || !strings.Contains(sent, preview.ErrorsToolName) || strings.Contains(sent, "countr") {
		t.Errorf("Fix these sent %q, want the count and preview_errors, without the page's words", sent)
	}
	calls, _ := db.ToolCalls(chat.ID)
	var read []string
	for _, c := range calls {
		if c.Name == preview.ErrorsToolName {
			read = append(read, c.Output)
		}
	}
	if len(read) != 2 || !strings.Contains(read[0], "reported 1 error") || !strings.Contains(read[0], "countr") || !strings.Contains(read[1], "reported no errors") {
		t.Errorf("preview_errors before and after the fix: %q", read)
	}
}

// attackPage tries, from the preview, what a page must not be able to do to the app, and says
// on its console what happened: the window's message handler (the Wails bindings' channel on
// Linux) called as the window's runtime calls it, the bindings, the window's document, and
// the window's navigation, a pop-up.
const attackPage = `<!doctype html><html><head><title>Attack</title></head><body><h1 id="h">Attack page</h1><script>
function note(s) { console.log(s) }
var h = null
try { h = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.external } catch (e) { note('handler: threw ' + e.name) }
note('handler: ' + (h ? 'present' : 'absent'))
function call(name, args) {
  try { h.postMessage('C' + JSON.stringify({ name: name, args: args, callbackID: name + '-1' })); note('post ' + name + ': sent') } catch (e) { note('post ' + name + ': threw ' + e.name) }
}
if (h) { call('main.App.SaveDraft', ['', 'PWNED-BY-PREVIEW']); call('main.App.SetModel', ['pwned-by-preview']) }
var msg = 'C' + JSON.stringify({ name: 'main.App.SaveDraft', args: ['', 'PWNED-BY-PREVIEW'], callbackID: 'x-1' })
document.dispatchEvent(new CustomEvent('prototyper-ipc', { detail: msg }))
try { window.top.document.dispatchEvent(new CustomEvent('prototyper-ipc', { detail: msg })); note('top event: sent') } catch (e) { note('top event: blocked ' + e.name) }
note('own bindings: ' + typeof window.go)
try { note('parent bindings: ' + typeof window.parent.go.main.App.SaveDraft); window.parent.go.main.App.SaveDraft('', 'PWNED-BY-PREVIEW') } catch (e) { note('parent bindings: blocked ' + e.name) }
try { note('parent: read ' + window.parent.document.title) } catch (e) { note('parent: blocked ' + e.name) }
try { window.top.location.href = 'about:blank#navigated'; note('top: not refused') } catch (e) { note('top: blocked ' + e.name) }
try { note('popup: ' + (window.open('about:blank') ? 'opened' : 'blocked')) } catch (e) { note('popup: blocked ' + e.name) }
document.getElementById('h').textContent = 'Attack done'
</script></body></html>`

// previewAttackModel writes attackPage; asked again, it reads what the page reported.
var previewAttackModel = ollamatest.Model{Name: "e2e-preview-attack", Scripts: ollamatest.Scripts{
	"SU":       ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": attackPage}),
	"SUAT":     []string{"Wrote index.html."},
	"SUATAU":   ollamatest.ToolCall(preview.ErrorsToolName, map[string]any{}),
	"SUATAUAT": []string{"Read it."},
}}

// A page in the preview cannot reach the app: calling its bindings (through the window's
// message handler as the Wails runtime does, or window.go), reading window.parent,
// navigating the top window or opening a pop-up fails, and the app is as it was.
func TestDesktopPreviewPaneCannotReachTheApp(t *testing.T) {
	r, _ := previewAfterRun(t, previewAttackModel, "Make a page")
	if !r.app.says("Attack done") {
		t.Fatalf("the page did not run: %s", r.app.screenshot("preview-attack.png"))
	}
	r.app.screenshot("preview-attack.png")
	r.sendAndWait(t, "What did the page say?", 2)
	if name := r.app.windowName(); name != "Prototyper" {
		t.Errorf("the window is now %q", name)
	}
	if !r.app.says("Read it.") {
		t.Errorf("the chat is gone from the window: %s", r.app.screenshot("preview-attack-after.png"))
	}
	_, db := r.finish(t, "preview-attack-after.png")
	calls, _ := db.ToolCalls(theOneChat(t, db).ID)
	i := slices.IndexFunc(calls, func(c store.ToolCallRecord) bool { return c.Name == preview.ErrorsToolName })
	if i < 0 {
		t.Fatalf("no preview_errors call: %+v", calls)
	}
	said := calls[i].Output
	t.Logf("the page's console:\n%s", said)
	for _, want := range []string{"handler: absent", "own bindings: undefined", "parent bindings: blocked SecurityError", "parent: blocked SecurityError", "top event: blocked SecurityError", "popup: blocked"} {
		if !strings.Contains(said, want) {
			t.Errorf("the page's console does not say %q", want)
		}
	}
	drafts, _ := db.Drafts()
	settings, _ := db.Settings()
	for _, d := range drafts {
		if strings.Contains(d, "PWNED") {
			t.Errorf("the page saved a draft through the app's bindings: %q", d)
		}
	}
	if settings.DefaultModel == "pwned-by-preview" {
		t.Error("the page changed the model through the app's bindings")
	}
}

// How soon a change is on screen: the page of the open pane is changed by a run's undo and
// redo, again and again (each applied by the app, as a run's write is); each time, from the
// file's change (its modification time) to the page's paint in the frame (the reporter's
// second animation frame after load, logged by the preview). The figures are printed, not
// asserted: the 300 ms is read from them on a quiet machine.
func TestDesktopPreviewPaneRepaintsAfterEachChange(t *testing.T) {
	layoutCanMatter(t)
	log := filepath.Join(t.TempDir(), "preview.jsonl")
	r := newPreviewRunWithPage(t, log)
	r.app.key("alt+p")
	waitPainted(t, log, 1, 30*time.Second)
	const changes = 40
	var took []time.Duration
	for i := 0; i < changes; i++ {
		if i%2 == 0 {
			r.app.key("alt+z")
			r.waitLogN(t, events.Undo, i/2+1, true, 30*time.Second)
		} else {
			r.app.key("alt+y")
			r.waitLogN(t, events.Redo, i/2+1, true, 30*time.Second)
		}
		painted := waitPainted(t, log, i+2, 30*time.Second)
		took = append(took, painted.At.Sub(r.modTime(t, "index.html")))
	}
	slices.Sort(took)
	p := func(q float64) time.Duration { return took[int(q*float64(len(took)-1)+0.5)] }
	t.Logf("change applied → preview painted over %d changes: p50 %s, p99 %s, max %s", len(took), p(0.50), p(0.99), took[len(took)-1])
	r.finish(t, "preview-latency.png")
}

// newPreviewRunWithPage opens the window on a workspace whose index.html the first run of
// previewFixModel overwrites, and waits for that run.
func newPreviewRunWithPage(t *testing.T, log string) *desktopRun {
	t.Helper()
	r := newDesktopRun(t, store.Settings{Think: "off"})
	r.writeFile(t, "index.html", "<!doctype html><html><head></head><body><h1>First page</h1></body></html>", 0o644)
	launchWithPreviewLog(t, r, log)
	r.sendAndWait(t, "Make a counter page", 1)
	return r
}

// launchWithPreviewLog opens the window on r's database and workspace with previewFixModel,
// the bridge's log and the preview's log at log, and waits until its composer can be typed in.
func launchWithPreviewLog(t *testing.T, r *desktopRun, log string) {
	t.Helper()
	srv := ollamatest.Get(t)
	r.app = launchDesktop(t, desktopBinary(t), startXvfb(t),
		[]string{"--db", r.db, "--workspace", r.workspace, "--model", previewFixModel.Name, "--ollama", srv.URL()},
		events.LogEnv+"="+r.bridgeLog, preview.LogEnv+"="+log)
	r.app.waitWindow("Prototyper", 60*time.Second)
	r.waitForComposer(t)
	r.app.focusWindow()
}

// loopbackPage tries, from the preview, to reach another service of the machine on the
// loopback address (SVC, as a page of a cloned folder would reach the model server: Ollama
// takes requests from 127.0.0.1 pages): a fetch that deletes, a beacon, a form posted into a
// frame. Once each settled it loads an image from SVC, whose request carries the Referer the
// page sends to other sites, and shows what happened in its heading.
const loopbackPage = `<!doctype html><html><head><title>Loopback</title></head><body><h1 id="h">Loopback page</h1><script>
var svc = 'SVC', said = []
function note(s) { said.push(s); console.log(s) }
var formSettled
var formDone = new Promise(function (res) { formSettled = res })
document.addEventListener('securitypolicyviolation', function (e) { if (e.violatedDirective.indexOf('form-action') === 0) { note('form: blocked'); formSettled() } })
var beacon
try { beacon = navigator.sendBeacon(svc + '/api/beacon', '{"model":"x"}') } catch (e) { beacon = 'threw' }
note('beacon: ' + beacon)
var fetched = fetch(svc + '/api/delete', { method: 'DELETE', body: '{"model":"x"}' }).then(function () { note('fetch: reached') }, function () { note('fetch: blocked') })
var own = fetch('card.html').then(function (r) { return r.text() }).then(function (t) { note('own fetch: ' + (t === '<p>card</p>' ? 'as it is' : 'changed')) }, function (e) { note('own fetch: failed ' + e) })
var sink = document.createElement('iframe')
sink.name = 'sink'
document.body.appendChild(sink)
sink.onload = function () { note('form: sent'); formSettled() }
var f = document.createElement('form')
f.method = 'POST'; f.action = svc + '/api/form'; f.target = 'sink'; f.enctype = 'text/plain'
var i = document.createElement('input'); i.name = '{"model":"x","y":"'; i.value = '"}'; f.appendChild(i)
document.body.appendChild(f)
f.submit()
Promise.all([fetched, own, formDone]).then(function () {
  var img = new Image()
  img.onload = img.onerror = function () { document.getElementById('h').textContent = 'Loopback done: ' + said.join('; ') }
  img.src = svc + '/pixel.png'
})
</script></body></html>`

// A page in the preview cannot send requests to the machine's other loopback services (a
// model server's API among them): its fetch, beacon and form never reach them, while its
// own server still answers its fetches (an HTML file fetched comes as it is, and the page's
// load goes on); and the page's address, which holds the server's
// secret, does not travel to other sites in a Referer.
func TestDesktopPreviewPaneKeepsPagesFromTheMachinesLoopbackServices(t *testing.T) {
	type hit struct{ method, path, referer string }
	var mu sync.Mutex
	var hits []hit
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		hits = append(hits, hit{req.Method, req.URL.Path, req.Referer()})
		mu.Unlock()
		// as permissive as a service that trusts loopback pages
		w.Header().Set("Access-Control-Allow-Origin", "*")
		w.Header().Set("Access-Control-Allow-Methods", "*")
		w.Header().Set("Access-Control-Allow-Headers", "*")
		if req.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Write([]byte("ok"))
	}))
	defer svc.Close()
	pixelAsked := func() (bool, []hit) {
		mu.Lock()
		defer mu.Unlock()
		return slices.ContainsFunc(hits, func(h hit) bool { return h.path == "/pixel.png" }), slices.Clone(hits)
	}

	r := newDesktopRun(t, store.Settings{Think: "off"})
	r.writeFile(t, "index.html", strings.ReplaceAll(loopbackPage, "SVC", svc.URL), 0o644)
	r.writeFile(t, "card.html", `<p>card</p>`, 0o644) // an HTML partial the page fetches: its load goes on
	log := filepath.Join(t.TempDir(), "preview.jsonl")
	launchWithPreviewLog(t, r, log)
	r.app.key("alt+p")
	waitPainted(t, log, 1, 30*time.Second)
	if !r.app.says("Loopback done") {
		_, got := pixelAsked()
		t.Fatalf("the page did not finish (the service saw %+v): %s", got, r.app.screenshot("preview-loopback.png"))
	}
	said := strings.Join(r.app.textsWith("Loopback done"), "\n")
	t.Logf("the page says: %s", said)
	asked, got := pixelAsked()
	if !asked {
		t.Fatalf("the page's image never reached the service: %+v", got)
	}
	for _, h := range got {
		if strings.HasPrefix(h.path, "/api/") {
			t.Errorf("the page reached the loopback service: %s %s", h.method, h.path)
		}
		if strings.Contains(h.referer, "/s/") {
			t.Errorf("the page's address went to another site: %s asked with Referer %s", h.path, h.referer)
		}
	}
	for _, want := range []string{"own fetch: as it is", "fetch: blocked", "form: blocked"} {
		if !strings.Contains(said, want) {
			t.Errorf("the page does not say %q", want)
		}
	}
	// each blocked request is an error of the page's report (the page itself caught them)
	counted := regexp.MustCompile(`^[1-9][0-9]* errors?$`)
	if len(r.app.waitTexts(counted.MatchString, 20*time.Second)) == 0 {
		t.Errorf("the pane does not count the blocked requests as errors: %q", r.app.textsWith("error"))
	}
	r.finish(t, "preview-loopback.png")
}

// roleImage is AT-SPI's role of an <img>.
const roleImage a11yRole = 27

// blockPage is a white page with a green block in its top left corner, 120×80 CSS pixels.
const blockPage = `<!doctype html><html><head><title>Block</title></head>
<body style="margin:0;background:#ffffff"><div style="width:120px;height:80px;background:rgb(20,160,90)"></div>
<p style="margin:20px;font:16px sans-serif">A green block</p></body></html>`

// previewShotModel sees images: it writes blockPage, and says how many images the next
// message brought it (an I in its trail for each).
var previewShotModel = ollamatest.Model{Name: "e2e-preview-shot", Vision: true, Scripts: ollamatest.Scripts{
	"SU":      ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": blockPage}),
	"SUAT":    []string{"Wrote index.html."},
	"SUATAUI": []string{"I see one image", " in your message."},
}}

// By keyboard, in the real window: a run writes a page with a green block; Alt+P shows it;
// Alt+I attaches a screenshot of the pane's page to the message (a thumbnail in the
// composer); Enter sends it to a model that sees images, which is handed the image; the
// stored PNG is the page: green where the block is, white beside it, the pane's bar not in it.
func TestDesktopPreviewPaneAttachesAScreenshotOfThePageToAMessageForAModelThatSees(t *testing.T) {
	layoutCanMatter(t)
	r, _ := previewAfterRun(t, previewShotModel, "Make a page with a green block")
	if !r.app.says("A green block") {
		t.Fatalf("the pane does not show the page: %s", r.app.screenshot("preview-shot-page.png"))
	}
	r.app.key("alt+i")
	r.app.waitControl(roleImage, "Image 1 to send", 30*time.Second)
	r.app.waitControl(rolePushButton, "Remove image 1", 5*time.Second)
	t.Logf("the screenshot attached: %s", r.app.screenshot("preview-shot-attached.png"))

	r.app.typeText("What does this page look like?") // the composer has the focus after Alt+I
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 2, true, 90*time.Second)
	shot, db := r.finish(t, "preview-shot-answered.png")
	t.Logf("after the answer: %s", shot)

	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(msgs, func(m store.Message) bool { return m.Content == "I see one image in your message." }) {
		t.Errorf("the model was not handed the screenshot: %+v", msgs)
	}
	var pic []byte
	for _, m := range msgs {
		if m.Role == store.RoleUser && len(m.Images) == 1 {
			pic = m.Images[0]
		}
	}
	if pic == nil {
		t.Fatalf("no stored message keeps the screenshot: %+v", msgs)
	}
	kept := filepath.Join(artifactDir(t), artifactName(t, "preview-shot-sent.png"))
	if err := os.WriteFile(kept, pic, 0o644); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(pic))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	b := img.Bounds()
	t.Logf("the screenshot sent is %d×%d pixels, %d bytes: %s", b.Dx(), b.Dy(), len(pic), kept)
	if b.Dx() < 200 || b.Dy() < 200 {
		t.Fatalf("the screenshot is %v: not the pane's page", b)
	}
	// the page's own pixels at its corners: the block starts at the frame's top left corner
	rgb := func(x, y int) [3]uint32 {
		r, g, bl, _ := img.At(x, y).RGBA()
		return [3]uint32{r >> 8, g >> 8, bl >> 8}
	}
	near := func(got, want [3]uint32) bool {
		for i := range got {
			if d := int(got[i]) - int(want[i]); d < -6 || d > 6 {
				return false
			}
		}
		return true
	}
	green, white := [3]uint32{20, 160, 90}, [3]uint32{255, 255, 255}
	if got := rgb(0, 0); !near(got, green) {
		t.Fatalf("the screenshot's top left pixel is %v, want the block's green %v: not cut to the frame", got, green)
	}
	// the block's size in the picture: its 120×80 CSS pixels at the window's scale (1, or 1.5
	// in the large layout, where a larger font DPI zooms the pages)
	gw, gh := 0, 0
	for gw < b.Dx() && near(rgb(gw, 2), green) {
		gw++
	}
	for gh < b.Dy() && near(rgb(2, gh), green) {
		gh++
	}
	sx, sy := float64(gw)/120, float64(gh)/80
	t.Logf("the block is %d×%d pixels in the screenshot (scale %.3f × %.3f)", gw, gh, sx, sy)
	if sx < 0.98 || sx > 2.02 || sy-sx > 0.02 || sx-sy > 0.02 {
		t.Errorf("the block is %d×%d pixels in the screenshot, want 120×80 CSS pixels at one scale", gw, gh)
	}
	for _, p := range [][2]int{{gw / 2, gh / 2}, {gw - 3, gh - 3}} {
		if got := rgb(p[0], p[1]); !near(got, green) {
			t.Errorf("pixel %v of the screenshot is %v, want the block's green %v", p, got, green)
		}
	}
	for _, p := range [][2]int{{gw + 4, 10}, {b.Dx() - 3, gh / 2}, {10, b.Dy() - 3}} {
		if got := rgb(p[0], p[1]); !near(got, white) {
			t.Errorf("pixel %v of the screenshot is %v, want the page's white %v", p, got, white)
		}
	}
}

// By keyboard, in the real window, for a model that cannot see images (previewFixModel): the
// screenshot is attached as a pasted image is, and refused the same way before anything is
// sent: the composer says why, Send cannot be pressed, Enter sends nothing.
func TestDesktopPreviewPaneScreenshotForAModelThatCannotSeeIsRefusedBeforeSending(t *testing.T) {
	r, _ := previewAfterRun(t, previewFixModel, "Make a counter page")
	r.app.key("alt+i")
	r.app.waitControl(roleImage, "Image 1 to send", 30*time.Second)
	r.app.typeText("What does this page look like?")
	if !r.app.says("cannot see images") {
		t.Errorf("the composer does not say the model cannot see the screenshot: %s", r.app.screenshot("preview-shot-blind.png"))
	}
	if send := r.app.waitControl(rolePushButton, "Send", 10*time.Second); r.app.enabled(send) {
		t.Errorf("Send can be pressed with a screenshot for a model that cannot see")
	}
	r.app.key("Return")
	time.Sleep(3 * time.Second) // as assertEnterSendsNothing: a message sent would be stored by now
	_, db := r.finish(t, "preview-shot-blind.png")
	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m.Role == store.RoleUser && (len(m.Images) > 0 || m.Content == "What does this page look like?") {
			t.Errorf("the refused message was sent: %+v", m)
		}
	}
	started := 0
	for _, l := range readBridgeLog(t, r.bridgeLog) {
		for _, e := range l.Events {
			if e.Type == events.RunStarted {
				started++
			}
		}
	}
	if started != 1 {
		t.Errorf("%d runs started, want only the first one", started)
	}
}

const devServerPage = `<!doctype html><html><head><title>Dev</title></head><body><h1>Served by the dev server</h1></body></html>`

// devServerCommand is the server devServerModel starts; its port doubles as a marker of its
// process.
const devServerCommand = "python3 -m http.server 8731 --bind 127.0.0.1"

// devServerModel writes a page and starts a server of the folder in the sandbox.
var devServerModel = ollamatest.Model{Name: "e2e-dev-server", Scripts: ollamatest.Scripts{
	"SU":     ollamatest.ToolCall("write_file", map[string]any{"path": "index.html", "content": devServerPage}),
	"SUAT":   ollamatest.ToolCall(tools.StartServer, map[string]any{"command": devServerCommand}),
	"SUATAT": []string{"The server runs on port 8731."},
}}

// serverProcesses lists the processes whose command line is devServerCommand's.
func serverProcesses() []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte("http.server\x008731")) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// In the real window: a run starts python3 -m http.server in the sandbox (asked, allowed with
// Alt+A); the Preview pane (Alt+P) offers it, shows its page through the app's forward and its
// log as it comes; the server keeps running after the run; Stop ends it and its process.
func TestDesktopPreviewPaneShowsADevServerAndStopEndsIt(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, devServerModel,
		store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "auto"}}, "Serve the page")
	r.waitLog(t, events.ToolApprovalRequest, true, 90*time.Second)
	if !r.app.says(devServerCommand) {
		t.Errorf("the approval card does not show the server's command: %s", r.app.screenshot("devserver-approval.png"))
	}
	if !r.app.says("This server keeps running after the run") {
		t.Errorf("the approval card does not say the server keeps running: %s", r.app.screenshot("devserver-approval.png"))
	}
	r.app.key("alt+a")
	r.waitResumedFinished(t, 90*time.Second) // the run paused for the approval, then went on
	if len(serverProcesses()) == 0 {
		t.Fatalf("the server does not run after its run ended")
	}

	r.app.key("alt+p")
	r.app.press("Preview the server at :8731")
	if !r.app.says("Served by the dev server") {
		t.Fatalf("the pane does not show the server's page: %s", r.app.screenshot("devserver-page.png"))
	}
	out := r.app.waitNamedText("Output of the server at :8731", 30*time.Second, "GET / HTTP/1.1")
	t.Logf("the server's output, as the window reads it:\n%s", out)
	r.app.screenshot("devserver-shown.png")

	r.app.press("Stop the server at :8731")
	if !r.app.says("The server was stopped.") {
		t.Errorf("the pane does not say the server stopped: %s", r.app.screenshot("devserver-stopped.png"))
	}
	for deadline := time.Now().Add(10 * time.Second); len(serverProcesses()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's process %v still runs after Stop", serverProcesses())
		}
	}
	if len(r.app.textsWith("Preview the server at :8731")) > 0 {
		t.Errorf("the pane still offers the stopped server")
	}
	if _, err := os.Stat(filepath.Join(r.workspace, "index.html")); err != nil {
		t.Errorf("the page the run wrote: %v", err)
	}
	_, db := r.finish(t, "devserver-stopped.png")
	chat := theOneChat(t, db)
	calls, _ := db.ToolCalls(chat.ID)
	var started bool
	for _, c := range calls {
		if c.Name == tools.StartServer && strings.Contains(c.Output, "listens on port 8731") {
			started = true
		}
	}
	if !started {
		t.Errorf("start_server's result: %+v", calls)
	}
}

// The window killed with SIGKILL while a server it started runs and is shown: the server, its
// sandbox and the dialer that reaches its port are all gone.
func TestDesktopADevServerEndsWhenTheWindowIsKilled(t *testing.T) {
	r := startDesktopRunWith(t, devServerModel,
		store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "auto", tools.StartServer: "auto"}}, "Serve the page")
	r.waitLogN(t, events.RunFinished, 1, true, 90*time.Second)
	r.app.key("alt+p")
	r.app.press("Preview the server at :8731")
	if !r.app.says("Served by the dev server") {
		t.Fatalf("the pane does not show the server's page: %s", r.app.screenshot("devserver-killed.png"))
	}
	server := serverProcesses()
	if len(server) == 0 {
		t.Fatal("the server does not run")
	}
	all := tether.Descendants(r.app.cmd.Process.Pid) // the server's sandbox, the dialer, the web view's
	killed := time.Now()
	_ = r.app.cmd.Process.Signal(syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); len(serverProcesses()) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server %v outlived the window", serverProcesses())
		}
	}
	t.Logf("the server was gone %s after the window's SIGKILL", time.Since(killed).Round(time.Millisecond))
	_ = r.app.waitExit(10 * time.Second)
	testenv.WaitTreeGone(t, all, 10*time.Second)
}
