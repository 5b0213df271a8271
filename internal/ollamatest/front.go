package ollamatest

import (
	"context"
	"net"
	"net/http"
	"time"
)

// A front is what [Server.URL] points at: it passes every request on to `ollama serve` as it
// is, and streams the answer back as it comes, with one difference: when the client leaves in
// the middle of an answer (a Stop, a killed app), the front goes on reading that answer to its
// end (for drainLimit at most), so the server does not see the client leave.
//
// The server (v0.11.4, and later ones so far) can lose a model's only slot
// (OLLAMA_NUM_PARALLEL=1) to a client that leaves mid-answer: its chat and generate handlers
// send each chunk on an unbuffered channel that nobody reads once the handler has seen the
// client go, and they hold the slot while they wait (server/routes.go, streamResponse). Every
// later request for that model then waits for the slot until its client gives up, so one
// test's Stop became a later test's silent server. It happens when the server has the next
// chunk ready as the client leaves, which is likely when chunks come faster than they are
// written: a scripted model's short answers, which end within a second, so reading them to
// their end costs little. A long one (thousands of tokens of a large vocabulary, about 10 ms
// each on a loaded machine) would keep the model and a core busy for many seconds after its
// client left, and its chunks come slowly: it is closed drainLimit after its client left.
type front struct {
	target string // the server's own address, http://host:port
	server *http.Server
	addr   string
}

// drainLimit bounds how long the front reads an answer whose client has left.
const drainLimit = 5 * time.Second

// startFront serves a front for the server at target on a free loopback port.
func startFront(target string) (*front, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &front{target: target, addr: "http://" + ln.Addr().String()}
	f.server = &http.Server{Handler: f, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = f.server.Serve(ln) }()
	return f, nil
}

// close stops listening and closes the clients' connections; answers still being read end
// with the server.
func (f *front) close() { _ = f.server.Close() }

// upstream carries every request of every front to its server: no timeout, since a load or an
// answer takes what it takes, and the client's own deadline still ends its wait.
var upstream = &http.Transport{Proxy: nil, DisableCompression: true, MaxIdleConnsPerHost: 16}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Once its answer has begun, the request to the server outlives its client: that is the
	// point of the front. Before, a client that leaves takes its request with it, as it would
	// without the front (a request still waiting for its model, say): the server then has no
	// chunk to send that nobody reads.
	ctx, cancel := context.WithCancel(context.WithoutCancel(r.Context()))
	defer cancel()
	out, err := http.NewRequestWithContext(ctx, r.Method, f.target+r.URL.RequestURI(), r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	out.Host = r.Host
	out.ContentLength = r.ContentLength
	leaveBefore := context.AfterFunc(r.Context(), cancel)
	resp, err := upstream.RoundTrip(out)
	leaveBefore()
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	flush := http.NewResponseController(w).Flush
	gone := false // the client has left: read on, write nothing
	var stop *time.Timer
	defer func() {
		if stop != nil {
			stop.Stop()
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 && !gone {
			if _, werr := w.Write(buf[:n]); werr != nil || flush() != nil {
				gone = true
			}
		}
		if err != nil {
			return // the answer ended (io.EOF), or the server went away
		}
		gone = gone || r.Context().Err() != nil
		if gone && stop == nil {
			stop = time.AfterFunc(drainLimit, func() { resp.Body.Close() })
		}
	}
}
