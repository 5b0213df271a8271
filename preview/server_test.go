package preview

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/tools"
)

// served starts a server over a workspace holding files, with the app's database beside
// them, and returns the server and the site's base URL.
func served(t *testing.T, files map[string]string, opts Options) (*Server, string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts.Files = tools.WorkspaceOptions{ProtectedFiles: []string{filepath.Join(dir, "prototyper.db")},
		ConfigDirs: []string{tools.WorkspaceConfigDir}}
	srv, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	base, err := srv.Site(dir)
	if err != nil {
		t.Fatal(err)
	}
	return srv, dir, base
}

// get asks for the raw path (sent as written: no cleaning by the client) with a Referer.
func get(t *testing.T, origin, rawPath, referer string) (int, http.Header, string) {
	t.Helper()
	u, err := url.Parse(origin)
	if err != nil {
		t.Fatal(err)
	}
	u.Opaque = rawPath
	req := &http.Request{Method: http.MethodGet, URL: u, Header: http.Header{}, Host: u.Host}
	if referer != "" {
		req.Header.Set("Referer", referer)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// originOf is the origin of a site's base URL.
func originOf(t *testing.T, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Scheme + "://" + u.Host
}

func pathOf(t *testing.T, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Path
}

func TestThePreviewServesOnlyTheWorkspaceUnderItsSecret(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside"), 0o644)
	_, dir, base := served(t, map[string]string{
		"index.html":           "<p>hi</p>",
		"app.js":               "console.log(1)",
		".git/config":          "[core]",
		".env":                 "KEY=1",
		".prototyper/mcp.json": "{}",
		"prototyper.db":        "db",
		"sub/page.html":        "<p>sub</p>",
		"assets/.hidden/x.css": "x",
		"assets/ok/styles.css": "body{}",
		"assets/ok/readme.txt": "text",
	}, Options{})
	os.Symlink(outside, filepath.Join(dir, "out.txt"))
	os.Symlink(filepath.Join(dir, ".git", "config"), filepath.Join(dir, "git.txt"))
	os.Symlink(filepath.Dir(outside), filepath.Join(dir, "outdir"))
	p := pathOf(t, base)
	secret := strings.Split(strings.TrimPrefix(p, "/"), "/")[0]

	refused := []string{
		"/" + "index.html", // no secret
		"/" + strings.Repeat("0", 32) + "/s/x/index.html", // a wrong secret
		"/" + secret + "/s/nosuchsite/index.html",
		p + "../../index.html",
		p + "%2e%2e/%2e%2e/etc/passwd",
		p + "..%2f..%2fetc%2fpasswd",
		p + "sub/../../" + filepath.Base(dir) + "/index.html",
		p + ".git/config",
		p + ".env",
		p + ".prototyper/mcp.json",
		p + ".PROTOTYPER/mcp.json",
		p + "prototyper.db",
		p + "out.txt",
		p + "git.txt",
		p + "outdir/secret.txt",
		p + "assets/.hidden/x.css",
		p + "%00index.html",
		p + "/etc/passwd",
		p + "nothing.html",
	}
	for _, raw := range refused {
		t.Run(raw, func(t *testing.T) {
			code, _, body := get(t, originOf(t, base), raw, "")
			if code != http.StatusNotFound {
				t.Fatalf("GET %s = %d %q, want 404", raw, code, body)
			}
			if strings.Contains(body, "outside") || strings.Contains(body, "[core]") || strings.Contains(body, "KEY=1") {
				t.Fatalf("GET %s leaked %q", raw, body)
			}
		})
	}
	for raw, ctype := range map[string]string{
		p:                          "text/html; charset=utf-8",
		p + "index.html":           "text/html; charset=utf-8",
		p + "app.js":               "text/javascript; charset=utf-8",
		p + "assets/ok/styles.css": "text/css; charset=utf-8",
		p + "sub/page.html":        "text/html; charset=utf-8",
	} {
		code, h, _ := get(t, originOf(t, base), raw, "")
		if code != http.StatusOK || h.Get("Content-Type") != ctype || h.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s = %d %q %q, want 200 %q no-store", raw, code, h.Get("Content-Type"), h.Get("Cache-Control"), ctype)
		}
	}
	if !strings.HasPrefix(originOf(t, base), "http://127.0.0.1:") {
		t.Errorf("origin %s is not on the loopback address", originOf(t, base))
	}
}

func TestThePreviewInjectsItsReporterFirstInTheHead(t *testing.T) {
	_, _, base := served(t, map[string]string{
		"index.html": `<!DOCTYPE html><html><head><title>x</title><script src="app.js"></script></head><body><header>h</header></body></html>`,
	}, Options{})
	_, _, body := get(t, originOf(t, base), pathOf(t, base), "")
	head := strings.Index(body, "<head>")
	reporter := strings.Index(body, "<script>(function(c){")
	page := strings.Index(body, `<script src="app.js">`)
	if head < 0 || reporter != head+len("<head>") || page < reporter {
		t.Fatalf("the reporter is not first in the head, before the page's script:\n%s", body)
	}
}

// recorder keeps the reports a server notifies.
type recorder struct {
	mu      sync.Mutex
	reports []Report
	at      []time.Time // when each was notified
	got     chan struct{}
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 100)} }

