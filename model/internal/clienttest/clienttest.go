// Package clienttest holds what the tests of both model clients check alike, through the
// stream code they share: that an API key never reaches the client's caller, and an address
// where nothing answers. Only tests import it.
package clienttest

import (
	"net"
	"strings"
	"testing"
)

// SecretKey is the key the tests send, which a hostile server echoes back in every way it can.
const SecretKey = "sk-proj-0123456789abcdefSECRET"

// WantKeyHidden fails t when seen (all that a caller of the client may show: the error, the
// answer, the server's own words) holds [SecretKey] or its middle, or does not say where it was.
func WantKeyHidden(t testing.TB, seen string) {
	t.Helper()
	if strings.Contains(seen, SecretKey) || strings.Contains(seen, "0123456789abcdef") {
		t.Fatalf("the key reached the client's caller: %s", seen)
	}
	if !strings.Contains(seen, "[key hidden]") {
		t.Errorf("nothing says where the key was: %s", seen)
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
