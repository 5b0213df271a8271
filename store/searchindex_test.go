package store

import (
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// rawUpdate writes to a closed store's file directly, as another build or damage would.
func rawUpdate(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(fn); err != nil {
		t.Fatal(err)
	}
}

// lastTxID is the id of the file's last committed transaction.
func lastTxID(t *testing.T, db *DB) int {
	t.Helper()
	var id int
	_ = db.bolt.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
	return id
}

// searchIDs is what a search finds: chat id → message id ("" for a title).
func searchIDs(t *testing.T, db *DB, query string) map[string]string {
	t.Helper()
	hits, err := db.SearchChats(query, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, h := range hits {
		out[h.Chat.ID] = h.MessageID
	}
	return out
}

func TestAFileWithoutASearchIndexGetsItBuiltOnceAtOpen(t *testing.T) {
	db, path := openTestDB(t, nil)
	a := mustChat(t, db, Chat{Title: "a"})
	ms := appendTexts(t, db, a.ID, RoleUser, "where is the Walrus", RoleAssistant, "the walrus is here", RoleTool, "walrus in a tool result")
	b := mustChat(t, db, Chat{Title: "b"})
	appendTexts(t, db, b.ID, RoleUser, "nothing to see")
	db.Close()
	// a file written before the index existed
	rawUpdate(t, path, func(tx *bolt.Tx) error { return tx.DeleteBucket(bucketSearchIndex) })

	db = reopen(t, path, Options{})
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		for _, c := range []Chat{a, b} {
			got, _ := db.Chat(c.ID)
			if !indexCurrent(chatIndex(tx, c.ID), got.UpdatedAt) {
				t.Errorf("chat %s was not indexed at open", c.Title)
			}
		}
		if n := chatIndex(tx, a.ID).Stats().KeyN; n != 5 { // the stamp, the title, the filter and two shown texts
			t.Errorf("the index of a holds %d keys, want 5", n)
		}
		return nil
	})
	if got := searchIDs(t, db, "WALRUS"); len(got) != 1 || got[a.ID] != ms[0].ID {
		t.Errorf("search after the index was built = %v, want the first message of a", got)
	}
	built := lastTxID(t, db)
	db.Close()
	db = reopen(t, path, Options{})
	if lastTxID(t, db) != built {
		t.Error("a second open wrote again, though the index was whole")
	}
}

func TestSearchReadsTheMessagesOfAChatWhoseIndexIsBehind(t *testing.T) {
	db, path := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "c"})
	appendTexts(t, db, c.ID, RoleUser, "first words")
	db.Close()
	// a build that keeps no index appends a message and moves the chat's updatedAt
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		old, err := loadChat(tx, c.ID)
		if err != nil {
			return err
		}
		msgs, _ := messagesBucket(tx, c.ID)
		seq, _ := msgs.NextSequence()
		m := Message{ID: messageID(c.ID, seq), ChatID: c.ID, Role: RoleAssistant, Content: "a Platypus appears", Complete: true}
		if err := putJSON(msgs, seqKey(seq), &m); err != nil {
			return err
		}
		nc := old
		nc.UpdatedAt = old.UpdatedAt.Add(1)
		nc.MessageCount++
		idx := tx.Bucket(bucketChatsByUpdated)
		if err := idx.Delete(updatedKey(old.UpdatedAt, c.ID)); err != nil {
			return err
		}
		if err := idx.Put(updatedKey(nc.UpdatedAt, c.ID), nil); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bucketChats), []byte(c.ID), &nc)
	})

	ro := reopen(t, path, Options{ReadOnly: true})
	if got := searchIDs(t, ro, "platypus"); len(got) != 1 {
		t.Errorf("a read-only open found %v, want the message the index does not hold yet", got)
	}
	ro.Close()
	db = reopen(t, path, Options{})
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		got, _ := db.Chat(c.ID)
		if !indexCurrent(chatIndex(tx, c.ID), got.UpdatedAt) {
			t.Error("the chat was not re-indexed at open")
		}
		return nil
	})
	if got := searchIDs(t, db, "platypus"); len(got) != 1 {
		t.Errorf("after re-indexing: %v", got)
	}
}

