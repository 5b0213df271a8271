package vocab

import "testing"

func TestAThinkingLevelHasOneSpelling(t *testing.T) {
	for in, want := range map[string]string{"": "", "off": ThinkOff, "FALSE": ThinkOff, " on ": ThinkOn, "true": ThinkOn,
		"low": ThinkLow, "Medium": ThinkMedium, "high": ThinkHigh} {
		if got, err := ParseThinkLevel(in); err != nil || got != want {
			t.Errorf("ParseThinkLevel(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseThinkLevel("very"); err == nil {
		t.Error(`ParseThinkLevel("very") accepted`)
	}
}
