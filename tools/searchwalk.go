package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// search_files walks the folder and searches its files in parallel: a few workers take
// folders and batches of files from one queue, each folder opened once (an [os.Root], so
// that a file is opened by its name in it, one system call, never through a link out of it)
// and each file read through its open descriptor. A file is read in two steps: its first
// block, which tells a binary file (then not read further), then the rest. A pattern that is
// a plain literal is found with bytes.Index, which skips through a file much faster than a
// regular expression; any other pattern is tried on the whole file before its lines.
//
// The matches are sorted as a walk of the folders in name order finds them, whatever worker
// found them. At the cap, every worker stops: the result is then the first matches found,
// in that order, and says which file it stopped at.

// searchBatch is how many files of one folder make a job, so that a folder of many files
// is searched by every worker.
const searchBatch = 64

// firstBlock is what is read of a file before it is known to be text (isBinary looks at
// its first 8000 bytes).
const firstBlock = 8192

// maxGitignore is the largest .gitignore read.
const maxGitignore = 1 << 20

type search struct {
	ctx      context.Context
	w        *Workspace
	re       *regexp.Regexp
	literal  []byte // the pattern, when it is a plain literal that holds no line break
	rare     int    // the index of literal's rarest byte, which the search looks for first
	glob     string
	max      int
	progress ProgressFunc
	app      *appFiles // never searched: the database, its lock and backups, the configuration folders

	stop  atomic.Bool // the cap was reached, or the search failed or was cancelled
	found atomic.Int64

	mu                        sync.Mutex // guards what follows, and progress
	matches                   []match
	full                      bool
	files                     int
	skippedBinary, skippedBig int
	ignored                   int
	err                       error

	qmu     sync.Mutex
	cond    *sync.Cond
	queue   []searchJob
	pending int // jobs queued or being done
}

// match is a matching line.
type match struct {
	path string
	line int
	text string
}

// searchJob is a folder to read (files nil) or files of a folder to search.
type searchJob struct {
	dir   *openDir
	files []string
	ign   *ignoreChain
}

// openDir is a folder held open for the jobs that read in it; the last lets go of it.
type openDir struct {
	root *os.Root
	rel  string
	refs atomic.Int32
	list *os.File // the folder, for its entries (see openListing)
	fd   int      // list's descriptor, when its files are opened by it directly; -1 if not
}

func newOpenDir(root *os.Root, rel string) (*openDir, error) {
	list, fd, err := openListing(root)
	if err != nil {
		root.Close()
		return nil, err
	}
	d := &openDir{root: root, rel: rel, list: list, fd: fd}
	d.refs.Store(1)
	return d, nil
}

func (d *openDir) release() {
	if d.refs.Add(-1) == 0 {
		d.list.Close()
		d.root.Close()
	}
}

func newSearch(ctx context.Context, w *Workspace, re *regexp.Regexp, glob string, max int, progress ProgressFunc) *search {
	s := &search{ctx: ctx, w: w, re: re, glob: glob, max: max, progress: progress, app: w.appFiles()}
	s.cond = sync.NewCond(&s.qmu)
	if lit, complete := re.LiteralPrefix(); complete && lit != "" && !strings.Contains(lit, "\n") {
		s.literal = []byte(lit)
		s.rare = rarestByte(s.literal)
	}
	return s
}

// tree searches the folder rel and what it holds.
func (s *search) tree(rel string) error {
	if err := s.ctx.Err(); err != nil {
		return cancelledf(err, "the search was cancelled after %d files", 0)
	}
	root, err := s.w.root.OpenRoot(rel)
	if err != nil {
		return s.w.explain(rel, err)
	}
	d, err := newOpenDir(root, rel)
	if err != nil {
		return s.w.explain(rel, err)
	}
	s.push(searchJob{dir: d, ign: s.ancestorsIgnore(rel)})
	var wg sync.WaitGroup
	for range searchWorkers() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j, ok := s.next()
				if !ok {
					return
				}
				s.do(j)
				s.doneJob()
			}
		}()
	}
	wg.Wait()
	return s.finish()
}

// start searches the one file rel (fi, what it resolves to).
func (s *search) start(rel string, fi fs.FileInfo) error {
	if err := regularFile(rel, fi); err != nil {
		return nil // hard-linked or special files are not searched, nor opened
	}
	if _, ok := s.app.file(fi); ok {
		return nil
	}
	s.file(nil, rel, rel, make([]byte, 0, firstBlock))
	return s.finish()
}

