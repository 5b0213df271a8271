package vocab

import (
	"regexp"
	"testing"
)

func TestACallIDIsCallAndSixteenHexDigitsNeverRepeated(t *testing.T) {
	shape := regexp.MustCompile(`^call_[0-9a-f]{16}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := NewCallID()
		if !shape.MatchString(id) || len(id) != CallIDLen {
			t.Fatalf("NewCallID() = %q, want call_ and 16 hex digits (%d bytes)", id, CallIDLen)
		}
		if seen[id] {
			t.Fatalf("NewCallID() repeated %q", id)
		}
		seen[id] = true
	}
}
