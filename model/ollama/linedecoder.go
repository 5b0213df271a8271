package ollama

import (
	"encoding/json"
	"errors"
	"io"
)

// lineDecoder decodes one JSON value per line with a single json.Decoder kept across the
// lines of a stream. json.Unmarshal would do the same work but allocate its decoding state
// anew for every line (about six allocations per chunk); a kept Decoder reuses it.
type lineDecoder struct {
	dec  *json.Decoder
	src  lineSource
	fed  int64 // bytes handed to dec so far
	errd bool  // dec failed once and keeps failing: replace it
}

var errTrailingData = errors.New("invalid data after the JSON value")

// decode decodes line, which must hold exactly one JSON value, into v.
func (l *lineDecoder) decode(line []byte, v any) error {
	if l.dec == nil || l.errd {
		l.src.b, l.fed, l.errd = nil, 0, false
		l.dec = json.NewDecoder(&l.src)
	}
	start := l.fed
	l.src.b = line
	l.fed += int64(len(line))
	if err := l.dec.Decode(v); err != nil {
		l.errd = true
		return err
	}
	// Whatever follows the value on this line must be blank. Earlier lines' leftovers were
	// checked the same way, so the value started at or after start.
	if off := l.dec.InputOffset() - start; off >= 0 && off <= int64(len(line)) {
		for _, c := range line[off:] {
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				l.errd = true
				return errTrailingData
			}
		}
	}
	return nil
}

// lineSource hands the decoder the current line, then EOF until the next one.
type lineSource struct{ b []byte }

func (s *lineSource) Read(p []byte) (int, error) {
	if len(s.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, s.b)
	s.b = s.b[n:]
	return n, nil
}
