package preview

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"prototyper/tools"
)

// ErrClosed is returned by [Server.Site] once the server is closed.
var ErrClosed = errors.New("the preview server is closed")

// Options configure a [Server].
type Options struct {
	// Files are the options the app's file tools use (its own files refused); the sites
	// open their folders with them.
	Files tools.WorkspaceOptions
	// Notify, when set, is called with a site's report after it changed (a page loaded,
	// painted, reported something, or was answered 404), at most once per [notifyEvery]
	// per site, and after a large report later still ([notifyBytesPerSecond]). It must not
	// block.
	Notify func(Report)
	// Log, when set, gets one JSON line per page served and per page painted,
	// {"kind":"served"|"painted","at":RFC3339Nano,"page":…,"load":N}: a test measures from
	// it how soon a change is on screen ([LogEnv]).
	Log io.Writer
}

// LogEnv names the variable of a file the window's preview appends [Options.Log] lines to.
const LogEnv = "PROTOTYPER_PREVIEW_LOG"

// LogLine is one line of [Options.Log].
type LogLine struct {
	Kind string    `json:"kind"`
	At   time.Time `json:"at"`
	Page string    `json:"page"`
	Load int       `json:"load"`
}

func (s *Server) log(kind, page string, load int) {
	if s.opts.Log == nil {
		return
	}
	b, _ := json.Marshal(LogLine{Kind: kind, At: time.Now(), Page: page, Load: load})
	s.logMu.Lock()
	defer s.logMu.Unlock()
	s.opts.Log.Write(append(b, '\n'))
}

// Server is the preview's HTTP server. Its methods are safe for concurrent use.
type Server struct {
	opts   Options
	srv    *http.Server
	secret string // the path prefix every request must start with: "/" + 32 hex digits

	logMu sync.Mutex

	mu     sync.Mutex
	closed bool
	sites  map[string]*site // by folder
	byID   map[string]*site
}

// Start makes the server; each site ([Server.Site]) listens on 127.0.0.1 at a port of its
// own, which the system picks, until [Server.Close]. A port per folder makes an origin per
// folder: the page of one folder cannot read the storage (localStorage, IndexedDB, cookies)
// or the files of another folder's page, as it could under one shared origin.
func Start(opts Options) (*Server, error) {
	s := &Server{opts: opts, secret: "/" + randomHex(16), sites: map[string]*site{}, byID: map[string]*site{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	return s, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b)
}

// Origin is the origin of the folder dir's site, http://127.0.0.1:PORT (its own port), or ""
// when the folder is not served: the window's frame of its preview has it, and no other.
func (s *Server) Origin(dir string) string {
	st := s.lookup(dir)
	if st == nil {
		return ""
	}
	return "http://" + st.host
}

// Close stops the server and releases the sites' folders.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	sites := s.sites
	s.sites, s.byID = map[string]*site{}, map[string]*site{}
	s.mu.Unlock()
	err := s.srv.Close()
	for _, st := range sites {
		st.ws.Close()
	}
	return err
}

// Site returns the base URL (ending in "/") under which the folder dir is served, opening it
// on first use. The same folder keeps its URL while the server runs.
func (s *Server) Site(dir string) (string, error) {
	st, err := s.site(dir)
	if err != nil {
		return "", err
	}
	return s.baseURL(st), nil
}

func (s *Server) baseURL(st *site) string {
	return "http://" + st.host + s.secret + "/s/" + st.id + "/"
}

func (s *Server) site(dir string) (*site, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if st := s.sites[abs]; st != nil {
		return st, nil
	}
	ws, err := tools.OpenWorkspace(abs, s.opts.Files)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ws.Close()
		return nil, fmt.Errorf("the preview cannot listen on the loopback address: %w", err)
	}
	go s.srv.Serve(ln) // closed by s.srv.Close, also when that came first
	st := newSite(randomHex(6), abs, ws)
	st.host = ln.Addr().String()
	s.sites[abs], s.byID[st.id] = st, st
	return st, nil
}

// lookup returns the site of a folder already served, or nil.
func (s *Server) lookup(dir string) *site {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sites[abs]
}

// ServeHTTP answers under the secret prefix only: a site's files (GET, HEAD) and the
// reporter's endpoint (POST); anything else is a 404 that says nothing.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", contentPolicy)
	h.Set("Referrer-Policy", "no-referrer")
	rest, ok := strings.CutPrefix(r.URL.Path, s.secret+"/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if rest == "report" {
		s.receive(w, r)
		return
	}
	idPath, ok := strings.CutPrefix(rest, "s/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	id, rel, _ := strings.Cut(idPath, "/")
	st := s.siteAt(id, r)
	if st == nil || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		http.NotFound(w, r)
		return
	}
	s.serveFile(w, r, st, rel)
}

