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
// one, no thinking came before — and confirmed by the server's version: on a server without
// the fault, a model may well start its second piece with the text of its first ("1", "1"). A
// server built from source without its version stamped says "0.0.0" (`go install
// github.com/ollama/ollama@v0.11.4` does; the Makefile stamps it): its shape alone decides.
// The version is asked beside a request that asks for thinking (once a minute at most), so
// that on a server known to be without the fault the first piece is shown as it comes; only
// where the server may repeat it does it wait for the second.

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
	mu      sync.Mutex // guards the fields, never held while asking
	version string
	at      time.Time
	asking  chan struct{} // closed once the question in flight is over; nil: none in flight
}

// known returns the version asked less than [versionKept] ago.
func (sv *serverVersion) known() (string, bool) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.version, sv.fresh()
}

func (sv *serverVersion) fresh() bool { return !sv.at.IsZero() && time.Since(sv.at) <= versionKept }

// question returns the question in flight, or starts one with ask, unless the version is
// known (nil). The question is the client's, not a stream's: streams wait for it each within
// their own context, so that each one's stop takes effect at once; one that fails is asked
// again by the next stream.
func (sv *serverVersion) question(ask func() (string, error)) <-chan struct{} {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	if sv.fresh() {
		return nil
	}
	if sv.asking != nil {
		return sv.asking
	}
	done := make(chan struct{})
	sv.asking = done
	go func() {
		defer close(done)
		asked := time.Now()
		v, err := ask()
		sv.mu.Lock()
		defer sv.mu.Unlock()
		sv.asking = nil
		if err == nil && asked.After(sv.at) {
			sv.version, sv.at = v, asked
		}
	}()
	return done
}

// versionKept is how long a version asked is trusted.
const versionKept = time.Minute

// versionWait bounds the question: a server slow to say its version holds up the answer
// being decoded (its second piece) that long at most.
const versionWait = 5 * time.Second

// versionAhead bounds the wait of an answer's first piece for the version asked with the
// request (which a local server gives long before the model's first token): a server slower
// to say has the first piece held until the second, as when the version is not known.
const versionAhead = 100 * time.Millisecond

func (c *Client) versions() *serverVersion {
	if c.version == nil {
		return &serverVersion{}
	}
	return c.version
}

// askVersion starts asking the server's version in the background, unless it is known or
// being asked; the channel is closed once the question is over (nil: the version is known).
func (c *Client) askVersion() <-chan struct{} {
	return c.versions().question(func() (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), versionWait)
		defer cancel()
		return c.With(WithRetry(1, 0)).Version(ctx)
	})
}

// versionRepeats waits for the server's version (once a minute it is asked again) at most
// wait, within ctx, and reports whether that server repeats the first piece; known is false
// when the version did not come in time or could not be asked.
func (c *Client) versionRepeats(ctx context.Context, wait time.Duration) (repeats, known bool) {
	if q := c.askVersion(); q != nil {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-q:
		case <-timer.C:
			return false, false
		case <-ctx.Done():
			return false, false
		}
	}
	v, ok := c.versions().known()
	if !ok {
		return false, false
	}
	return repeatsFirstPiece(v), true
}

// repeatsFirstPiece reports whether the server repeats the first piece: a server that does not
// say its version within [versionWait] is taken not to.
func (c *Client) repeatsFirstPiece(ctx context.Context) bool {
	repeats, _ := c.versionRepeats(ctx, versionWait)
	return repeats
}

// fixedServer reports whether the server is known not to repeat the first piece, waiting
// [versionAhead] at most for its version.
func (c *Client) fixedServer(ctx context.Context) bool {
	repeats, known := c.versionRepeats(ctx, versionAhead)
	return known && !repeats
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
	// fixed reports that the server is known not to repeat (its version, asked beside the
	// request): the first line then goes at once, not a piece later (nil: never known)
	fixed func() bool
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
		if f.fixed != nil && f.fixed() {
			f.watching = false
			return text
		}
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
