package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/model/vocab"
	"prototyper/tools"
)

// The settings' defaults: what a zero field stands for. They are defined here once; the
// loop, the window and the command line read them through [Settings] methods.
const (
	// DefaultThink is the thinking level of a zero Think: the model thinks when it can.
	DefaultThink = "on"
	// DefaultContextCap caps num_ctx when ContextCap is zero (tokens).
	DefaultContextCap = 16384
	// MinContextCap and MaxContextCap bound the context cap a user may set: a smaller one
	// does not hold the prompt and its tools, a larger one is a slip of the keyboard that
	// would ask the server for more memory than any machine has (a million tokens).
	MinContextCap = 1 << 10
	MaxContextCap = 1 << 20
	// DefaultCheckpointMaxBytes is the largest file a change keeps when CheckpointMaxBytes
	// is zero: as large as a file tool writes.
	DefaultCheckpointMaxBytes = 16 << 20
	// DefaultKeepAlive is how long a model stays loaded after a request when KeepAliveMin is
	// zero: long enough that a person reading an answer does not pay the load again.
	DefaultKeepAlive = 30 * time.Minute
	// DefaultMaxAnswerBytes bounds one answer (its text, thinking and tool calls) when
	// MaxAnswerBytes is zero: far above any real answer.
	DefaultMaxAnswerBytes = vocab.DefaultMaxAnswerSize
	// MinMaxAnswerBytes and MaxMaxAnswerBytes bound the answer size a user may set: a smaller
	// one cuts real answers, a larger one lets a server fill the memory and the disk.
	MinMaxAnswerBytes = 64 << 10
	MaxMaxAnswerBytes = 1 << 30
	// DefaultLoopRepeats is how many times in a row the same call may be asked for before
	// the run stops as a loop, when LoopRepeats is zero.
	DefaultLoopRepeats = 3
)

// What a run does when older messages no longer fit the model's context (Settings.OlderTurns,
// `run --summarize`).
const (
	// SummarizeAsk offers the user a summary and waits for the answer (the default).
	SummarizeAsk = "ask"
	// SummarizeAlways has the model summarize them without asking.
	SummarizeAlways = "always"
	// SummarizeNever leaves them out of the prompt.
	SummarizeNever = "never"
)

// The answers to a summary offer (SummaryOffer.Choice).
const (
	// SummaryChoiceSummarize: the same model summarizes the older messages.
	SummaryChoiceSummarize = "summarize"
	// SummaryChoiceLeaveOut: the older messages are left out of the prompt.
	SummaryChoiceLeaveOut = "leave_out"
	// SummaryChoiceNone: the offer was closed unanswered (the run was stopped, or the user
	// sent a message after stopping it).
	SummaryChoiceNone = "none"
)

// ParseOlderTurns checks a value of Settings.OlderTurns or `run --summarize`; "" is
// SummarizeAsk.
func ParseOlderTurns(s string) (string, error) {
	switch s {
	case "", SummarizeAsk:
		return SummarizeAsk, nil
	case SummarizeAlways, SummarizeNever:
		return s, nil
	}
	return "", fmt.Errorf("%q is not a choice for older messages that no longer fit: use ask, always or never", s)
}

// OlderTurnsPolicy is what a run does when older messages no longer fit: OlderTurns, else
// SummarizeAsk.
func (s Settings) OlderTurnsPolicy() string {
	p, err := ParseOlderTurns(s.OlderTurns)
	if err != nil {
		return SummarizeAsk
	}
	return p
}

// InvalidSettingError is returned by [Settings.Validate], and so by [DB.PutSettings] and
// [DB.UpdateSettings], for a value no run could use; nothing is saved. Its message is one
// sentence a user can act on.
type InvalidSettingError struct {
	Setting string // the JSON name of the field
	Reason  string
}

func (e *InvalidSettingError) Error() string { return e.Reason }

