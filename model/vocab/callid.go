package vocab

import (
	"crypto/rand"
	"encoding/hex"
)

// CallIDLen is the length of an id of [NewCallID].
const CallIDLen = len("call_") + 16

// NewCallID makes an id for a tool call that came without one (or whose id a chat already
// holds): call_ and 16 random hex digits.
func NewCallID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "call_" + hex.EncodeToString(b[:])
}