func (r *recorder) notify(rep Report) {
	r.mu.Lock()
	r.reports, r.at = append(r.reports, rep), append(r.at, time.Now())
	r.mu.Unlock()
	r.got <- struct{}{}
}

// waitFor waits for a notified report that satisfies ok.
func (r *recorder) waitFor(t *testing.T, ok func(Report) bool) Report {
	t.Helper()
	rep, _ := r.waitForAt(t, ok)
	return rep
}

// waitForAt is waitFor that also says when the report was notified.
func (r *recorder) waitForAt(t *testing.T, ok func(Report) bool) (Report, time.Time) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		for i, rep := range r.reports {
			if ok(rep) {
				r.mu.Unlock()
				return rep, r.at[i]
			}
		}
		r.mu.Unlock()
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("no such report among %+v", r.reports)
		}
	}
}

// beaconOf posts a reporter's beacon to the endpoint of the site at base, from its origin.
func beaconOf(t *testing.T, base, body string) {
	t.Helper()
	secret := strings.Split(strings.TrimPrefix(pathOf(t, base), "/"), "/")[0]
	resp, err := http.Post(originOf(t, base)+"/"+secret+"/report", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("report answered %d", resp.StatusCode)
	}
}

func TestAPageSScriptErrorAndA404AreReportedForItsCurrentLoadOnly(t *testing.T) {
	rec := newRecorder()
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head><body></body></html>"}, Options{Notify: rec.notify})
	p := pathOf(t, base)
	get(t, originOf(t, base), p, "")
	st := srv.lookup(dir)
	code, _, _ := get(t, originOf(t, base), p+"missing.js", base)
	if code != http.StatusNotFound {
		t.Fatalf("missing.js = %d", code)
	}
	// the page saw the same failed load: it is counted once
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"load","message":"Failed to load script `+base+`missing.js","source":"`+base+`missing.js"}`)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"error","message":"ReferenceError: Can't find variable: nope","source":"`+base+`index.html","line":3,"column":7}`)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"console","level":"warn","message":"careful"}`)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"painted"}`)
	rep := rec.waitFor(t, func(r Report) bool { return r.Painted && len(r.Errors) == 2 && len(r.Console) == 1 })
	if rep.Errors[0].Kind != KindLoad || rep.Errors[1].Message != "ReferenceError: Can't find variable: nope" || rep.Errors[1].Source != "index.html" {
		t.Fatalf("errors: %+v", rep.Errors)
	}
	text := rep.Describe(true)
	if strings.Contains(text, srv.secret) || !strings.Contains(text, "2 errors") || !strings.Contains(text, "(index.html:3:7)") || !strings.Contains(text, "404 Not Found: missing.js") {
		t.Fatalf("the report reads:\n%s", text)
	}
	// a beacon of an earlier load, after the page loaded again, is dropped
	get(t, originOf(t, base), p, "")
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"error","message":"late"}`)
	if rep, _ := srv.Report(dir); rep.Load != 2 || len(rep.Errors) != 0 || rep.Painted {
		t.Fatalf("after a new load the report is %+v", rep)
	}
}

func TestPreviewErrorsToolReadsTheReportOfItsWorkspace(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "index.html"), []byte("<p>x</p>"), 0o644)
	room := NewRoom(Options{})
	defer room.Close()
	tool, _ := room.ToolsFor(context.Background(), dir)
	if def := tool[0].Definition(); def.Name != ErrorsToolName || def.Mode != tools.Parallel || def.DefaultApproval != tools.ApprovalAuto {
		t.Fatalf("definition %+v: want a read-only tool run without asking", def)
	}
	res, _ := tool[0].Execute(context.Background(), tools.Call{Name: ErrorsToolName}, nil)
	if !strings.Contains(res.Content, "not open") {
		t.Fatalf("before the pane opened: %q", res.Content)
	}
	srv, _ := room.Server()
	base, _ := srv.Site(dir)
	get(t, originOf(t, base), pathOf(t, base), "")
	st := srv.lookup(dir)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"rejection","message":"Unhandled promise rejection: boom"}`)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"painted"}`)
	res, _ = tool[0].Execute(context.Background(), tools.Call{Name: ErrorsToolName}, nil)
	if res.Content != "The preview of index.html reported 1 error.\n1. Unhandled promise rejection: boom" {
		t.Fatalf("the tool reads %q", res.Content)
	}
}

func TestTheNextLoadOfAPageIsScrolledWhereTheLastOneWas(t *testing.T) {
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head><body></body></html>"}, Options{})
	p := pathOf(t, base)
	get(t, originOf(t, base), p, "")
	st := srv.lookup(dir)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"scroll","x":0,"y":1234}`)
	_, _, body := get(t, originOf(t, base), p+"index.html", "")
	if !strings.Contains(body, `"load":2`) || !strings.Contains(body, `"y":1234`) {
		t.Fatalf("the second load is not told where to scroll:\n%s", body)
	}
}

