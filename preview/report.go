package preview

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"prototyper/tools"
)

// Kinds of what a page reports.
const (
	KindError     = "error"     // an uncaught error (a syntax error of a script too)
	KindRejection = "rejection" // a promise rejected with no handler
	KindLoad      = "load"      // a script, style or image that did not load (a 404 among them)
	KindConsole   = "console"   // console output; Level says which method
)

// Entry is one thing a page reported.
type Entry struct {
	Kind    string `json:"kind"`
	Level   string `json:"level,omitempty"` // console: log, info, warn, error, debug
	Message string `json:"message"`
	Source  string `json:"source,omitempty"` // the script or resource, as the page named it
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

type entry = Entry

// Report is what the page of a workspace reported since it was last loaded.
type Report struct {
	Workspace string `json:"workspace"`
	URL       string `json:"url"`  // the site's base URL
	Page      string `json:"page"` // the page loaded last, relative to the workspace
	Load      int    `json:"load"` // how many pages the site served; 0: none yet
	Painted   bool   `json:"painted"`
	// Errors are the errors, rejections and failed loads, in the order they came.
	Errors []Entry `json:"errors"`
	// Console is the console output (console.error's too), at most maxEntries.
	Console []Entry `json:"console"`
	// Dropped counts what came past maxEntries and was not kept.
	Dropped int `json:"dropped,omitempty"`
	// Text is the report as the model reads it ([Report.Describe]): the window's "Fix these"
	// sends it.
	Text string `json:"text"`
}

// maxEntries bounds what one load keeps of each kind; maxMessage, a message.
const (
	maxEntries = 100
	maxMessage = 2000
)

// site is one workspace folder served, and what its current load reported.
type site struct {
	id   string
	dir  string
	host string // 127.0.0.1:PORT, the site's own listener: its origin
	ws   *tools.Workspace

	mu       sync.Mutex
	load     int
	page     string
	painted  bool
	wake     chan struct{}        // closed (and replaced) when a load begins or paints
	served   map[string]time.Time // the files the current load was served, with their times
	errors   []Entry
	console  []Entry
	dropped  int
	scroll   map[string][2]float64 // by page: where it was scrolled, for its next load
	notifyAt time.Time             // when the pending notification fires; zero: none pending
	lastSent time.Time
	gap      time.Duration // the least time from the last notification to the next
}

func newSite(id, dir string, ws *tools.Workspace) *site {
	return &site{id: id, dir: dir, ws: ws, wake: make(chan struct{}), scroll: map[string][2]float64{}}
}

// begin starts a new load of page: what the previous one reported is dropped. It returns
// the load's number and where the page was scrolled last.
func (st *site) begin(page string) (int, [2]float64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.load++
	st.page, st.painted, st.errors, st.console, st.dropped = page, false, nil, nil, 0
	st.served = map[string]time.Time{}
	st.wakeLocked()
	return st.load, st.scroll[page]
}

// add records e in load (0: the current one); false when load is not current or e is
// already there (a failed load the page and the server both saw).
func (st *site) add(e Entry, load int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if load != 0 && load != st.load {
		return false
	}
	if len(e.Message) > maxMessage {
		e.Message = e.Message[:maxMessage] + "…"
	}
	list := &st.errors
	if e.Kind == KindConsole {
		list = &st.console
	}
	if e.Kind == KindLoad {
		for _, old := range st.errors {
			if old.Kind == KindLoad && sameResource(old.Source, e.Source) {
				return false
			}
		}
	}
	if len(*list) >= maxEntries {
		st.dropped++
		return true
	}
	*list = append(*list, e)
	return true
}

// sameResource reports whether two names of a resource (a path of the site, or a URL that
// ends with it) name the same one.
func sameResource(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	return a == b || strings.HasSuffix(a, "/"+b) || strings.HasSuffix(b, "/"+a)
}

func (st *site) pageOf() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.page
}

func (st *site) paint(load int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if load != st.load || st.painted {
		return false
	}
	st.painted = true
	st.wakeLocked()
	return true
}

func (st *site) wakeLocked() {
	close(st.wake)
	st.wake = make(chan struct{})
}

// servedFile notes that the current load was served rel as it was at modTime (zero: it
// was not there). A load notes at most maxServed files: a page that asks for one missing
// file after another must not grow the server without end (past the bound, a change to a
// file it asked for is not seen by [Server.WaitCurrent]).
func (st *site) servedFile(rel string, modTime time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, known := st.served[rel]; st.served != nil && (known || len(st.served) < maxServed) {
		st.served[rel] = modTime
	}
}

// maxServed bounds the files one load notes (each costs a stat while preview_errors waits).
const maxServed = 1000

// staleLocked reports whether a file the current load was served changed since (or is gone):
// what the page reported is then about files that are no longer there.
func (st *site) staleLocked() bool {
	for rel, at := range st.served {
		fi, err := os.Stat(filepath.Join(st.dir, filepath.FromSlash(rel)))
		switch {
		case at.IsZero(): // answered 404: stale once it is there
			if err == nil {
				return true
			}
		case err != nil || !fi.ModTime().Equal(at):
			return true
		}
	}
	return false
}