// finish sorts the matches in walk order and cuts them at the cap.
func (s *search) finish() error {
	if s.err != nil {
		return s.err
	}
	slices.SortFunc(s.matches, func(a, b match) int {
		if c := comparePaths(a.path, b.path); c != 0 {
			return c
		}
		return a.line - b.line
	})
	if len(s.matches) >= s.max {
		s.matches, s.full = s.matches[:s.max], true
	}
	return nil
}

// report is the search's result for the model.
func (s *search) report(pattern string) string {
	lines := make([]string, len(s.matches))
	for i, m := range s.matches {
		lines[i] = fmt.Sprintf("%s:%d: %s", m.path, m.line, m.text)
	}
	content := strings.Join(lines, "\n")
	if len(lines) == 0 {
		content = fmt.Sprintf("No matches for %q in %d files.", pattern, s.files)
	}
	if s.full {
		last := s.matches[len(s.matches)-1]
		content += fmt.Sprintf("\n[stopped after %d matches, at %s:%d, with %d files searched; narrow the pattern, the path or the glob]", len(s.matches), last.path, last.line, s.files)
	}
	if s.skippedBig+s.skippedBinary > 0 {
		content += fmt.Sprintf("\n[skipped %d binary and %d large files]", s.skippedBinary, s.skippedBig)
	}
	if s.ignored > 0 {
		content += fmt.Sprintf("\n[skipped %d files and folders that .gitignore ignores]", s.ignored)
	}
	return content
}

// comparePaths orders paths as a walk of folders in name order meets them: a folder's
// content before the names that extend its own ("a/x" before "a.go").
func comparePaths(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			switch {
			case a[i] == '/':
				return -1
			case b[i] == '/':
				return 1
			case a[i] < b[i]:
				return -1
			default:
				return 1
			}
		}
	}
	return len(a) - len(b)
}

// ancestorsIgnore reads the .gitignore files of the folders above rel (within the workspace),
// whose rules hold in rel too.
func (s *search) ancestorsIgnore(rel string) *ignoreChain {
	var chain *ignoreChain
	if rel == "." {
		return chain
	}
	dir := "."
	for _, part := range strings.Split(rel, "/") {
		chain = chain.with(s.readGitignore(s.w.root, path.Join(dir, ".gitignore"), dir))
		dir = path.Join(dir, part)
	}
	return chain
}

// readGitignore reads the .gitignore name in r, the file of folder dir; nil when there is
// none to read.
func (s *search) readGitignore(r *os.Root, name, dir string) *ignoreRules {
	data, err := readLimited(s.ctx, r, name, name, maxGitignore)
	if err != nil {
		return nil
	}
	return parseGitignore(dir, data)
}

func (s *search) push(j searchJob) {
	s.qmu.Lock()
	s.queue = append(s.queue, j)
	s.pending++
	s.qmu.Unlock()
	s.cond.Signal()
}

// next takes a job (the newest: the walk goes deep first and holds few folders open); false
// when there is none left.
func (s *search) next() (searchJob, bool) {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	for len(s.queue) == 0 && s.pending > 0 {
		s.cond.Wait()
	}
	if len(s.queue) == 0 {
		return searchJob{}, false
	}
	j := s.queue[len(s.queue)-1]
	s.queue = s.queue[:len(s.queue)-1]
	return j, true
}

func (s *search) doneJob() {
	s.qmu.Lock()
	s.pending--
	last := s.pending == 0
	s.qmu.Unlock()
	if last {
		s.cond.Broadcast()
	}
}

// fail records the search's first error and stops it.
func (s *search) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.stop.Store(true)
}

// cancelled stops the search when its context is done.
func (s *search) cancelled() bool {
	if err := s.ctx.Err(); err != nil {
		s.mu.Lock()
		n := s.files
		s.mu.Unlock()
		s.fail(cancelledf(err, "the search was cancelled after %d files", n))
		return true
	}
	return s.stop.Load()
}

func (s *search) do(j searchJob) {
	defer j.dir.release()
	if s.cancelled() {
		return
	}
	if j.files == nil {
		s.folder(j)
		return
	}
	buf := make([]byte, 0, firstBlock)
	for _, name := range j.files {
		if s.cancelled() {
			return
		}
		buf = s.file(j.dir, name, path.Join(j.dir.rel, name), buf)
	}
}

