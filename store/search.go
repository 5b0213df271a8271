package store

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// snippetRunes is about how much text a search hit shows around the words found.
const snippetRunes = 90

// ChatHit is a chat a search found: the chat, and where the words were found, the message
// and a snippet of its text around them (both empty when the title matched).
type ChatHit struct {
	Chat      Chat   `json:"chat"`
	MessageID string `json:"messageId,omitempty"`
	Snippet   string `json:"snippet,omitempty"`
}

// SearchChats finds the chats whose title or shown messages (the user's and the answers')
// hold query, case-insensitively, newest first, at most limit of them (0: no limit). It reads
// in one transaction: each chat's lower-cased text from the search index (see
// searchindex.go), decoding only the message found; a chat whose index is behind is read from
// its messages. BenchmarkSearchChatsBySize holds the figures.
func (db *DB) SearchChats(query string, limit int) ([]ChatHit, error) {
	needle := strings.ToLower(strings.TrimSpace(query))
	var hits []ChatHit
	if needle == "" {
		return hits, nil
	}
	runs := trigramsOf([]byte(needle))
	err := db.view(func(tx *bolt.Tx) error {
		byID := tx.Bucket(bucketChats)
		cur := tx.Bucket(bucketChatsByUpdated).Cursor()
		for k, _ := cur.Last(); k != nil && (limit <= 0 || len(hits) < limit); k, _ = cur.Prev() {
			if len(k) < 8 {
				continue
			}
			id := string(k[8:])
			var hit ChatHit
			var err error
			found := false
			if sub := chatIndex(tx, id); stampCurrent(sub, k[:8]) {
				// the index holds the title and the text: the chat's record is read if found
				if bytes.Contains(sub.Get(keyIndexTitle)[1:], []byte(needle)) {
					found = true
				} else if !mayHold(sub.Get(keyIndexTrigrams), runs) {
					continue
				} else if hit, err = searchIndexed(tx, sub, id, needle); err == nil {
					found = hit.MessageID != ""
				}
			} else {
				var c Chat
				if err := json.Unmarshal(byID.Get(k[8:]), &c); err != nil {
					return err
				}
				if strings.Contains(strings.ToLower(c.Title), needle) {
					found = true
				} else if hit, err = searchMessages(tx, c.ID, needle); err == nil {
					found = hit.MessageID != ""
				}
			}
			if err != nil {
				return err
			}
			if !found {
				continue
			}
			if err := json.Unmarshal(byID.Get(k[8:]), &hit.Chat); err != nil {
				return err
			}
			hits = append(hits, hit)
		}
		return nil
	})
	return hits, err
}

// searchIndexed finds the first shown message of a chat holding needle (lower case) through
// the chat's index, sub.
func searchIndexed(tx *bolt.Tx, sub *bolt.Bucket, chatID, needle string) (ChatHit, error) {
	msgs, err := messagesBucket(tx, chatID)
	if err != nil {
		return ChatHit{}, err
	}
	raw := []byte(needle)
	cur := sub.Cursor()
	for k, v := cur.Seek(seqKey(1)); k != nil && len(k) == 8; k, v = cur.Next() {
		if !bytes.Contains(v, raw) {
			continue
		}
		stored := msgs.Get(k)
		if stored == nil {
			continue
		}
		var m Message
		if err := json.Unmarshal(stored, &m); err != nil {
			return ChatHit{}, err
		}
		if !searchable(&m) {
			continue
		}
		if at := strings.Index(strings.ToLower(m.Content), needle); at >= 0 {
			return ChatHit{MessageID: m.ID, Snippet: snippet(m.Content, at, len(needle))}, nil
		}
	}
	return ChatHit{}, nil
}

// searchMessages finds the first shown message of a chat holding needle (lower case) by
// reading its messages: a chat whose index is behind.
func searchMessages(tx *bolt.Tx, chatID, needle string) (ChatHit, error) {
	msgs, err := messagesBucket(tx, chatID)
	if err != nil {
		return ChatHit{}, err
	}
	// Plain ASCII words, which JSON writes as they are, are looked for in the stored bytes
	// first (lower-cased into one reused buffer): a message whose bytes lack them is not
	// decoded at all.
	raw := []byte(needle)
	verbatim := plainASCII(needle)
	var lowered []byte
	var hit ChatHit
	err = msgs.ForEach(func(_, v []byte) error {
		if hit.MessageID != "" {
			return nil
		}
		if verbatim {
			lowered = asciiLower(lowered[:0], v)
			if !bytes.Contains(lowered, raw) {
				return nil
			}
		}
		var m Message
		if err := json.Unmarshal(v, &m); err != nil {
			return err
		}
		if m.Role != RoleUser && m.Role != RoleAssistant {
			return nil
		}
		if at := strings.Index(strings.ToLower(m.Content), needle); at >= 0 {
			hit = ChatHit{MessageID: m.ID, Snippet: snippet(m.Content, at, len(needle))}
		}
		return nil
	})
	return hit, err
}

// plainASCII reports whether s is printable ASCII that JSON writes unescaped.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// asciiLower appends b to dst with its ASCII capitals in lower case.
func asciiLower(dst, b []byte) []byte {
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// snippet is the text around bytes [at, at+n) of text (found in its lower-case form, which
// has the same byte offsets for the letters that matter here), on one line.
func snippet(text string, at, n int) string {
	if at > len(text) {
		at = len(text)
	}
	start, end := at, min(len(text), at+n)
	for budget := snippetRunes / 3; budget > 0 && start > 0; budget-- {
		_, size := utf8.DecodeLastRuneInString(text[:start])
		start -= size
	}
	for budget := snippetRunes - (snippetRunes / 3); budget > 0 && end < len(text); budget-- {
		_, size := utf8.DecodeRuneInString(text[end:])
		end += size
	}
	s := strings.Join(strings.Fields(text[start:end]), " ")
	if start > 0 {
		s = "…" + s
	}
	if end < len(text) {
		s += "…"
	}
	return s
}