// Validate checks every field a user can set whose rule the store knows: the thinking level,
// the context cap, the wait for a first byte, the answer size limit, the bridge's fallback,
// the tools' approval policies, the Ollama program's path, the provider, the key's variable
// and the theme. The zero Settings is valid. What only a client or the MCP code can judge
// (an address, the MCP servers' configuration) is checked by [Options.CheckSettings].
func (s Settings) Validate() error {
	if _, err := vocab.ParseThinkLevel(s.Think); err != nil {
		return &InvalidSettingError{"think", err.Error()}
	}
	if s.ContextCap != 0 && (s.ContextCap < MinContextCap || s.ContextCap > MaxContextCap) {
		return &InvalidSettingError{"contextCap", "the context cap must be between 1,024 and 1,048,576 tokens, or empty for the default"}
	}
	if s.FirstByteTimeoutSec < 0 {
		return &InvalidSettingError{"firstByteTimeoutSec",
			"the wait for a model to start answering must be a positive number of seconds, or 0 for the default"}
	}
	if s.CheckpointMaxBytes < 0 {
		return &InvalidSettingError{"checkpointMaxBytes", "the largest file kept for undo must be a positive number of bytes, or 0 for the default"}
	}
	if s.MaxAnswerBytes != 0 && (s.MaxAnswerBytes < MinMaxAnswerBytes || s.MaxAnswerBytes > MaxMaxAnswerBytes) {
		return &InvalidSettingError{"maxAnswerBytes", "the largest answer kept must be between 64 KiB and 1 GiB (in bytes), or 0 for the default, 8 MiB"}
	}
	if s.KeepAliveMin < -1 {
		return &InvalidSettingError{"keepAliveMin", "how long models stay loaded must be a number of minutes, 0 for the default, or -1 for as long as Ollama runs"}
	}
	if s.LoopRepeats < 0 || s.LoopRepeats == 1 {
		return &InvalidSettingError{"loopRepeats", "the number of repeated calls that stops a run must be 2 or more, or 0 for the default"}
	}
	if _, err := ParseOlderTurns(s.OlderTurns); err != nil {
		return &InvalidSettingError{"olderTurns", err.Error()}
	}
	if s.AckFallbackMs < 0 {
		return &InvalidSettingError{"ackFallbackMs", "the wait for the window's paint must be a positive number of milliseconds, or 0 for the default"}
	}
	if err := s.validateCommands(); err != nil {
		return err
	}
	for name, p := range s.ToolApproval {
		if _, err := tools.ParseApproval(p); err != nil {
			return &InvalidSettingError{"toolApproval", fmt.Sprintf("tool %s: %v", name, err)}
		}
	}
	if s.OllamaBinary != "" && !filepath.IsAbs(s.OllamaBinary) {
		return &InvalidSettingError{"ollamaBinary", "the Ollama program must be given by its full path, like /usr/local/bin/ollama"}
	}
	return s.validateServers()
}

// validateServers checks the provider, that an OpenAI-compatible server has a base URL, the
// name of the key's environment variable and the theme.
func (s Settings) validateServers() error {
	switch s.Provider {
	case "", ProviderOllama:
	case ProviderOpenAI:
		if s.BaseURL == "" {
			return &InvalidSettingError{"baseUrl", "an OpenAI-compatible server needs its base URL, such as http://127.0.0.1:8000/v1"}
		}
	default:
		return &InvalidSettingError{"provider", fmt.Sprintf("the provider is %s or %s, not %q", ProviderOllama, ProviderOpenAI, s.Provider)}
	}
	if s.APIKeyEnv != "" && !ValidEnvName(s.APIKeyEnv) {
		return &InvalidSettingError{"apiKeyEnv", fmt.Sprintf("%q is not the name of an environment variable: give its name (letters, digits and _, such as VLLM_API_KEY), never the key itself", s.APIKeyEnv)}
	}
	switch s.Theme {
	case "", ThemeSystem, ThemeLight, ThemeDark:
	default:
		return &InvalidSettingError{"theme", fmt.Sprintf("the theme %q is not one the window has: choose system, light or dark", s.Theme)}
	}
	switch s.Sidebar {
	case SidebarAuto, SidebarShown, SidebarHidden:
	default:
		return &InvalidSettingError{"sidebar", fmt.Sprintf("the sidebar is %s or %s, not %q", SidebarShown, SidebarHidden, s.Sidebar)}
	}
	return nil
}

