package ollama

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Ollama v0.9.0 to v0.11.6 repeat the first piece of an answer whose thinking was asked for
// and skipped: their thinking parser, once it sees content that does not open with the thinking
// tag, passes that content through but keeps it, and sends it again at the start of the next
// line that carries content ("Wrote", then "Wrote where.txt"). v0.11.7 fixed it ("thinking:
// fix double emit when no opening tag"). A user of those servers with thinking on (the
// default) would read the first word of such an answer twice, and the model would read it so
// in the history; the client takes the repeat out.
//
// The repeat is recognised by its shape — the second content line starts with the whole first
// one, no thinking came before — and confirmed by the server's version, asked once when the
// shape first shows: on a server without the fault, a model may well start its second piece
// with the text of its first ("1", "1"). A server built from source without its version
// stamped says "0.0.0" (`go install github.com/ollama/ollama@v0.11.4` does; the Makefile stamps
// it): its shape alone decides.

// firstRepeatFixed is the first Ollama version that does not repeat the first piece.
var firstRepeatFixed = [3]int{0, 11, 7}

// firstRepeatSince is the first Ollama version whose thinking parser repeats it.
var firstRepeatSince = [3]int{0, 9, 0}

// unstampedVersion is what a server built from source without its version stamped says.
const unstampedVersion = "0.0.0"

// repeatsFirstPiece reports whether a server of version v repeats the first piece of an
// answer whose thinking was skipped: the versions that do, and an unstamped build, which may.
// A version that is not major.minor.patch is taken not to.
func repeatsFirstPiece(v string) bool {
	if v == unstampedVersion {
		return true
	}
	v, _, _ = strings.Cut(strings.TrimPrefix(v, "v"), "-")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	var n [3]int
	for i, p := range parts {
		x, err := strconv.Atoi(p)
		if err != nil {
			return false
		}
		n[i] = x
	}
	return !less(n, firstRepeatSince) && less(n, firstRepeatFixed)
}

func less(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// serverVersion is the version a client learned of its server, shared by the copies [Client.With]
// makes. It is asked again after a while: the server may have been upgraded meanwhile.
type serverVersion struct {
	mu      sync.Mutex // guards version and at, never held while asking
	version string
	at      time.Time
}

// known returns the version asked less than [versionKept] ago.
func (sv *serverVersion) known() (string, bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.version, !sv.at.IsZero() && time.Since(sv.at) <= versionKept
}

// learned keeps v, asked at at, unless a newer answer came meanwhile.
func (sv *serverVersion) learned(v string, at time.Time) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if at.After(sv.at) {
		sv.version, sv.at = v, at
	}
}

// versionKept is how long a version asked is trusted.
const versionKept = time.Minute

// versionWait bounds the question: a server slow to say its version holds up the answer
// being decoded (its second piece) that long at most.
const versionWait = 5 * time.Second

// repeatsFirstPiece asks the server's version (once a minute at most; a server that does not
// answer within [versionWait] is taken not to repeat, and asked again next time) and reports
// whether it repeats the first piece. Streams asking at the same time each ask: none waits
// for another's question, so that each one's stop takes effect at once.
func (c *Client) repeatsFirstPiece(ctx context.Context) bool {
	sv := c.version
	if sv == nil {
		sv = &serverVersion{}
	}
	if v, ok := sv.known(); ok {
		return repeatsFirstPiece(v)
	}
	ctx, cancel := context.WithTimeout(ctx, versionWait)
	defer cancel()
	asked := time.Now()
	v, err := c.With(WithRetry(1, 0)).Version(ctx)
	if err != nil {
		return false
	}
	sv.learned(v, asked)
	return repeatsFirstPiece(v)
}

// firstRepeat watches the first two content lines of an answer whose thinking was asked for,
// and takes out of the second the repeat of the first that the server sent (see above). The
// first line is held until the second shows whether it was repeated: a call the model wrote
// without thinking is the other shape of the fault. The server's tool parser takes the call
// out of the repeated text and leaves the repeat of its first piece ("<tool_call") as the
// answer's only text; the held line is then dropped, and the call comes alone.
type firstRepeat struct {
	watching bool   // thinking was asked, and the answer's second content line has not come
	first    string // the first content line's text, held; "" until it came
	repeats  func() bool
}

// thinking notes a thinking line: the answer opened with its thinking, nothing is repeated.
func (f *firstRepeat) thinking() {
	if f.first == "" {
		f.watching = false
	}
}

// content returns the text to give for a content line: "" for the first one, which is held,
// then the held one with the second, less the server's repeat.
func (f *firstRepeat) content(text string) string {
	if !f.watching || text == "" { // a line without content is no line of the answer's text
		return text
	}
	if f.first == "" {
		f.first = text
		return ""
	}
	f.watching = false
	first := f.first
	f.first = ""
	if strings.HasPrefix(text, first) && f.repeats() {
		return text
	}
	return first + text
}

// end returns the line still held when the answer ends (with calls: it made tool calls):
// nothing when it is the repeat a call left behind.
func (f *firstRepeat) end(calls bool) string {
	first := f.first
	f.watching, f.first = false, ""
	if first == "" || calls && f.repeats() {
		return ""
	}
	return first
}
