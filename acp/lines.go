package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"

	sdk "github.com/coder/acp-go-sdk"
)

// maxMessage is the longest message (one line, without its newline) the SDK's connection
// reads: a longer line ends its reading, and so the connection, for every session.
const maxMessage = 10<<20 - 1

// What a request the connection cannot read becomes, so that its answer says why: too long,
// or not JSON.
const (
	methodTooLarge  = "_prototyper/too_large"
	methodMalformed = "_prototyper/malformed"
)

// headSize is how much of a message too long to read is kept to find its id.
const headSize = 64 << 10

// boundLines passes in's lines through, and replaces each line longer than limit bytes with
// a request of methodTooLarge of the same id, and each line that is not JSON with one of
// methodMalformed (one whose id is not found is dropped, with a short warning): a prompt with
// a huge attachment is refused in one answer rather than end the connection, and a broken
// request is answered rather than wait forever.
func boundLines(in io.Reader, limit int, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, headSize)
		for {
			line, n, over, err := readLine(br, limit)
			switch {
			case over:
				line = stand(line, methodTooLarge, n, log)
			case len(bytes.TrimSpace(line)) > 0 && !json.Valid(line):
				line = stand(line, methodMalformed, n, log)
			}
			if len(line) > 0 {
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = nil
				}
				_ = pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// readLine reads one line of br: the whole line with its newline when it holds at most limit
// bytes besides the newline, else (over) its first headSize bytes, the rest read and dropped.
// n is the line's length without its newline.
func readLine(br *bufio.Reader, limit int) (line []byte, n int64, over bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		n += int64(len(bytes.TrimSuffix(chunk, []byte("\n"))))
		if !over {
			line = append(line, chunk...)
			if n > int64(limit) {
				over = true
				line = line[:min(len(line), headSize):min(len(line), headSize)]
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, n, over, err
		}
	}
}

// stand is the request of method that stands for a message the connection cannot read, n
// bytes long, with the id its head holds; nil when none is found there (a notification, an
// id after its params, or no JSON at all).
func stand(head []byte, method string, n int64, log *slog.Logger) []byte {
	dec := json.NewDecoder(bytes.NewReader(head))
	var id json.RawMessage
	if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				break
			}
			var value json.RawMessage
			if err := dec.Decode(&value); err != nil {
				break
			}
			if key == "id" {
				id = value
				break
			}
		}
	}
	if id == nil {
		log.Warn("a message the agent cannot read was dropped: it has no id to answer", "why", method, "bytes", n)
		return nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": map[string]int64{"bytes": n}})
	return append(b, '\n')
}

// HandleExtensionMethod answers a request the connection could not read (methodTooLarge,
// methodMalformed) with the sentence a user can act on; this agent has no other extension.
func (s *Server) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var p struct{ Bytes int64 }
	_ = json.Unmarshal(params, &p)
	switch method {
	case methodTooLarge:
		return nil, invalid(fmt.Sprintf("the message is %.1f MB, over the %d MB this agent reads: attach smaller or fewer images and files",
			float64(p.Bytes)/(1<<20), (maxMessage+1)>>20))
	case methodMalformed:
		return nil, &sdk.RequestError{Code: -32700, Message: fmt.Sprintf("The editor sent a message of %d bytes that is not valid JSON, which the agent cannot read: report it to the editor's developers", p.Bytes)}
	}
	return nil, sdk.NewMethodNotFound(method)
}