// folder reads a folder: its .gitignore, then its entries, which become jobs (folders) or
// are searched (files) here and by the other workers.
func (s *search) folder(j searchJob) {
	var entries []fs.DirEntry
	for {
		if s.cancelled() {
			return
		}
		batch, err := j.dir.list.ReadDir(1024)
		entries = append(entries, batch...)
		if err == io.EOF || (err == nil && len(batch) == 0) {
			break
		}
		if err != nil {
			s.folderFailed(j.dir.rel, err)
			return
		}
	}
	ign := j.ign
	for _, e := range entries {
		if e.Name() == ".gitignore" && e.Type().IsRegular() {
			ign = ign.with(s.readGitignore(j.dir.root, ".gitignore", j.dir.rel))
		}
	}
	var files []string
	ignored := 0
	for _, e := range entries {
		name := e.Name()
		child := path.Join(j.dir.rel, name)
		switch {
		case e.Type()&fs.ModeSymlink != 0: // never followed: no loops, no second copies
		case e.IsDir():
			if skipped(name) {
				continue
			}
			if ign.ignored(child, true) {
				ignored++
				continue
			}
			sub, err := j.dir.root.OpenRoot(name)
			if err != nil {
				continue // removed meanwhile, or unreadable: not a reason to stop the search
			}
			if len(s.app.configs) > 0 {
				if fi, err := sub.Stat("."); err != nil || s.isConfig(fi) {
					sub.Close()
					continue
				}
			}
			d, err := newOpenDir(sub, child)
			if err != nil {
				continue
			}
			s.push(searchJob{dir: d, ign: ign})
		case e.Type().IsRegular():
			if s.glob != "" {
				if ok, _ := path.Match(s.glob, name); !ok {
					continue
				}
			}
			if ign.ignored(child, false) {
				ignored++
				continue
			}
			files = append(files, name)
		}
	}
	if ignored > 0 {
		s.mu.Lock()
		s.ignored += ignored
		s.mu.Unlock()
	}
	for len(files) > searchBatch {
		j.dir.refs.Add(1)
		s.push(searchJob{dir: j.dir, files: files[len(files)-searchBatch:]})
		files = files[:len(files)-searchBatch]
	}
	buf := make([]byte, 0, firstBlock)
	for _, name := range files {
		if s.cancelled() {
			return
		}
		buf = s.file(j.dir, name, path.Join(j.dir.rel, name), buf)
	}
}

func (s *search) isConfig(fi fs.FileInfo) bool {
	_, ok := s.app.configFolderAt(fi)
	return ok
}

// folderFailed reports a folder that could not be read: the one searched fails the search,
// as it did when it was read alone; one below it is left out.
func (s *search) folderFailed(rel string, err error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		s.cancelled()
		return
	}
	s.fail(s.w.explain(rel, err))
}

// file searches the file name of folder d (nil: of the workspace) and rel in the workspace,
// reading it into buf, which it returns for the next file.
func (s *search) file(d *openDir, name, rel string, buf []byte) []byte {
	var data []byte
	var binary bool
	var err error
	if d != nil && d.fd >= 0 {
		data, binary, err = s.readAt(d.fd, name, buf[:0])
	} else {
		r := s.w.root
		if d != nil {
			r = d.root
		}
		data, binary, err = s.readIn(r, name, rel, buf[:0])
	}
	if data == nil {
		data = buf
	}
	switch {
	case errors.Is(err, errNotSearched):
		return data
	case err != nil:
		if errors.Is(err, errOverLimit) {
			s.skip(&s.skippedBig)
		}
		return data
	case binary:
		s.skip(&s.skippedBinary)
		return data
	}
	s.mu.Lock()
	s.files++
	if s.files%200 == 0 {
		s.progress(map[string]any{"filesSearched": s.files, "matches": len(s.matches)})
	}
	s.mu.Unlock()
	if found := s.lines(data, rel); len(found) > 0 {
		s.mu.Lock()
		s.matches = append(s.matches, found...)
		s.mu.Unlock()
		if s.found.Add(int64(len(found))) >= int64(s.max) {
			s.stop.Store(true)
		}
	}
	return data
}

func (s *search) skip(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}

// errNotSearched is a file the search leaves out without counting it: gone, unreadable, a
// special or hard-linked file, or one of the app's.
var errNotSearched = errors.New("not searched")

