package ollama

import (
	"strings"
	"testing"
)

func TestAnAddressThatCannotBeOneIsRefusedInOneSentence(t *testing.T) {
	for _, bad := range []string{"not a url", "http://a b", "exa mple.com:80"} {
		_, err := ResolveHost(bad)
		if err == nil || !strings.Contains(err.Error(), "is not an Ollama address: give one like http://127.0.0.1:11434") {
			t.Errorf("ResolveHost(%q) = %v", bad, err)
		}
	}
}

func TestResolveHost(t *testing.T) {
	for _, tc := range []struct{ flag, env, want string }{
		{"", "", "http://127.0.0.1:11434"},
		{"", "0.0.0.0", "http://0.0.0.0:11434"},
		{"", "example.com:1234", "http://example.com:1234"},
		{"", "http://example.com", "http://example.com:80"},
		{"", "https://example.com", "https://example.com:443"},
		{"", `"localhost:9000"`, "http://localhost:9000"},
		{"", "[::1]", "http://[::1]:11434"},
		{"", "http://host:8080/ollama", "http://host:8080/ollama"},
		{"http://10.0.0.2:5000", "example.com", "http://10.0.0.2:5000"},
		{"10.0.0.2", "", "http://10.0.0.2:11434"},
	} {
		t.Setenv("OLLAMA_HOST", tc.env)
		u, err := ResolveHost(tc.flag)
		if err != nil || u.String() != tc.want {
			t.Errorf("ResolveHost(%q) with OLLAMA_HOST=%q = %v, %v; want %s", tc.flag, tc.env, u, err, tc.want)
		}
	}
	for _, bad := range []string{"ftp://x", "x:99999"} {
		if _, err := ResolveHost(bad); err == nil {
			t.Errorf("ResolveHost(%q) succeeded", bad)
		}
	}
}