// StartsOllama reports whether the window starts an Ollama server itself when nothing
// answers at a local address (the default), or leaves that to the user (ManualOllama).
func (s Settings) StartsOllama() bool { return !s.ManualOllama }

// ValidEnvName reports whether name can be an environment variable's name: letters, digits
// and underscores, not starting with a digit. A key pasted by mistake almost never is one
// (it holds '-' or is far too long), so it is refused before it is stored.
func ValidEnvName(name string) bool {
	if name == "" || len(name) > 64 || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, r := range name {
		if !(r == '_' || (r >= 'A' && r <= 'Z') || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true

}

// The window's themes: the system's light or dark, or one of them always.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// Whether the window shows its list of chats: as the user last chose, or (auto) when the
// window is wide enough for it beside the chat.
const (
	SidebarAuto   = ""
	SidebarShown  = "shown"
	SidebarHidden = "hidden"
)

// MaxRecentFolders is how many folders the folder menu remembers.
const MaxRecentFolders = 8

// RememberFolder puts dir first in RecentFolders (once), keeping at most MaxRecentFolders.
func (s *Settings) RememberFolder(dir string) {
	if dir == "" {
		return
	}
	list := []string{dir}
	for _, f := range s.RecentFolders {
		if f != dir && len(list) < MaxRecentFolders {
			list = append(list, f)
		}
	}
	s.RecentFolders = list
}

// ThemeName is the theme in effect: Theme, else [ThemeSystem].
func (s Settings) ThemeName() string {
	if s.Theme == "" {
		return ThemeSystem
	}
	return s.Theme
}

// ThinkLevel is the thinking level in effect: Think, else [DefaultThink].
func (s Settings) ThinkLevel() string {
	if s.Think == "" {
		return DefaultThink
	}
	return s.Think
}

// ContextCapTokens is the num_ctx ceiling in effect: ContextCap, else [DefaultContextCap].
func (s Settings) ContextCapTokens() int {
	if s.ContextCap <= 0 {
		return DefaultContextCap
	}
	return s.ContextCap
}

// KeepAlive is how long a model stays loaded after a request: KeepAliveMin, else
// [DefaultKeepAlive]; negative for as long as the server runs.
func (s Settings) KeepAlive() time.Duration {
	switch {
	case s.KeepAliveMin < 0:
		return -1
	case s.KeepAliveMin == 0:
		return DefaultKeepAlive
	}
	return time.Duration(s.KeepAliveMin) * time.Minute
}

// InstructionsFor returns the user's instructions for the workspace folder (matched by
// its cleaned path), or "".
func (s Settings) InstructionsFor(workspace string) string {
	if workspace == "" {
		return ""
	}
	if t, ok := s.Instructions[workspace]; ok {
		return t
	}
	clean := filepath.Clean(workspace)
	for dir, t := range s.Instructions {
		if filepath.Clean(dir) == clean {
			return t
		}
	}
	return ""
}

// SetInstructions keeps text as the user's instructions for the workspace folder ("" removes
// them).
func (s *Settings) SetInstructions(workspace, text string) {
	if workspace == "" {
		return
	}
	for dir := range s.Instructions {
		if filepath.Clean(dir) == filepath.Clean(workspace) {
			delete(s.Instructions, dir)
		}
	}
	if text = strings.TrimSpace(text); text == "" {
		return
	}
	if s.Instructions == nil {
		s.Instructions = map[string]string{}
	}
	s.Instructions[filepath.Clean(workspace)] = text
}

// LoopLimit is how many times the same call may come in a row before the run stops as a
// loop: LoopRepeats, else [DefaultLoopRepeats].
func (s Settings) LoopLimit() int {
	if s.LoopRepeats <= 0 {
		return DefaultLoopRepeats
	}
	return s.LoopRepeats
}

// FirstByteTimeout is the wait for a model to start answering, or 0 for the model client's
// own default.
func (s Settings) FirstByteTimeout() time.Duration {
	return time.Duration(max(s.FirstByteTimeoutSec, 0)) * time.Second
}

// AckFallback is how long the bridge waits for the window's paint acknowledgement, or 0 for
// the bridge's own default (AckFallbackMs).
func (s Settings) AckFallback() time.Duration {
	return time.Duration(max(s.AckFallbackMs, 0)) * time.Millisecond
}

// CheckpointLimit is the largest file a change keeps in effect: CheckpointMaxBytes, else
// [DefaultCheckpointMaxBytes].
func (s Settings) CheckpointLimit() int64 {
	if s.CheckpointMaxBytes <= 0 {
		return DefaultCheckpointMaxBytes
	}
	return s.CheckpointMaxBytes
}

// MaxAnswer is the most one answer may hold, in bytes: MaxAnswerBytes, else
// [DefaultMaxAnswerBytes].
func (s Settings) MaxAnswer() int {
	if s.MaxAnswerBytes <= 0 {
		return DefaultMaxAnswerBytes
	}
	return int(min(s.MaxAnswerBytes, MaxMaxAnswerBytes))
}

// AllowedIn reports whether the user allowed tool for good in the workspace folder.
func (s Settings) AllowedIn(workspace, tool string) bool {
	for _, t := range s.AlwaysAllow[workspace] {
		if t == tool {
			return true
		}
	}
	return false
}

// Settings returns the saved settings (the zero Settings before anything was saved).
func (db *DB) Settings() (Settings, error) {
	var s Settings
	err := db.view(func(tx *bolt.Tx) error {
		s = Settings{}
		return getSettings(tx, &s)
	})
	return s, err
}

// PutSettings saves the settings, replacing the previous ones. Settings that do not pass
// [Settings.Validate] and [Options.CheckSettings] are refused. A caller that changes some fields uses
// [DB.UpdateSettings], so that it never undoes another writer's change.
func (db *DB) PutSettings(s Settings) error {
	if err := db.checkSettings(s); err != nil {
		return err
	}
	return db.update("save settings", func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bucketSettings), keySettings, &s)
	})
}

