package events

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// LogEnv names the environment variable that turns the bridge log on: a file the bridge
// appends one JSON line to per batch sent and per acknowledgement received, so a test can
// prove from a real window that every tool call was painted running before its result went.
const LogEnv = "PROTOTYPER_BRIDGE_LOG"

// LogBatch is the bridge log's line for a batch sent:
// {"kind":"batch","at":"RFC3339Nano","events":[{"seq":N,"type":"…","toolCallId":"…"},…]}.
type LogBatch struct {
	Kind   string     `json:"kind"` // "batch"
	At     string     `json:"at"`
	Events []LogEvent `json:"events"`
}

// LogEvent is one event of a [LogBatch].
type LogEvent struct {
	Seq        uint64 `json:"seq"`
	Type       Type   `json:"type"`
	ToolCallID string `json:"toolCallId,omitempty"`
}

// LogAck is the bridge log's line for an acknowledgement received:
// {"kind":"ack","at":"…","seq":N,"running":["toolCallId",…],"received":"…","painted":"…"},
// received and painted being the page's own times of the batch ([PageTimes]; absent where the
// window gave none).
type LogAck struct {
	Kind     string   `json:"kind"` // "ack"
	At       string   `json:"at"`
	Seq      uint64   `json:"seq"`
	Running  []string `json:"running"`
	Received string   `json:"received,omitempty"`
	Painted  string   `json:"painted,omitempty"`
}

// LogKey is the bridge log's line for a key the window received:
// {"kind":"key","at":"…","key":"Enter","noted":"…"}, at being the key event's own time in the
// window (Enter in the message box: the moment a send begins, as the window saw it), noted the
// moment the note reached the Go side (the window's note goes out with the send, so the two
// tell the window's part of a send from the Go side's).
type LogKey struct {
	Kind  string `json:"kind"` // "key"
	At    string `json:"at"`
	Key   string `json:"key"`
	Noted string `json:"noted"`
}

// Kinds of bridge log lines.
const (
	LogKindBatch = "batch"
	LogKindAck   = "ack"
	LogKindKey   = "key"
)

// bridgeLog appends lines; one Write per line keeps lines whole.
type bridgeLog struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	err    error // the first write error; later lines are not attempted
}

func openBridgeLog(path string) (*bridgeLog, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBridgeLog, err)
	}
	return &bridgeLog{w: f, closer: f}, nil
}

func (l *bridgeLog) batch(at time.Time, batch []Event) {
	line := LogBatch{Kind: LogKindBatch, At: at.Format(time.RFC3339Nano), Events: make([]LogEvent, len(batch))}
	for i := range batch {
		line.Events[i] = LogEvent{Seq: batch[i].Seq, Type: batch[i].Type, ToolCallID: batch[i].ToolCallID}
	}
	l.write(line)
}

func (l *bridgeLog) ack(at time.Time, seq uint64, running []string, page PageTimes) {
	if running == nil {
		running = []string{}
	}
	l.write(LogAck{Kind: LogKindAck, At: at.Format(time.RFC3339Nano), Seq: seq, Running: running,
		Received: logTime(page.Received), Painted: logTime(page.Painted)})
}

// logTime is t as the bridge log writes times, "" for none.
func logTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

func (l *bridgeLog) key(at, noted time.Time, key string) {
	l.write(LogKey{Kind: LogKindKey, At: at.Format(time.RFC3339Nano), Key: key, Noted: noted.Format(time.RFC3339Nano)})
}

func (l *bridgeLog) write(line any) {
	b, err := json.Marshal(line)
	if err != nil {
		return // the line types always marshal
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err == nil {
		_, l.err = l.w.Write(b)
	}
}

func (l *bridgeLog) close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closer != nil {
		return l.closer.Close()
	}
	return nil
}