func TestTheReportIsCurrentOnlyWhileNoFileThePageWasServedChanged(t *testing.T) {
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head></html>", "app.js": "1"}, Options{})
	p := pathOf(t, base)
	load := func(n int) {
		get(t, originOf(t, base), p, "")
		get(t, originOf(t, base), p+"app.js", base)
		get(t, originOf(t, base), p+"style.css", base) // not there yet
		beaconOf(t, base, fmt.Sprintf(`{"site":"%s","load":%d,"kind":"painted"}`, srv.lookup(dir).id, n))
	}
	load(1)
	if current, painted := srv.WaitCurrent(dir, time.Second); !current || !painted {
		t.Fatalf("a page painted with its files unchanged: current %v, painted %v", current, painted)
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, "app.js"), later, later)
	if current, _ := srv.WaitCurrent(dir, 100*time.Millisecond); current {
		t.Fatal("the report is current after app.js changed")
	}
	load(2)
	if current, _ := srv.WaitCurrent(dir, time.Second); !current {
		t.Fatal("the report of the page loaded again is not current")
	}
	os.WriteFile(filepath.Join(dir, "style.css"), []byte("body{}"), 0o644)
	if current, _ := srv.WaitCurrent(dir, 100*time.Millisecond); current {
		t.Fatal("the report is current after the style it missed was made")
	}
}

