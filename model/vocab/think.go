package vocab

import (
	"fmt"
	"strings"
)

// The thinking levels a user can ask for (the --think flag, the setting): off, on, or an
// effort. "" lets the server decide.
const (
	ThinkOff    = "off"
	ThinkOn     = "on"
	ThinkLow    = "low"
	ThinkMedium = "medium"
	ThinkHigh   = "high"
)

// ParseThinkLevel reads a thinking level: off|false, on|true, low, medium or high, in any
// case and with space around; "" is unset. It returns the level's one spelling.
func ParseThinkLevel(s string) (string, error) {
	switch v := strings.ToLower(strings.TrimSpace(s)); v {
	case "":
		return "", nil
	case ThinkOff, "false":
		return ThinkOff, nil
	case ThinkOn, "true":
		return ThinkOn, nil
	case ThinkLow, ThinkMedium, ThinkHigh:
		return v, nil
	}
	return "", fmt.Errorf("think value %q is not one of off, on, low, medium, high", s)
}
