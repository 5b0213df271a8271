package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// A streaming message is committed to bbolt at most once per Options.SaveInterval, because
// every commit syncs the disk; the text since the last save would die with the process. So
// a [MessageSaver] also appends every delta to the stream journal, a file beside the
// database ([StreamJournalPath]), with one plain write() and no sync: the kernel keeps what
// a killed process wrote (kill -9, a panic), and after a power loss the saves still bound
// the loss to the last interval. A writable [Open] replays the journal into the messages it
// continues before anything reads them, then removes it; while the app runs it is emptied
// whenever no message streams, so it holds at most the streams in progress; should streams
// overlap for so long that it reaches maxJournal, it takes no more records until it is
// emptied, and the saves alone bound the loss as they would without it.
//
// A record is framed as its payload's length and CRC-32C (4 bytes each, little-endian),
// then the payload: a kind, the chat's and the message's ids (each a uvarint length and the
// bytes), and
//
//	'b' (begin)    the message's role, run and creation time as JSON: enough to create a
//	               message that was never first saved (its id is reserved, not written)
//	't', 'h'       a text or thinking delta: a uvarint where it starts (the length of that
//	               text before it), then the delta's bytes
//	'e' (end)      the message's saver ended (its end saved, or its last save failed, or its
//	               text was replaced): the records of the message before this one are not
//	               to be applied
//
// A record cut short by the kill, or anything that does not frame and check, ends the
// reading: what follows cannot be trusted. Replay applies to a message only deltas that
// continue exactly the text stored (start == its length; what the store holds already is
// skipped; a gap ends that text), and never touches a message whose end was saved
// (Complete, or a DoneReason: a Stop's or a failure's end wins), a chat that is gone, or
// anything that does not decode. A journal that cannot be applied is dropped: it never
// damages the database and never stops Open.

// StreamJournalPath is the stream journal of the database at path.
func StreamJournalPath(path string) string { return path + ".streaming" }

