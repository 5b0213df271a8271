package ollamatest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
)

// longAnswer answers in 200 pieces of 30 KB each, more than sockets hold, so that a
// client that stops reading keeps the server waiting in the middle of its answer.
var longAnswer = ollamatest.Model{Name: "long-answer", Scripts: ollamatest.Scripts{
	ollamatest.Fallback: func() []string {
		pieces := make([]string, 200)
		for i := range pieces {
			pieces[i] = fmt.Sprintf(" %d %s", i, strings.Repeat("la ", 10000))
		}
		return pieces
	}(),
}}

// A client that leaves in the middle of an answer (a Stop, a killed app) does not keep the
// model from answering the next request. The server itself (v0.11.4) can lose its only slot
// for a model that way: its chat handler sends each chunk on an unbuffered channel that
// nobody reads once the client has gone, and holds the slot while it waits; the harness reads
// such an answer to its end for the client that left.
func TestAClientThatLeavesMidAnswerDoesNotHoldTheModel(t *testing.T) {
	srv := ollamatest.Get(t)
	body, err := json.Marshal(map[string]any{
		"model":    longAnswer.Name,
		"messages": []map[string]any{{"role": "user", "content": "Go on"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	// The leaving client's socket takes little, so that the server soon waits for it to read.
	small := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{
		Control: func(_, _ string, c syscall.RawConn) error {
			var err error
			if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) }); cerr != nil {
				return cerr
			}
			return err
		},
	}).DialContext}}
	post := func(ctx context.Context, client *http.Client) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL()+"/api/chat", bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		return client.Do(req)
	}
	for round := range 3 {
		ctx, leave := context.WithCancel(context.Background())
		resp, err := post(ctx, small)
		if err != nil {
			t.Fatal(err)
		}
		if !bufio.NewScanner(resp.Body).Scan() {
			t.Fatalf("round %d: no first line of the answer", round)
		}
		time.Sleep(time.Second) // reads no more: the server waits to write
		leave()
		resp.Body.Close()

		next, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		resp, err = post(next, http.DefaultClient)
		if err != nil {
			cancel()
			t.Fatalf("round %d: after a client left mid-answer, the next request got no answer in 20 s: %v", round, err)
		}
		var done bool
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			var c wireChunk
			done = json.Unmarshal(sc.Bytes(), &c) == nil && c.Done
		}
		resp.Body.Close()
		cancel()
		if !done {
			t.Fatalf("round %d: after a client left mid-answer, the next answer did not end (%v)", round, next.Err())
		}
	}
}
