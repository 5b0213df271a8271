package httpstream

import (
	"bytes"
	"io"
	"strings"
)

// Hidden is what stands in a server's text where the key was.
const Hidden = "[key hidden]"

// minStreamSecret is the shortest secret masked in an answer's body as well as in an error's
// text: a shorter one could be an ordinary word of the answer (a file the model writes would
// lose it), while no answer holds a real key by chance.
const minStreamSecret = 8

// secrets are the values of an Authorization header that a server must never have shown,
// printed or stored: the whole value and its credentials ("Bearer KEY" → KEY).
type secrets []string

func secretsOf(authorization string) secrets {
	v := strings.TrimSpace(authorization)
	if v == "" {
		return nil
	}
	out := secrets{v}
	if _, cred, ok := strings.Cut(v, " "); ok {
		if cred = strings.TrimSpace(cred); cred != "" {
			out = append(out, cred)
		}
	}
	return out
}

// mask replaces every secret in text with [Hidden]; the whole value first, so that
// "Bearer KEY" becomes one [Hidden].
func (s secrets) mask(text string) string {
	for _, v := range s {
		text = strings.ReplaceAll(text, v, Hidden)
	}
	return text
}

// streamed are the secrets long enough to be masked in an answer's body.
func (s secrets) streamed() secrets {
	var out secrets
	for _, v := range s {
		if len(v) >= minStreamSecret {
			out = append(out, v)
		}
	}
	return out
}

// maskingReader masks the secrets in a body as it is read. It holds back only the end of
// what it read that could begin a secret, so a line that ends in a newline is never held.
type maskingReader struct {
	r       io.ReadCloser
	secrets [][]byte
	chunk   []byte // the buffer of the reads below
	buf     []byte // read, masked, not returned yet
	held    int    // the end of buf that could begin a secret: kept until more comes
	err     error
}

func newMaskingReader(r io.ReadCloser, s secrets) io.ReadCloser {
	s = s.streamed()
	if len(s) == 0 {
		return r
	}
	m := &maskingReader{r: r}
	for _, v := range s {
		m.secrets = append(m.secrets, []byte(v))
	}
	return m
}

func (m *maskingReader) Read(p []byte) (int, error) {
	for len(m.buf)-m.held == 0 && m.err == nil {
		if m.chunk == nil {
			m.chunk = make([]byte, 32<<10)
		}
		n, err := m.r.Read(m.chunk)
		m.err = err
		m.buf = append(m.buf, m.chunk[:n]...)
		for _, s := range m.secrets {
			if bytes.Contains(m.buf, s) {
				m.buf = bytes.ReplaceAll(m.buf, s, []byte(Hidden))
			}
		}
		m.held = 0
		if m.err == nil {
			m.held = m.partial()
		}
	}
	if len(m.buf)-m.held == 0 {
		return 0, m.err
	}
	n := copy(p, m.buf[:len(m.buf)-m.held])
	m.buf = m.buf[n:]
	return n, nil
}

// partial is the length of the longest end of buf that begins a secret.
func (m *maskingReader) partial() int {
	longest := 0
	for _, s := range m.secrets {
		for k := min(len(s)-1, len(m.buf)); k > longest; k-- {
			if bytes.HasSuffix(m.buf, s[:k]) {
				longest = k
				break
			}
		}
	}
	return longest
}

func (m *maskingReader) Close() error { return m.r.Close() }