// siteAt returns the site id when r came to its own address, else nil: a page of another
// folder (another port) does not reach it, nor does a name of another host that resolves to
// the loopback address (DNS rebinding).
func (s *Server) siteAt(id string, r *http.Request) *site {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.byID[id]; st != nil && r.Host == st.host {
		return st
	}
	return nil
}

// serveFile answers a GET of rel, a path of st's folder as the URL gave it (decoded).
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request, st *site, rel string) {
	if rel == "" || strings.HasSuffix(rel, "/") {
		rel += "index.html"
	}
	f, fi, err := st.ws.OpenToServe(rel)
	if errors.Is(err, tools.ErrWrongKind) && !strings.HasSuffix(r.URL.Path, "/") {
		if g, _, err2 := st.ws.OpenToServe(path.Join(rel, "index.html")); err2 == nil {
			g.Close()
			http.Redirect(w, r, r.URL.EscapedPath()+"/", http.StatusFound) // escaped: a folder may be named "a?b" or "a#b"
			return
		}
	}
	if err != nil {
		s.missed(st, r, rel)
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	ctype := mime.TypeByExtension(path.Ext(rel))
	isPage := strings.HasPrefix(ctype, "text/html") && loadsAPage(r)
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	if !isPage {
		st.servedFile(rel, fi.ModTime())
		http.ServeContent(w, r, "", time.Time{}, f) // Range requests for media; no Last-Modified
		return
	}
	// The reporter goes where the page's first bytes say; the rest is copied as it is read,
	// so that a page costs the server a buffer, not its size, however large it is and however
	// often it is asked for.
	first := make([]byte, min(fi.Size(), pageSniffBytes))
	if _, err := io.ReadFull(f, first); err != nil {
		http.Error(w, "the page could not be read", http.StatusInternalServerError)
		return
	}
	load, scroll := st.begin(rel)
	st.servedFile(rel, fi.ModTime())
	s.log("served", rel, load)
	s.notifyLater(st)
	script := reporterScript(s.secret+"/report", st.id, load, scroll)
	at := reporterAt(first)
	w.Header().Set("Content-Length", fmt.Sprint(fi.Size()+int64(len(script))))
	if r.Method != http.MethodGet {
		return
	}
	for _, b := range [][]byte{first[:at], script, first[at:]} {
		if _, err := w.Write(b); err != nil {
			return
		}
	}
	io.CopyN(w, f, fi.Size()-int64(len(first))) // the size measured: a page growing meanwhile is cut there
}

// loadsAPage reports whether r loads a document into a frame (the pane's, or one of the
// page's own), as opposed to a script's fetch of an HTML file (a template, a partial): only
// a document gets the reporter and starts a new load of its site, so that a page fetching
// HTML neither drops its own report nor gets a copy of the reporter's text. A request that
// does not say (no Sec-Fetch-Dest) is taken as a document.
func loadsAPage(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Dest") {
	case "", "document", "iframe", "frame", "embed", "object":
		return true
	}
	return false
}

// pageSniffBytes is how much of a page is read to find where the reporter goes (its <head>).
const pageSniffBytes = 256 << 10

// contentPolicy is the Content-Security-Policy of every response (pages, but also scripts run
// as workers and SVG opened as documents). A page may talk to its own server and to any
// https or wss address, and post its forms there; not to a plain-http address, which
// includes the machine's other loopback services: a model server (Ollama takes requests
// from 127.0.0.1 pages by default, deletions among them), another app's local API. Loading
// scripts, styles and images from anywhere stays allowed, as in a browser.
const contentPolicy = "connect-src 'self' https: wss:; form-action 'self' https:"

// missed records a 404 in the load of the page that asked for it (its Referer names the
// page's site): a script or style that is not there is an error of the page.
func (s *Server) missed(st *site, r *http.Request, rel string) {
	switch ext := strings.ToLower(path.Ext(rel)); {
	case ext == ".html", ext == ".htm", r.Header.Get("Sec-Fetch-Dest") == "iframe", r.Header.Get("Sec-Fetch-Dest") == "document":
		return // a page that is not there is no failure of the page shown before: the pane says so
	}
	st.servedFile(rel, time.Time{})
	if st.add(entry{Kind: KindLoad, Message: "404 Not Found: " + rel, Source: rel}, 0) {
		s.notifyLater(st)
	}
}

// notifyLater calls Notify with st's report, at most once per notifyEvery.
func (s *Server) notifyLater(st *site) {
	if s.opts.Notify == nil {
		return
	}
	if wait, ok := st.scheduleNotify(); ok {
		time.AfterFunc(wait, func() {
			rep := s.report(st)
			st.notified(rep.size())
			s.opts.Notify(rep)
		})
	}
}

// notifyEvery bounds how often a site's report is sent: a page that logs in a loop must
// not flood the window.
const notifyEvery = 50 * time.Millisecond
