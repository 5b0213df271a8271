package ollama

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
)

// lineReader splits an NDJSON body into lines, each read in full up to max bytes. The
// returned slice is valid until the next call.
type lineReader struct {
	br   *bufio.Reader
	max  int
	n    int    // lines returned so far
	long []byte // holds a line that did not fit in br's buffer
}

func newLineReader(r io.Reader, max int) *lineReader {
	size := 64 << 10
	if max > 0 && max < size {
		size = max
	}
	if size < 16 {
		size = 16
	}
	return &lineReader{br: bufio.NewReaderSize(r, size), max: max}
}

// next returns the next non-empty line without its line ending. At the end it returns
// io.EOF; a line over the limit is a *LineTooLongError; other errors are the reader's.
func (l *lineReader) next() ([]byte, error) {
	for {
		line, err := l.readLine()
		if err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return line, nil
	}
}

func (l *lineReader) readLine() ([]byte, error) {
	line, err := l.br.ReadSlice('\n')
	if err == nil {
		l.n++
		return l.checkLen(line[:len(line)-1])
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if len(line) > 0 && err == io.EOF {
			// A last line without its newline still counts.
			l.n++
			return l.checkLen(line)
		}
		return nil, err
	}
	// The line is longer than the buffer: gather it, within the limit.
	l.long = append(l.long[:0], line...)
	for {
		if l.max > 0 && len(l.long) > l.max {
			return nil, &LineTooLongError{Line: l.n + 1, Limit: l.max}
		}
		line, err = l.br.ReadSlice('\n')
		l.long = append(l.long, line...)
		switch {
		case err == nil:
			l.n++
			return l.checkLen(l.long[:len(l.long)-1])
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			l.n++
			return l.checkLen(l.long)
		default:
			return nil, err
		}
	}
}

func (l *lineReader) checkLen(line []byte) ([]byte, error) {
	if l.max > 0 && len(bytes.TrimRight(line, "\r")) > l.max {
		return nil, &LineTooLongError{Line: l.n, Limit: l.max}
	}
	return line, nil
}

// streamEnd explains why a stream stopped before its last line: a line over the limit as
// is; the caller's cancellation or a timeout as why reports it; anything else (EOF, a reset
// connection) as an incomplete stream.
func streamEnd(err error, lines int, why func(error) error) error {
	var tooLong *LineTooLongError
	switch {
	case errors.As(err, &tooLong):
		return err
	case err == io.EOF:
		return &IncompleteStreamError{Lines: lines}
	}
	err = why(err)
	var te *TimeoutError
	if errors.As(err, &te) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &IncompleteStreamError{Lines: lines, Err: err}
}
