// Package clienttest holds what the tests of both model clients check alike, through the
// stream code they share: that an API key never reaches the client's caller, that a redirect
// to another origin is not followed, an answer with no end, and an address where nothing
// answers. Only tests import it.
package clienttest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// SecretKey is the key the tests send, which a hostile server echoes back in every way it can.
const SecretKey = "sk-proj-0123456789abcdefSECRET"

// WantKeyHidden fails t when what a caller of the client may show after a chat holds
// [SecretKey] or its middle, or does not say where it was: err, the answer's text (shown), and
// the server's own words when err carries them as an E (the client's status error, read by
// words).
func WantKeyHidden[E error](t testing.TB, err error, words func(E) string, shown ...string) {
	t.Helper()
	seen := fmt.Sprint(err) + strings.Join(shown, "")
	var e E
	if errors.As(err, &e) {
		seen += words(e)
	}
	if strings.Contains(seen, SecretKey) || strings.Contains(seen, "0123456789abcdef") {
		t.Fatalf("the key reached the client's caller: %s", seen)
	}
	if !strings.Contains(seen, "[key hidden]") {
		t.Errorf("nothing says where the key was: %s", seen)
	}
}

// OtherOrigins runs try, each in a subtest, for the addresses a server may redirect a client
// to on another origin: a server answering with answer, and a port that refuses (the address
// named must be the one redirected to). It fails t when a request reached that server: the
// client follows no such redirect. It returns the server's address.
func OtherOrigins(t *testing.T, answer http.HandlerFunc, try func(t *testing.T, to string)) string {
	t.Helper()
	var sent atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sent.Add(1)
		answer(w, r)
	}))
	t.Cleanup(elsewhere.Close)
	for _, to := range []string{elsewhere.URL, RefusingURL(t)} {
		t.Run(to, func(t *testing.T) {
			t.Cleanup(func() { // also after try fails
				if sent.Load() != 0 {
					t.Error("the request (the conversation, and the key if any) was sent on to the other origin")
				}
			})
			try(t, to)
		})
	}
	return elsewhere.URL
}

// Endless is a server's answer that writes piece, as contentType, until the client goes away:
// an answer with no end, which only the client's limits stop.
func Endless(contentType, piece string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, piece); err != nil {
				return
			}
		}
	}
}

// RefusingURL is the http address of a port that refuses connections: one just closed.
func RefusingURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return "http://" + l.Addr().String()
}
