package ollama

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
)

// DefaultHost is the server used when neither --ollama nor OLLAMA_HOST says otherwise.
const DefaultHost = "http://127.0.0.1:11434"

// ResolveHost returns the server's base URL: flagValue (the --ollama flag) when it is set,
// else the OLLAMA_HOST environment variable, else [DefaultHost]. Both are read the way
// Ollama's own client reads OLLAMA_HOST: surrounding spaces and quotes are dropped, a missing
// scheme means http, a missing port means 11434 (80 or 443 when the scheme is given as http
// or https), and a path is kept.
func ResolveHost(flagValue string) (*url.URL, error) {
	s := flagValue
	if strings.TrimSpace(s) == "" {
		s = os.Getenv("OLLAMA_HOST")
	}
	return parseHost(s)
}

// parseHost mirrors envconfig.Host of github.com/ollama/ollama, except that an invalid port
// is an error here rather than a silent fallback to the default.
func parseHost(s string) (*url.URL, error) {
	s = strings.Trim(strings.TrimSpace(s), "\"'")
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	default:
		return nil, fmt.Errorf("Ollama address %q has scheme %q: use http:// or https://", s, scheme)
	}

	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if net.ParseIP(host) == nil && !validHostname(host) {
		return nil, fmt.Errorf("%q is not an Ollama address: give one like http://127.0.0.1:11434 or localhost:11434", s)
	}
	if n, err := strconv.ParseInt(port, 10, 32); err != nil || n > 65535 || n < 0 {
		return nil, fmt.Errorf("Ollama address %q has an invalid port %q: use a number from 0 to 65535", s, port)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}, nil
}

// validHostname reports whether s can be a host name: letters, digits, '-', '_' and dots.
func validHostname(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
		default:
			return false
		}
	}
	return true
}