// A name of another site that resolves to the loopback address (DNS rebinding) reaches the
// server with that name as its Host: it is answered like a wrong secret.
func TestThePreviewAnswersOnlyUnderItsOwnAddress(t *testing.T) {
	_, _, base := served(t, map[string]string{"index.html": "<p>workspace</p>"}, Options{})
	u, _ := url.Parse(base)
	for host, want := range map[string]int{
		u.Host:                     http.StatusOK,
		"evil.example:" + u.Port(): http.StatusNotFound,
		"localhost":                http.StatusNotFound,
	} {
		req, err := http.NewRequest(http.MethodGet, base, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || (want != http.StatusOK && strings.Contains(string(b), "workspace")) {
			t.Errorf("Host %s: %d %q, want %d", host, resp.StatusCode, b, want)
		}
	}
}

// Every response tells the browser that the page may not talk to plain-http addresses (the
// machine's loopback services among them) nor post forms there, and that it sends its
// address (which holds the secret) to no one.
func TestEveryResponseKeepsThePageFromLoopbackServicesAndItsAddressToItself(t *testing.T) {
	_, _, base := served(t, map[string]string{"index.html": "<p>x</p>", "app.js": "1", "pic.svg": "<svg/>"}, Options{})
	p := pathOf(t, base)
	for _, raw := range []string{p, p + "app.js", p + "pic.svg", p + "missing.js"} {
		_, h, _ := get(t, originOf(t, base), raw, "")
		csp := h.Get("Content-Security-Policy")
		directives := map[string][]string{}
		for _, d := range strings.Split(csp, ";") {
			if f := strings.Fields(d); len(f) > 0 {
				directives[f[0]] = f[1:]
			}
		}
		for _, name := range []string{"connect-src", "form-action"} {
			src := directives[name]
			if len(src) == 0 {
				t.Errorf("GET %s: no %s in %q", raw, name, csp)
			}
			for _, s := range src {
				if s == "*" || s == "http:" || strings.Contains(s, "127.0.0.1") || strings.Contains(s, "localhost") {
					t.Errorf("GET %s: %s allows %s", raw, name, s)
				}
			}
		}
		if got := h.Get("Referrer-Policy"); got != "no-referrer" {
			t.Errorf("GET %s: Referrer-Policy %q", raw, got)
		}
	}
}

// A page asking for one missing file after another (a loop of fetches) costs the server a
// bounded amount of memory: what a load keeps of the files it was answered stays bounded.
func TestAPageAskingForEndlessMissingFilesKeepsTheServerBounded(t *testing.T) {
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head></html>"}, Options{})
	p := pathOf(t, base)
	get(t, originOf(t, base), p, "")
	st := srv.lookup(dir)
	for i := range 3 * maxServed {
		get(t, originOf(t, base), fmt.Sprintf("%smissing-%d-%s.js", p, i, strings.Repeat("x", 200)), base)
	}
	st.mu.Lock()
	n := len(st.served)
	st.mu.Unlock()
	if n > maxServed {
		t.Fatalf("one load keeps %d files it was served, over %d", n, maxServed)
	}
	beaconOf(t, base, fmt.Sprintf(`{"site":"%s","load":1,"kind":"painted"}`, st.id))
	if current, _ := srv.WaitCurrent(dir, time.Second); !current {
		t.Fatal("the report of a page whose files did not change is not current")
	}
}

// Two folders served are two origins: the page of one (a folder the user cloned) cannot
// read the other's storage, and asking its own address for the other's files or posting the
// other's reports there gets a 404.
func TestEachFolderIsServedFromAnOriginOfItsOwn(t *testing.T) {
	srv, _, baseA := served(t, map[string]string{"index.html": "<p>A</p>"}, Options{})
	dirB := t.TempDir()
	os.WriteFile(filepath.Join(dirB, "index.html"), []byte("<p>B secret</p>"), 0o644)
	baseB, err := srv.Site(dirB)
	if err != nil {
		t.Fatal(err)
	}
	if originOf(t, baseA) == originOf(t, baseB) {
		t.Fatalf("two folders share the origin %s", originOf(t, baseA))
	}
	if srv.Origin(dirB) != originOf(t, baseB) {
		t.Errorf("Origin(dirB) = %q, want %q", srv.Origin(dirB), originOf(t, baseB))
	}
	if code, _, body := get(t, originOf(t, baseA), pathOf(t, baseB), ""); code != http.StatusNotFound || strings.Contains(body, "B secret") {
		t.Errorf("B's page asked at A's address: %d %q", code, body)
	}
	if code, _, body := get(t, originOf(t, baseB), pathOf(t, baseB), ""); code != http.StatusOK || !strings.Contains(body, "B secret") {
		t.Fatalf("B's page at its own address: %d %q", code, body)
	}
	idB := strings.Split(strings.TrimSuffix(pathOf(t, baseB), "/"), "/")[3]
	secret := strings.Split(strings.TrimPrefix(pathOf(t, baseB), "/"), "/")[0]
	resp, err := http.Post(originOf(t, baseA)+"/"+secret+"/report", "text/plain",
		strings.NewReader(`{"site":"`+idB+`","load":1,"kind":"error","message":"planted by A"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if rep, _ := srv.Report(dirB); resp.StatusCode != http.StatusNotFound || len(rep.Errors) != 0 {
		t.Errorf("A's address took a report for B: %d, B reports %+v", resp.StatusCode, rep.Errors)
	}
}

// What a page reports is read by the model and kept in the chat: the server's secret is
// cut out of it in any form the page prints it (its URL, its path, the secret alone).
func TestThePreviewSecretStaysOutOfWhatAPageReports(t *testing.T) {
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head></html>"}, Options{})
	get(t, originOf(t, base), pathOf(t, base), "")
	st := srv.lookup(dir)
	p := pathOf(t, base)
	secret := strings.Split(strings.TrimPrefix(p, "/"), "/")[0]
	for _, msg := range []string{"href " + base + "index.html", "path " + p + "index.html", "alone " + secret} {
		beaconOf(t, base, fmt.Sprintf(`{"site":%q,"load":1,"kind":"console","level":"log","message":%q,"source":%q}`, st.id, msg, "http://x/"+secret))
	}
	rep, _ := srv.Report(dir)
	if len(rep.Console) != 3 {
		t.Fatalf("console: %+v", rep.Console)
	}
	for _, e := range rep.Console {
		if strings.Contains(e.Message, secret) || strings.Contains(e.Source, secret) {
			t.Errorf("the report holds the secret: %+v", e)
		}
	}
	if rep.Console[1].Message != "path index.html" {
		t.Errorf("the page's path reads %q, want %q", rep.Console[1].Message, "path index.html")
	}
}

// A page is copied to the frame as it is read: a large page is served whole with its
// reporter, and asking for it again and again costs the server a buffer, not the page's size.
func TestALargePageIsServedWholeWithoutBeingHeldInMemory(t *testing.T) {
	const size = 40 << 20
	page := "<!doctype html><html><head><title>big</title></head><body><p>" + strings.Repeat("x", size) + "</p></body></html>"
	_, _, base := served(t, map[string]string{"big.html": page}, Options{})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const asks = 3
	for range asks {
		resp, err := http.Get(base + "big.html")
		if err != nil {
			t.Fatal(err)
		}
		head := make([]byte, 512)
		n, _ := io.ReadFull(resp.Body, head)
		rest, _ := io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(head[:n]), "<head><script>(function(c){") {
			t.Fatalf("big.html: %d, starts %q", resp.StatusCode, head[:n])
		}
		if got := int64(n) + rest; got < int64(len(page)) || got != resp.ContentLength {
			t.Fatalf("big.html: %d bytes of %d (Content-Length %d)", got, len(page), resp.ContentLength)
		}
	}
	runtime.ReadMemStats(&after)
	if perAsk := (after.TotalAlloc - before.TotalAlloc) / asks; perAsk > size/4 {
		t.Errorf("serving the page allocates %d MB per request for a page of %d MB", perAsk>>20, size>>20)
	}
}

// A folder's address without its final slash is sent to the address with it, escaped as it
// came: a folder named "a?b" or "50%" is not cut at its "?" nor misread.
func TestAFolderIsRedirectedToItsOwnAddressWhateverItsName(t *testing.T) {
	_, _, base := served(t, map[string]string{"a?b/index.html": "<p>q</p>", "50%/index.html": "<p>p</p>", "sub/index.html": "<p>s</p>"}, Options{})
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for folder, escaped := range map[string]string{"a?b": "a%3Fb", "50%": "50%25", "sub": "sub"} {
		resp, err := client.Get(base + escaped)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := pathOf(t, base) + escaped + "/"
		if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != want {
			t.Errorf("%s: %d to %q, want %q", folder, resp.StatusCode, resp.Header.Get("Location"), want)
		}
	}
}

// A script of the page fetching an HTML file (a template) gets the file as it is: no
// reporter in it, and the page's load, with what it reported, goes on.
func TestAPageFetchingAnHTMLFileKeepsItsLoadAndItsReport(t *testing.T) {
	const partial = "<template><p>card</p></template>"
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head></html>", "card.html": partial}, Options{})
	get(t, originOf(t, base), pathOf(t, base), "")
	st := srv.lookup(dir)
	beaconOf(t, base, `{"site":"`+st.id+`","load":1,"kind":"error","message":"boom"}`)
	req, _ := http.NewRequest(http.MethodGet, base+"card.html", nil)
	req.Header.Set("Sec-Fetch-Dest", "empty")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != partial {
		t.Errorf("the fetched file reads %q, want it as it is", b)
	}
	if rep, _ := srv.Report(dir); rep.Load != 1 || len(rep.Errors) != 1 {
		t.Errorf("after the fetch the report is of load %d with %d errors, want load 1 and its error", rep.Load, len(rep.Errors))
	}
	// the frame loading a page still starts a new load
	req, _ = http.NewRequest(http.MethodGet, base+"card.html", nil)
	req.Header.Set("Sec-Fetch-Dest", "iframe")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if rep, _ := srv.Report(dir); rep.Load != 2 || !strings.Contains(string(b), "(function(c){") {
		t.Errorf("a frame's load of card.html: load %d, reporter in it %v", rep.Load, strings.Contains(string(b), "(function(c){"))
	}
}

// A page that fills its report with long messages (and could do so with every load) is not
// sent to the window as often as a small report: after a large report, the next waits in
// proportion to its size.
func TestALargeReportIsSentToTheWindowLessOften(t *testing.T) {
	rec := newRecorder()
	srv, dir, base := served(t, map[string]string{"index.html": "<html><head></head></html>"}, Options{Notify: rec.notify})
	get(t, originOf(t, base), pathOf(t, base), "")
	st := srv.lookup(dir)
	long := strings.Repeat("y", maxMessage)
	for i := range 2 * maxEntries {
		kind := KindError
		if i%2 == 1 {
			kind = KindConsole
		}
		beaconOf(t, base, fmt.Sprintf(`{"site":%q,"load":1,"kind":%q,"message":"%d %s"}`, st.id, kind, i, long))
	}
	full, fullAt := rec.waitForAt(t, func(r Report) bool { return len(r.Errors) == maxEntries && len(r.Console) == maxEntries })
	beaconOf(t, base, fmt.Sprintf(`{"site":%q,"load":1,"kind":"painted"}`, st.id))
	_, nextAt := rec.waitForAt(t, func(r Report) bool { return r.Painted })
	// at least the time the large report takes at the bound (a little less: the time from the
	// report's notification to its recording)
	least := time.Duration(full.size())*time.Second/notifyBytesPerSecond - 20*time.Millisecond
	if took := nextAt.Sub(fullAt); took < least || least < 500*time.Millisecond {
		t.Errorf("the report after a report of %d KB came %s later, want at least %s", full.size()>>10, took, least)
	}
}