// checkSettings is what a save requires: [Settings.Validate], then the opener's
// [Options.CheckSettings].
func (db *DB) checkSettings(s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if db.opts.CheckSettings != nil {
		return db.opts.CheckSettings(s)
	}
	return nil
}

// UpdateSettings reads the settings, lets edit change them and saves the result, all in one
// write transaction: two concurrent updates never lose each other's change. When edit
// returns an error, or the result does not pass [Settings.Validate] and [Options.CheckSettings], nothing is saved and
// the error comes back as it is; when the result is the settings as stored, nothing is written.
// It returns the settings as saved.
func (db *DB) UpdateSettings(edit func(*Settings) error) (Settings, error) {
	var saved Settings
	err := db.update("save settings", func(tx *bolt.Tx) error {
		var s Settings
		if err := getSettings(tx, &s); err != nil {
			return err
		}
		if err := edit(&s); err != nil {
			return err
		}
		if err := db.checkSettings(s); err != nil {
			return err
		}
		raw, err := json.Marshal(&s)
		if err != nil {
			return err
		}
		saved = s
		if bytes.Equal(raw, tx.Bucket(bucketSettings).Get(keySettings)) {
			return errSettingsUnchanged // rolled back: no write, no sync to disk
		}
		return tx.Bucket(bucketSettings).Put(keySettings, raw)
	})
	if err != nil && !errors.Is(err, errSettingsUnchanged) {
		return Settings{}, err
	}
	return saved, nil
}

// errSettingsUnchanged ends an [DB.UpdateSettings] whose edit left the saved settings as they
// were: the window saves the model and folder in use at every message, which most often changes
// nothing, and a commit would cost a sync to disk each time.
var errSettingsUnchanged = errors.New("settings unchanged")

// getSettings reads the settings of tx into s (left as it is before anything was saved).
func getSettings(tx *bolt.Tx, s *Settings) error {
	raw := tx.Bucket(bucketSettings).Get(keySettings)
	if raw == nil {
		return nil
	}
	return json.Unmarshal(raw, s)
}
