package store

import (
	"strings"
	"time"
)

// MessageSaver saves one streaming assistant message according to the design's policy: at
// most once per Options.SaveInterval while deltas arrive, at once at each tool-call
// boundary, and at once at the end. The loop calls it on every delta and boundary and needs
// no timer of its own. A MessageSaver belongs to one goroutine.
//
// The message has its id from the start but is first written by the first save: showing its
// first text waits for no disk. Every delta is also appended to the stream journal (see
// [StreamJournalPath]) before Add… returns, so that the text since the last save survives a
// kill -9: the next Open puts it back. A saver ends with [MessageSaver.Finish] or
// [MessageSaver.Close]; the journal is emptied when no saver is left.
type MessageSaver struct {
	db        *DB
	msg       Message
	stored    bool // written once: later saves replace it
	content   strings.Builder
	thinking  strings.Builder
	lastSave  time.Time
	dirty     bool
	thinkFrom time.Time // first thinking delta; zero when not thinking

	journal *streamJournal // nil: not journaled
	headed  bool           // its begin record is in the journal
	// unplaced: Edit replaced the text since the last save, so a delta's start no longer
	// measures the stored text; deltas are not journaled until the next save.
	unplaced bool
	ended    bool
}

// NewMessageSaver starts m (an assistant message, Complete false) at the end of the chat:
// it has its id at once, and is written by the first save ([MessageSaver.Flush], an interval
// after it started, a tool-call boundary or the end). A message appended to the chat before
// that comes after it.
func (db *DB) NewMessageSaver(chatID string, m Message) (*MessageSaver, error) {
	if m.Role == "" {
		m.Role = RoleAssistant
	}
	id, err := db.reserveMessageID(chatID)
	if err != nil {
		return nil, err
	}
	now := db.now()
	m.ID, m.ChatID, m.Complete = id, chatID, false
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	c := &MessageSaver{db: db, msg: m, lastSave: now, dirty: true, journal: db.streams}
	if c.journal != nil {
		c.journal.begin()
	}
	c.content.WriteString(m.Content)
	c.thinking.WriteString(m.Thinking)
	return c, nil
}

// Message is the message as it stands, saved or not.
func (c *MessageSaver) Message() Message {
	m := c.msg
	m.Content, m.Thinking = c.content.String(), c.thinking.String()
	return m
}

// ID is the message's id.
func (c *MessageSaver) ID() string { return c.msg.ID }

// AddThinking appends a thinking delta and saves if the last save is an interval old.
func (c *MessageSaver) AddThinking(delta string) error {
	c.AppendThinking(delta)
	return c.SaveIfDue()
}

// AppendThinking is [MessageSaver.AddThinking] without its save, as [MessageSaver.AppendText].
func (c *MessageSaver) AppendThinking(delta string) {
	if c.thinkFrom.IsZero() && c.msg.ThinkingMs == 0 { // the first: thinking starts
		c.thinkFrom = c.db.now()
	}
	c.journalDelta(recordThinking, c.thinking.Len(), delta)
	c.thinking.WriteString(delta)
	c.dirty = true
}

// AddText appends a text delta (which ends the thinking) and saves if the last save is an
// interval old.
func (c *MessageSaver) AddText(delta string) error {
	c.AppendText(delta)
	return c.SaveIfDue()
}

// AppendText is [MessageSaver.AddText] without its save: the delta is in the message and in the
// stream journal, which keeps it across a kill -9; [MessageSaver.SaveIfDue] saves it in turn.
// A delta is whole characters (the model clients cut a stream only between them): a save
// writes stray bytes as U+FFFD, and the journal's byte offsets would no longer continue it.
func (c *MessageSaver) AppendText(delta string) {
	c.endThinking()
	c.journalDelta(recordText, c.content.Len(), delta)
	c.content.WriteString(delta)
	c.dirty = true
}

// SaveIfDue saves the message if it changed and the last save is an interval old.
func (c *MessageSaver) SaveIfDue() error {
	if !c.dirty {
		return nil
	}
	return c.changed()
}

// AddToolCalls records the tool calls the model asked for and saves now: a tool-call
// boundary, so the calls are on disk before any of them runs.
func (c *MessageSaver) AddToolCalls(calls ...ToolCall) error {
	c.endThinking()
	c.msg.ToolCalls = append(c.msg.ToolCalls, calls...)
	c.dirty = true
	return c.Flush()
}

// Edit changes other fields of the message (RunID, Images, …); the next save carries them.
func (c *MessageSaver) Edit(edit func(*Message)) {
	m := c.Message()
	edit(&m)
	if c.journal != nil && (m.Content != c.content.String() || m.Thinking != c.thinking.String()) {
		c.journal.forget(c.msg.ChatID, c.msg.ID)
		c.unplaced, c.headed = true, false
	}
	c.msg = m
	c.content.Reset()
	c.content.WriteString(m.Content)
	c.thinking.Reset()
	c.thinking.WriteString(m.Thinking)
	c.dirty = true
}

// Finish marks the message complete with the stream's done reason and usage, saves now and
// ends the saver.
func (c *MessageSaver) Finish(doneReason string, usage *Usage) error {
	c.endThinking()
	c.msg.Complete, c.msg.DoneReason, c.msg.Usage = true, doneReason, usage
	c.dirty = true
	return c.Close()
}

// Close ends a saver whose message will not be finished (a Stop, a failure): it saves what
// is unsaved, as Flush does, and the journal no longer keeps its deltas, the save done or
// failed. Closing an ended saver does nothing.
func (c *MessageSaver) Close() error {
	if c.ended {
		return nil
	}
	err := c.Flush()
	c.ended = true
	if c.journal != nil {
		c.journal.end(c.msg.ChatID, c.msg.ID)
	}
	return err
}

// Flush saves now if anything changed since the last save (for a stream that failed, say).
func (c *MessageSaver) Flush() error {
	if !c.dirty {
		return nil
	}
	if !c.thinkFrom.IsZero() { // still thinking: the time so far, should the stream end here
		c.msg.ThinkingMs = c.db.now().Sub(c.thinkFrom).Milliseconds()
	}
	save := c.db.UpdateMessage
	if !c.stored {
		save = c.db.insertMessage
	}
	if err := save(c.msg.ChatID, c.Message()); err != nil {
		return err
	}
	c.stored, c.dirty, c.unplaced, c.lastSave = true, false, false, c.db.now()
	return nil
}

// journalDelta appends a delta that starts at start to the journal, after the message's
// begin record when it was never saved.
func (c *MessageSaver) journalDelta(kind byte, start int, delta string) {
	if c.journal == nil || c.unplaced || c.ended || delta == "" {
		return
	}
	if !c.headed && !c.stored {
		c.journal.head(c.msg.ChatID, c.msg.ID, streamHead{Role: c.msg.Role, RunID: c.msg.RunID, CreatedAt: c.msg.CreatedAt})
		c.headed = true
	}
	c.journal.delta(kind, c.msg.ChatID, c.msg.ID, start, delta)
}

func (c *MessageSaver) changed() error {
	c.dirty = true
	if c.db.now().Sub(c.lastSave) < c.db.opts.SaveInterval {
		return nil
	}
	return c.Flush()
}

func (c *MessageSaver) endThinking() {
	if !c.thinkFrom.IsZero() {
		c.msg.ThinkingMs = c.db.now().Sub(c.thinkFrom).Milliseconds()
		c.thinkFrom = time.Time{}
	}
}
