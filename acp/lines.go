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

// methodTooLarge is what a request too long to read becomes, so that its answer says so.
const methodTooLarge = "_prototyper/too_large"

// headSize is how much of a message too long to read is kept to find its id.
const headSize = 64 << 10

// boundLines passes in's lines through, and replaces each line longer than limit bytes with
// a request of methodTooLarge of the same id (a notification too long is dropped): a prompt
// with a huge attachment is refused in one answer rather than end the connection.
func boundLines(in io.Reader, limit int, log *slog.Logger) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, headSize)
		for {
			line, n, over, err := readLine(br, limit)
			if over {
				line = tooLargeRequest(line, n, log)
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

// tooLargeRequest is the methodTooLarge request of the id the head of a message holds, or
// nil when it holds none that is found (a notification, or an id after its params).
func tooLargeRequest(head []byte, n int64, log *slog.Logger) []byte {
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
		log.Warn("a message over the size an agent reads was dropped: it has no id to answer", "bytes", n)
		return nil
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": methodTooLarge, "params": map[string]int64{"bytes": n}})
	return append(b, '\n')
}

// HandleExtensionMethod answers a request too long to read (methodTooLarge) with the sentence
// a user can act on; this agent has no other extension.
func (s *Server) HandleExtensionMethod(ctx context.Context, method string, params json.RawMessage) (any, error) {
	if method != methodTooLarge {
		return nil, sdk.NewMethodNotFound(method)
	}
	var p struct{ Bytes int64 }
	_ = json.Unmarshal(params, &p)
	return nil, invalid(fmt.Sprintf("the message is %.1f MB, over the %d MB this agent reads: attach smaller or fewer images and files",
		float64(p.Bytes)/(1<<20), (maxMessage+1)>>20))
}
