package httpstream

import (
	"bytes"
	"io"
	"slices"
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
	// buf holds what was read, masked: buf[off:len(buf)-held] is ready, the last held bytes
	// wait for what follows them
	buf       []byte
	off, held int
	err       error
}

// readSize is how much a maskingReader asks of the body at a time.
const readSize = 32 << 10

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
	for len(m.buf)-m.held == m.off && m.err == nil {
		m.buf = m.buf[:copy(m.buf, m.buf[len(m.buf)-m.held:])] // the held end, to the front
		m.off = 0
		if cap(m.buf)-len(m.buf) < readSize {
			m.buf = slices.Grow(m.buf, readSize)
		}
		n, err := m.r.Read(m.buf[len(m.buf):cap(m.buf)])
		m.buf, m.err = m.buf[:len(m.buf)+n], err
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
	if len(m.buf)-m.held == m.off {
		return 0, m.err
	}
	n := copy(p, m.buf[m.off:len(m.buf)-m.held])
	m.off += n
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
