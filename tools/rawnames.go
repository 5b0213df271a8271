package tools

import (
	"encoding/json"
	"unicode/utf8"
)

// A name on disk is bytes; a JSON string is UTF-8. A path or a link target that is not valid
// UTF-8 is recorded twice: readable (each invalid byte as U+FFFD) and exact, as its bytes in
// base64 (pathBytes, targetBytes), so that it is put back under its own name and never
// confused with a file really named with U+FFFD. Records without these fields read as
// before.

// SplitName is a name as a record keeps it: readable, and its exact bytes when readable
// loses them (nil otherwise).
func SplitName(name string) (readable string, exact []byte) {
	if utf8.ValidString(name) {
		return name, nil
	}
	return string([]rune(name)), []byte(name)
}

// JoinName is the name a record kept: its exact bytes when there are any.
func JoinName(readable string, exact []byte) string {
	if exact != nil {
		return string(exact)
	}
	return readable
}

// MarshalJSON records the state with its path and target exact ([SplitName]).
func (s PathState) MarshalJSON() ([]byte, error) {
	type plain PathState
	v := struct {
		plain
		PathBytes   []byte `json:"pathBytes,omitempty"`
		TargetBytes []byte `json:"targetBytes,omitempty"`
	}{plain: plain(s)}
	v.Path, v.PathBytes = SplitName(s.Path)
	v.Target, v.TargetBytes = SplitName(s.Target)
	return json.Marshal(v)
}

// UnmarshalJSON reads a state recorded by MarshalJSON, or by a version without exact names.
func (s *PathState) UnmarshalJSON(b []byte) error {
	type plain PathState
	var v struct {
		plain
		PathBytes   []byte `json:"pathBytes"`
		TargetBytes []byte `json:"targetBytes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = PathState(v.plain)
	s.Path = JoinName(s.Path, v.PathBytes)
	s.Target = JoinName(s.Target, v.TargetBytes)
	return nil
}