func TestADamagedSearchIndexLosesNoMessageAndNoResult(t *testing.T) {
	db, path := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "c"})
	appendTexts(t, db, c.ID, RoleUser, "the ocelot sleeps", RoleAssistant, "so it does")
	d := mustChat(t, db, Chat{Title: "d"})
	appendTexts(t, db, d.ID, RoleUser, "the ocelot wakes")
	db.Close()
	rawUpdate(t, path, func(tx *bolt.Tx) error {
		idx := tx.Bucket(bucketSearchIndex)
		// c's index says other words; d's is a plain value where a bucket belongs
		if err := chatIndex(tx, c.ID).Put(seqKey(1), []byte("garbage")); err != nil {
			return err
		}
		if err := chatIndex(tx, c.ID).Put(keyIndexStamp, []byte("x")); err != nil {
			return err
		}
		if err := idx.DeleteBucket([]byte(d.ID)); err != nil {
			return err
		}
		return idx.Put([]byte(d.ID), []byte("not a bucket"))
	})
	db = reopen(t, path, Options{})
	for _, ch := range []Chat{c, d} {
		msgs, err := db.Messages(ch.ID)
		if err != nil || len(msgs) == 0 || !strings.Contains(msgs[0].Content, "ocelot") {
			t.Errorf("chat %s after damage to the index: %v, %v", ch.Title, msgs, err)
		}
	}
	if got := searchIDs(t, db, "ocelot"); len(got) != 2 {
		t.Errorf("search over a damaged index found %v, want both chats", got)
	}
	appendTexts(t, db, d.ID, RoleAssistant, "an ocelot answer")
	if got := searchIDs(t, db, "ocelot answer"); len(got) != 1 {
		t.Errorf("a message written after the repair is not found: %v", got)
	}
}

func TestSearchFollowsEditsForksVersionsAndDeletes(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "c"})
	ms := appendTexts(t, db, c.ID, RoleUser, "ask about the heron", RoleAssistant, "the heron stands")
	ms[1].Content = "the egret stands"
	if err := db.UpdateMessage(c.ID, ms[1]); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, db, "egret"); got[c.ID] != ms[1].ID {
		t.Errorf("an updated message is not found by its new text: %v", got)
	}
	if got := searchIDs(t, db, "heron stands"); len(got) != 0 {
		t.Errorf("an updated message is found by its old text: %v", got)
	}
	if _, err := db.ForkAt(c.ID, ms[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, db, "egret"); len(got) != 0 {
		t.Errorf("a version put aside is still found: %v", got)
	}
	other := appendTexts(t, db, c.ID, RoleAssistant, "the crane flies")
	if err := db.ShowVersion(c.ID, ms[0].ID, ms[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, db, "egret"); got[c.ID] != ms[1].ID {
		t.Errorf("a version shown again is not found: %v", got)
	}
	if got := searchIDs(t, db, "crane"); len(got) != 0 {
		t.Errorf("the version put aside (%s) is still found: %v", other[0].ID, got)
	}
	if _, err := db.RenameChat(c.ID, "Birds of the Marsh"); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, db, "MARSH"); len(got) != 1 || got[c.ID] != "" {
		t.Errorf("a chat is not found by its new title: %v", got)
	}
	if err := db.DeleteChat(c.ID); err != nil {
		t.Fatal(err)
	}
	if got := searchIDs(t, db, "heron"); len(got) != 0 {
		t.Errorf("a deleted chat is found: %v", got)
	}
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		if chatIndex(tx, c.ID) != nil {
			t.Error("a deleted chat kept its index")
		}
		return nil
	})
}

func TestTheTrigramFilterNeverKeepsOutAChatThatHoldsTheWords(t *testing.T) {
	texts := []string{"write a snake game in python", "the walrus is here", "naïve café — ünïcödé", "ab"}
	filter := make([]byte, trigramBits/8)
	for _, text := range texts {
		addTrigrams(filter, []byte(text))
	}
	for _, text := range texts {
		for i := range len(text) {
			for j := i + 1; j <= len(text); j++ {
				if !mayHold(filter, trigramsOf([]byte(text[i:j]))) {
					t.Fatalf("the filter keeps out %q, which %q holds", text[i:j], text)
				}
			}
		}
	}
	if mayHold(filter, trigramsOf([]byte("never found anywhere"))) {
		t.Error("the filter lets through words no text holds (possible, but not for these)")
	}
	if !mayHold(nil, trigramsOf([]byte("anything"))) {
		t.Error("a chat without a filter is kept out")
	}
}