// readIn opens the file name of r and reads it (see readOpen).
func (s *search) readIn(r *os.Root, name, rel string, buf []byte) ([]byte, bool, error) {
	f, err := r.OpenFile(name, os.O_RDONLY|openFileFlags, 0)
	if err != nil {
		return buf, false, errNotSearched // vanished, unreadable: not a reason to stop the search
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || regularFile(rel, fi) != nil {
		return buf, false, errNotSearched // replaced by a special file, or hard-linked
	}
	if _, ok := s.app.file(fi); ok {
		return buf, false, errNotSearched
	}
	return s.readOpen(f.Read, fi.Size(), buf)
}

// readOpen reads an open file of size bytes (as it was measured) into buf through read: its
// first block, then, when that is not binary, the rest, checking the context between chunks.
// A file larger than the limit gives errOverLimit.
func (s *search) readOpen(read func([]byte) (int, error), size int64, buf []byte) (data []byte, binary bool, err error) {
	limit := s.w.opts.MaxSearchFile
	if size > limit {
		return buf, false, errOverLimit
	}
	want := int(size) + 1 // one more: a file that grew is seen to
	if cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	for len(buf) < want {
		if len(buf) > 0 && len(buf) >= firstBlock && isBinary(buf) {
			return buf, true, nil
		}
		if err := s.ctx.Err(); err != nil {
			s.cancelled()
			return buf, false, err
		}
		end := len(buf) + readChunk
		if len(buf) == 0 {
			end = firstBlock // the first block alone tells a binary file
		}
		n, err := read(buf[len(buf):min(want, end)])
		buf = buf[:len(buf)+max(n, 0)]
		if err == io.EOF || (err == nil && n == 0) {
			break
		}
		if err != nil {
			return buf, false, err
		}
		if int64(len(buf)) == size {
			break // as it was measured: a file that grows meanwhile is read as it was
		}
	}
	if int64(len(buf)) > limit {
		return buf, false, errOverLimit
	}
	return buf, isBinary(buf), nil
}

// lines finds the matching lines of a file's content, at most the cap's worth.
func (s *search) lines(data []byte, rel string) []match {
	if s.literal != nil {
		return s.literalLines(data, rel)
	}
	if !s.re.Match(data) {
		return nil
	}
	var out []match
	n := 0
	for len(data) > 0 {
		n++
		if n%4096 == 0 && s.cancelled() {
			return out
		}
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if s.re.Match(line) {
			out = append(out, match{rel, n, shownLine(line)})
			if len(out) == s.max {
				return out
			}
		}
	}
	return out
}

// literalLines is lines for a literal pattern: each occurrence found by bytes.Index, its
// line numbered by counting the line breaks skipped.
func (s *search) literalLines(data []byte, rel string) []match {
	var out []match
	n, counted := 1, 0 // the line number of data[counted:]
	for from := 0; ; {
		at := indexFrom(data, from, s.literal, s.rare)
		if at < 0 {
			return out
		}
		start := bytes.LastIndexByte(data[:at], '\n') + 1
		end := len(data)
		if e := bytes.IndexByte(data[at:], '\n'); e >= 0 {
			end = at + e
		}
		n += bytes.Count(data[counted:start], []byte{'\n'})
		counted = start
		out = append(out, match{rel, n, shownLine(data[start:end])})
		if len(out) == s.max || (len(out)%4096 == 0 && s.cancelled()) {
			return out
		}
		from = end + 1
		if from >= len(data) {
			return out
		}
	}
}

// indexFrom is bytes.Index(data[from:], lit)+from, or -1: it looks for lit's rarest byte
// (at rare in lit) with IndexByte and compares lit around each one found. bytes.Index looks
// for lit's first byte, which in text is often a common letter that starts many false
// candidates.
func indexFrom(data []byte, from int, lit []byte, rare int) int {
	c := lit[rare]
	for pos := from + rare; pos < len(data); {
		i := bytes.IndexByte(data[pos:], c)
		if i < 0 {
			return -1
		}
		start := pos + i - rare
		if start+len(lit) > len(data) {
			return -1
		}
		if bytes.Equal(data[start:start+len(lit)], lit) {
			return start
		}
		pos += i + 1
	}
	return -1
}

// byteCommonness ranks bytes by how often text and code hold them, most common first; a byte
// not listed is rarer than all of these.
const byteCommonness = " etaoinsrhldcumfpgwybvk\n.,_()=;:\"'/-{}0123456789xjqz<>*#[]&|ETAOINSRHLDCUMFPGWYBVKXJQZ"

// rarestByte is the index of lit's rarest byte by byteCommonness (the first of equals).
func rarestByte(lit []byte) int {
	best, bestRank := 0, -1
	for i, c := range lit {
		rank := strings.IndexByte(byteCommonness, c)
		if rank < 0 {
			rank = len(byteCommonness)
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// shownLine is a matching line as the result shows it: without its carriage return, cut to
// maxMatchLine characters.
func shownLine(line []byte) string {
	text := strings.TrimRight(string(line), "\r")
	if r := []rune(text); len(r) > maxMatchLine {
		text = string(r[:maxMatchLine]) + "…"
	}
	return text
}

// searchWorkers is how many workers search: one a processor, as ripgrep has threads.
func searchWorkers() int { return max(2, runtime.GOMAXPROCS(0)) }
