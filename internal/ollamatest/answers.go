package ollamatest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Answers of a server that is not the real one, for tests that stand an httptest server in
// Ollama's place to see what a user is told.

// Routes are the answers of a stand-in server by the path asked, e.g. "/api/chat"; a path
// without one is answered 404.
type Routes map[string]http.HandlerFunc

// Serve stands a server that answers routes in the real one's place until the test ends, and
// returns its URL. The body of a request is read before it is answered (a Go server notices
// that a client went away only once it has), and stays readable by the route's handler.
func Serve(tb testing.TB, routes Routes) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		if answer, ok := routes[r.URL.Path]; ok {
			answer(w, r)
			return
		}
		http.NotFound(w, r)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// PullLines answers /api/pull as Ollama streams a pull: each line of lines (a JSON object),
// flushed as it goes.
func PullLines(lines ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for _, l := range lines {
			_, _ = io.WriteString(w, l+"\n")
			w.(http.Flusher).Flush()
		}
	}
}

// ModelNotFound answers as Ollama does for a model it does not have: HTTP 404 with its JSON
// error.
func ModelNotFound(model string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":"model '%s' not found"}`, model)
	}
}

// WebPage answers with the HTML page html, as any web server at the address where Ollama was
// expected does (a router's login page, a default "It works!").
func WebPage(html string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, html)
	}
}
