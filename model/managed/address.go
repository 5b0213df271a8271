package managed

import (
	"errors"
	"net"
	"net/url"
	"strings"
)

// ErrNotLocal is returned by [ListenAddress] (and so by [Server.Ensure]) for an address
// Prototyper does not start a server for: another machine, https, or a path behind the
// port. Such a server is the user's to run.
var ErrNotLocal = errors.New("the Ollama address is not on this computer's loopback: Prototyper starts a server only for a local address like http://127.0.0.1:11434")

// ListenAddress returns the host:port `ollama serve` listens on for u (its OLLAMA_HOST), or
// [ErrNotLocal] when u is not a plain http address on loopback: 127.0.0.0/8, ::1 or
// localhost (served on 127.0.0.1).
func ListenAddress(u *url.URL) (string, error) {
	if u == nil || u.Scheme != "http" || strings.Trim(u.Path, "/") != "" || u.User != nil {
		return "", ErrNotLocal
	}
	host, port := u.Hostname(), u.Port()
	if port == "" || port == "0" {
		return "", ErrNotLocal
	}
	if strings.EqualFold(host, "localhost") {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return "", ErrNotLocal
	}
	return net.JoinHostPort(ip.String(), port), nil
}
