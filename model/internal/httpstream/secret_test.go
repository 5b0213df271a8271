package httpstream

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// pieces reads the given pieces one per Read, as a stream arrives.
type pieces struct{ rest []string }

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		return 0, io.EOF
	}
	n := copy(b, p.rest[0])
	p.rest[0] = p.rest[0][n:]
	if p.rest[0] == "" {
		p.rest = p.rest[1:]
	}
	return n, nil
}
func (p *pieces) Close() error { return nil }

func TestTheKeyIsMaskedWhereverTheReadsCutIt(t *testing.T) {
	const key = "sk-0123456789abcdef"
	body := `{"content":"Bearer ` + key + `"}` + "\n" + `{"content":"` + key + key + `"}` + "\n"
	for cut := 1; cut < len(body); cut++ {
		r := newMaskingReader(&pieces{rest: []string{body[:cut], body[cut:]}}, secretsOf("Bearer "+key))
		got, err := io.ReadAll(iotest.OneByteReader(r))
		if err != nil {
			t.Fatal(err)
		}
		want := `{"content":"[key hidden]"}` + "\n" + `{"content":"[key hidden][key hidden]"}` + "\n"
		if string(got) != want {
			t.Fatalf("cut at %d: %q", cut, got)
		}
	}
}

func TestALineIsNeverHeldBackForTheKey(t *testing.T) {
	r := newMaskingReader(&pieces{rest: []string{"one line\n", "sk-0123"}}, secretsOf("Bearer sk-0123456789abcdef"))
	buf := make([]byte, 64)
	n, err := r.Read(buf)
	if err != nil || string(buf[:n]) != "one line\n" {
		t.Fatalf("read %q, %v; want the whole line at once", buf[:n], err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != "sk-0123" {
		t.Errorf("what might have begun the key and did not is %q", rest)
	}
}

func TestAShortKeyIsMaskedInErrorsButNotInTheAnswer(t *testing.T) {
	s := secretsOf("Bearer abc")
	if got := s.mask("token Bearer abc refused"); got != "token [key hidden] refused" {
		t.Errorf("error text: %q", got)
	}
	r := newMaskingReader(io.NopCloser(strings.NewReader("abc is a word")), s)
	if got, _ := io.ReadAll(r); string(got) != "abc is a word" {
		t.Errorf("answer: %q (a short key would mask ordinary words of it)", got)
	}
}

func TestABudgetCutsBetweenCharacters(t *testing.T) {
	b := NewBudget(5)
	if kept, whole := b.Fit("ab"); kept != "ab" || !whole {
		t.Fatalf("%q %v", kept, whole)
	}
	if kept, whole := b.Fit("cé€"); kept != "cé" || whole || b.Left() != 0 { // é is 2 bytes, € 3
		t.Fatalf("kept %q whole %v left %d", kept, whole, b.Left())
	}
	if b.Take(1) {
		t.Error("a spent budget took more")
	}
	var none Budget
	if kept, whole := none.Fit(strings.Repeat("x", 1<<20)); len(kept) != 1<<20 || !whole {
		t.Error("the zero budget bounds")
	}
}
