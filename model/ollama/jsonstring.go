package ollama

import (
	"errors"
	"strings"
	"unicode/utf8"

	"prototyper/model/vocab"
)

var errNotString = errors.New("expected a JSON string")

// appendJSONString appends the value of a JSON string literal (quotes included, as
// encoding/json hands it to a json.RawMessage) to b, decoding it exactly as encoding/json
// would: escapes resolved, invalid UTF-8 and lone surrogates replaced by U+FFFD. null
// appends nothing. Text without escapes or non-ASCII bytes is copied in one go.
func appendJSONString(b *strings.Builder, raw []byte) error {
	if string(raw) == "null" {
		return nil
	}
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return errNotString
	}
	s := raw[1 : len(raw)-1]
	i := 0
	for i < len(s) && s[i] != '\\' && s[i] != '"' && s[i] >= ' ' && s[i] < utf8.RuneSelf {
		i++
	}
	b.Write(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return errNotString
			}
			if e, ok := vocab.JSONEscape(s[i+1]); ok {
				b.WriteByte(e)
				i += 2
				continue
			}
			r, n := vocab.JSONUnicodeEscape(s[i:])
			if n == 0 {
				return errNotString
			}
			b.WriteRune(r)
			i += n
		case c == '"' || c < ' ':
			return errNotString
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(s[i : i+size])
			}
			i += size
		}
	}
	return nil
}