const (
	recordBegin    = 'b'
	recordText     = 't'
	recordThinking = 'h'
	recordEnd      = 'e'

	recordHeader = 8       // length, CRC-32C
	maxRecord    = 1 << 30 // a length past this is garbage, not a delta
	maxJournal   = 64 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// streamHead is what a begin record says of a message, to create it if it was never saved.
type streamHead struct {
	Role      string    `json:"role"`
	RunID     string    `json:"runId,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
}

// streamJournal appends the records of the savers of one open database. Savers of different
// chats append concurrently: one lock, one write() a record.
type streamJournal struct {
	path  string
	limit int64 // the most it holds (maxJournal)

	mu      sync.Mutex
	f       *os.File // opened by the first record
	open    int      // savers begun and not ended
	size    int64    // bytes written since the file was last emptied
	failed  bool     // a write failed, or the file is full: no more records until it is emptied
	closed  bool
	scratch []byte
}

// begin counts a saver that may append records until its end.
func (j *streamJournal) begin() {
	j.mu.Lock()
	j.open++
	j.mu.Unlock()
}

// head appends the begin record of a message.
func (j *streamJournal) head(chatID, msgID string, h streamHead) {
	body, err := json.Marshal(h)
	if err != nil {
		return
	}
	j.append(recordBegin, chatID, msgID, func(b []byte) []byte { return append(b, body...) })
}

// delta appends a text or thinking delta of a message that starts at start.
func (j *streamJournal) delta(kind byte, chatID, msgID string, start int, delta string) {
	j.append(kind, chatID, msgID, func(b []byte) []byte {
		return append(binary.AppendUvarint(b, uint64(start)), delta...)
	})
}

// forget appends an end record: the message's earlier records are not to be applied.
func (j *streamJournal) forget(chatID, msgID string) {
	j.append(recordEnd, chatID, msgID, nil)
}

// end ends a saver: its records are not to be applied any more, its end saved or not (a
// message whose last save failed may since have been put aside or deleted, and a replay would
// bring it back). The last saver to end empties the file.
func (j *streamJournal) end(chatID, msgID string) {
	j.mu.Lock()
	j.open--
	last, written := j.open == 0, j.f != nil
	if last && written {
		if err := j.f.Truncate(0); err == nil {
			j.size, j.failed = 0, false // a record torn by a failed write went with the rest
		}
	}
	j.mu.Unlock()
	if !last && written {
		j.forget(chatID, msgID)
	}
}

// fail stops the journal until the last saver ends, and empties it: an end record it can no
// longer take would leave earlier records a replay would apply to a message ended since. The
// once-an-interval saves go on as they would without a journal. j.mu is held.
func (j *streamJournal) fail() {
	j.failed = true
	if j.f != nil && j.f.Truncate(0) == nil {
		j.size = 0
	}
}

func (j *streamJournal) append(kind byte, chatID, msgID string, body func([]byte) []byte) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.failed || j.closed {
		return
	}
	if j.f == nil {
		f, err := os.OpenFile(j.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			j.fail()
			return
		}
		j.f = f
	}
	b := append(j.scratch[:0], make([]byte, recordHeader)...)
	b = append(b, kind)
	b = appendString(b, chatID)
	b = appendString(b, msgID)
	if body != nil {
		b = body(b)
	}
	payload := b[recordHeader:]
	binary.LittleEndian.PutUint32(b[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[4:8], crc32.Checksum(payload, castagnoli))
	j.scratch = b
	if j.size += int64(len(b)); j.size > j.limit {
		j.fail()
		return
	}
	// A failed or short write (a full disk) may leave a torn record: nothing may follow it.
	if _, err := j.f.Write(b); err != nil {
		j.fail()
	}
}

// close lets go of the file; it is removed unless a saver that never ended left records the
// next Open should replay.
func (j *streamJournal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed || j.f == nil {
		j.closed = true
		return nil
	}
	j.closed = true
	err := j.f.Close()
	if j.open == 0 {
		if rerr := os.Remove(j.path); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// streamRecord is one record read back.
type streamRecord struct {
	kind          byte
	chatID, msgID string
	start         int
	body          []byte // the delta, or the begin record's JSON
}

// readStreamRecords decodes data up to its first record that does not frame or check.
func readStreamRecords(data []byte) []streamRecord {
	var out []streamRecord
	for len(data) >= recordHeader {
		n := binary.LittleEndian.Uint32(data[0:4])
		if n > maxRecord || uint64(len(data)-recordHeader) < uint64(n) {
			break // torn: the kill came mid-write
		}
		payload := data[recordHeader : recordHeader+int(n)]
		if crc32.Checksum(payload, castagnoli) != binary.LittleEndian.Uint32(data[4:8]) {
			break
		}
		r, ok := decodeStreamRecord(payload)
		if !ok {
			break
		}
		out = append(out, r)
		data = data[recordHeader+int(n):]
	}
	return out
}

func decodeStreamRecord(p []byte) (streamRecord, bool) {
	if len(p) < 1 {
		return streamRecord{}, false
	}
	r := streamRecord{kind: p[0]}
	p = p[1:]
	var ok bool
	if r.chatID, p, ok = cutString(p); !ok {
		return r, false
	}
	if r.msgID, p, ok = cutString(p); !ok {
		return r, false
	}
	switch r.kind {
	case recordText, recordThinking:
		start, n := binary.Uvarint(p)
		if n <= 0 || start > maxRecord {
			return r, false
		}
		r.start, r.body = int(start), p[n:]
	case recordBegin:
		r.body = p
	case recordEnd:
	default:
		return r, false
	}
	return r, true
}

func cutString(p []byte) (string, []byte, bool) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return "", nil, false
	}
	return string(p[k : k+int(n)]), p[k+int(n):], true
}

// streamedMessage is what the journal holds of one message.
type streamedMessage struct {
	chatID, msgID  string
	head           []byte // the begin record's JSON; nil: none
	text, thinking []streamRecord
}

// replayStreams applies the journal a dead process left and removes it. Only a failed
// write is an error; whatever cannot be applied is dropped.
func (db *DB) replayStreams() error {
	path := StreamJournalPath(db.path)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err == nil {
		// a message at a time: one the store cannot take (its chat's record damaged) is
		// dropped, and only a write that fails stops Open, as it would any other
		for _, s := range collectStreams(readStreamRecords(data)) {
			err := db.update("recover streamed text", func(tx *bolt.Tx) error { return db.replayMessage(tx, s) })
			var we *WriteError
			if errors.As(err, &we) {
				return err
			}
		}
	}
	// unreadable or applied: either way, nothing more will come of it
	_ = os.Remove(path)
	return nil
}

// collectStreams groups records by message, in the order the messages began; an end record
// drops what came before it.
func collectStreams(records []streamRecord) []*streamedMessage {
	var order []*streamedMessage
	byID := map[[2]string]*streamedMessage{}
	for _, r := range records {
		key := [2]string{r.chatID, r.msgID}
		s := byID[key]
		if s == nil {
			s = &streamedMessage{chatID: r.chatID, msgID: r.msgID}
			byID[key] = s
			order = append(order, s)
		}
		switch r.kind {
		case recordBegin:
			s.head = r.body
		case recordText:
			s.text = append(s.text, r)
		case recordThinking:
			s.thinking = append(s.thinking, r)
		case recordEnd:
			*s = streamedMessage{chatID: r.chatID, msgID: r.msgID}
		}
	}
	return order
}

// replayMessage continues one message with what the journal holds of it, creating it when
// it was never saved. A message it cannot or must not touch is left as it is.
func (db *DB) replayMessage(tx *bolt.Tx, s *streamedMessage) error {
	msgs, seq, raw, err := storedMessage(tx, s.chatID, s.msgID)
	if err != nil {
		return nil // the chat is gone (or damaged: its reads say so)
	}
	if seq == 0 {
		return nil
	}
	var m Message
	added := 0
	if raw != nil {
		if json.Unmarshal(raw, &m) != nil || m.Complete || m.DoneReason != "" || m.Role != RoleAssistant {
			return nil
		}
	} else {
		var h streamHead
		if s.head == nil || json.Unmarshal(s.head, &h) != nil || h.Role != RoleAssistant {
			return nil
		}
		m = Message{ID: s.msgID, ChatID: s.chatID, RunID: h.RunID, Role: h.Role, CreatedAt: h.CreatedAt}
		added = 1
	}
	content, thinking := continueText(m.Content, s.text), continueText(m.Thinking, s.thinking)
	if content == m.Content && thinking == m.Thinking {
		return nil
	}
	m.Content, m.Thinking, m.UpdatedAt = content, thinking, db.now()
	if added == 1 && msgs.Sequence() < seq {
		if err := msgs.SetSequence(seq); err != nil {
			return err
		}
	}
	if err := putMessage(tx, msgs, s.chatID, seq, &m); err != nil {
		return err
	}
	return db.touchChat(tx, s.chatID, added, &m)
}

// continueText appends to stored the deltas that continue it exactly: one the store holds
// already is skipped, and a gap (a delta that starts past its end, or inside it and past it)
// ends the text there.
func continueText(stored string, deltas []streamRecord) string {
	out := []byte(stored)
	for _, d := range deltas {
		switch {
		case d.start+len(d.body) <= len(out):
			continue
		case d.start == len(out):
			out = append(out, d.body...)
		default:
			return string(out)
		}
	}
	return string(out)
}