func (st *site) scrolled(load int, x, y float64) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if load == st.load {
		st.scroll[st.page] = [2]float64{x, y}
	}
}

// scheduleNotify says how long to wait before notifying, and false when a notification is
// already pending.
func (st *site) scheduleNotify() (time.Duration, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if !st.notifyAt.IsZero() {
		return 0, false
	}
	wait := max(0, st.gap-time.Since(st.lastSent))
	st.notifyAt = time.Now().Add(wait)
	return wait, true
}

// notified notes a notification of a report of size bytes: the next one waits at least
// notifyEvery, and longer after a large report, so that the window is sent at most about
// notifyBytesPerSecond of reports, whatever a page does.
func (st *site) notified(size int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.notifyAt, st.lastSent = time.Time{}, time.Now()
	st.gap = max(notifyEvery, time.Duration(size)*time.Second/notifyBytesPerSecond)
}

// notifyBytesPerSecond bounds what a site's reports cost the window: a page can fill its
// report (200 entries of 2000 characters, read twice: as entries and as text) with every
// load, and load again and again.
const notifyBytesPerSecond = 1 << 20

// size is about how many bytes the report takes in an event.
func (rep Report) size() int {
	n := len(rep.Text)
	for _, list := range [][]Entry{rep.Errors, rep.Console} {
		for _, e := range list {
			n += len(e.Message) + len(e.Source) + 64
		}
	}
	return n
}

func (s *Server) report(st *site) Report {
	st.mu.Lock()
	defer st.mu.Unlock()
	rep := Report{Workspace: st.dir, URL: s.baseURL(st), Page: st.page, Load: st.load, Painted: st.painted,
		Errors: append([]Entry{}, st.errors...), Console: append([]Entry{}, st.console...), Dropped: st.dropped}
	rep.Text = rep.Describe(rep.Painted)
	return rep
}

// Report returns what the page of the folder dir reported since it was last loaded, and
// false when the folder was never previewed.
func (s *Server) Report(dir string) (Report, bool) {
	st := s.lookup(dir)
	if st == nil {
		return Report{}, false
	}
	return s.report(st), true
}

// WaitCurrent waits until the page of dir loaded last was served the files as they are now
// (none changed since: the pane reloads after a change) and has painted, or until timeout.
// It reports whether the report is about the files as they are and the page painted. A folder
// never previewed, or with no page loaded, has nothing to wait for.
func (s *Server) WaitCurrent(dir string, timeout time.Duration) (current, painted bool) {
	st := s.lookup(dir)
	if st == nil {
		return false, false
	}
	deadline := time.After(timeout)
	for {
		st.mu.Lock()
		none, painted, stale, wake := st.load == 0, st.painted, st.staleLocked(), st.wake
		st.mu.Unlock()
		if none || (painted && !stale) {
			return !none, painted
		}
		select {
		case <-wake:
		case <-time.After(staleLook): // a change shows in the files before the pane reloads
		case <-deadline:
			return !stale, painted
		}
	}
}

// staleLook is how often WaitCurrent looks at the files while it waits.
const staleLook = 50 * time.Millisecond

// beacon is what the reporter script posts.
type beacon struct {
	Site    string  `json:"site"`
	Load    int     `json:"load"`
	Kind    string  `json:"kind"` // an Entry's kind, or "painted", "scroll"
	Level   string  `json:"level"`
	Message string  `json:"message"`
	Source  string  `json:"source"`
	Line    int     `json:"line"`
	Column  int     `json:"column"`
	X       float64 `json:"x"`
	Y       float64 `json:"y"`
}

// receive takes one beacon of the reporter script.
func (s *Server) receive(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	var b beacon
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&b); err != nil {
		http.Error(w, "bad report", http.StatusBadRequest)
		return
	}
	st := s.siteAt(b.Site, r)
	if st == nil {
		http.NotFound(w, r)
		return
	}
	w.WriteHeader(http.StatusNoContent)
	// the secret stays out of what the user and the model read (and the chat keeps): a URL
	// of the site becomes the path in the folder, and the secret anywhere else (a page that
	// prints its location.pathname) is cut out
	base := s.baseURL(st)
	b.Source = strings.TrimPrefix(b.Source, base)
	b.Message = strings.ReplaceAll(b.Message, base, "")
	b.Message = strings.ReplaceAll(b.Message, s.secret+"/s/"+st.id+"/", "")
	b.Source = strings.ReplaceAll(b.Source, s.secret[1:], "…")
	b.Message = strings.ReplaceAll(b.Message, s.secret[1:], "…")
	changed := false
	switch b.Kind {
	case "painted":
		if changed = st.paint(b.Load); changed {
			s.log("painted", st.pageOf(), b.Load)
		}
	case "scroll":
		st.scrolled(b.Load, b.X, b.Y)
	case KindError, KindRejection, KindLoad, KindConsole:
		changed = st.add(Entry{Kind: b.Kind, Level: b.Level, Message: b.Message, Source: b.Source, Line: b.Line, Column: b.Column}, b.Load)
	}
	if changed {
		s.notifyLater(st)
	}
}
