package store

import (
	"bytes"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"
)

var (
	pngA = []byte("\x89PNG\r\n\x1a\n a picture")
	pngB = []byte("\x89PNG\r\n\x1a\n another")
	pngC = []byte("\x89PNG\r\n\x1a\n a third")
)

func sameImages(a, b [][]byte) bool { return slices.EqualFunc(a, b, bytes.Equal) }

// The images pasted in a chat's box and not sent outlive the app, like its text: kept by chat,
// forgotten once the box is emptied, and gone with the chat.
func TestTheImagesOfTheUnsentTextAreKeptByChatUntilSentOrItsChatIsDeleted(t *testing.T) {
	db, path := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	if err := db.SaveDraftImages(c.ID, [][]byte{pngA, pngB}); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveDraftImages("", [][]byte{pngC}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, path, Options{})
	d, err := db.DraftImages()
	if err != nil || len(d) != 2 || !sameImages(d[c.ID], [][]byte{pngA, pngB}) || !sameImages(d[""], [][]byte{pngC}) {
		t.Fatalf("draft images %d chats, %v; want the two of the chat and the new chat's one", len(d), err)
	}
	if err := db.SaveDraftImages("", nil); err != nil { // sent
		t.Fatal(err)
	}
	if err := db.DeleteChat(c.ID); err != nil {
		t.Fatal(err)
	}
	if d, err := db.DraftImages(); err != nil || len(d) != 0 {
		t.Errorf("draft images of %d chats, %v; want none once sent and once the chat is deleted", len(d), err)
	}
}

// The images of a queued message are kept beside its text, and the next Open gives them back to
// the chat's box with it, after the images the box held, once.
func TestQueuedImagesAreGivenBackToTheBoxWithTheirTextAtTheNextOpenOnce(t *testing.T) {
	db, path := openTestDB(t, newTestClock())
	c, gone := mustChat(t, db, Chat{}), mustChat(t, db, Chat{})
	queued := []Unsent{{Text: "look at this", Images: [][]byte{pngA}}, {Text: "no picture"}, {Text: "and this", Images: [][]byte{pngB}}}
	if err := db.SetQueued(c.ID, queued); err != nil {
		t.Fatal(err)
	}
	_ = db.SetQueued(gone.ID, []Unsent{{Text: "lost?", Images: [][]byte{pngC}}})
	_ = db.DeleteChat(gone.ID)
	if got, err := db.QueuedImages(c.ID); err != nil || len(got) != 2 || !sameImages(got[0], [][]byte{pngA}) || !sameImages(got[1], [][]byte{pngB}) {
		t.Fatalf("queued images %d, %v; want those of each message that has some, in order", len(got), err)
	}
	_ = db.SaveDraft(c.ID, "typed")
	_ = db.SaveDraftImages(c.ID, [][]byte{pngC})
	db.Close()
	for range 2 { // a second Open gives nothing back again
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d, _ := db.Drafts(); d[c.ID] != "typed\n\nlook at this\n\nno picture\n\nand this" {
			t.Errorf("draft %q; want the typed text and the queued ones", d[c.ID])
		}
		if d, _ := db.DraftImages(); len(d) != 1 || !sameImages(d[c.ID], [][]byte{pngC, pngA, pngB}) {
			t.Errorf("draft images of %d chats (%d of the chat); want the box's and the queued ones, once", len(d), len(d[c.ID]))
		}
		if got, _ := db.QueuedImages(c.ID); len(got) != 0 {
			t.Errorf("queued images %d after the Open; want none", len(got))
		}
		db.Close()
	}
}

// An image the box already holds (the window saved it, given back by a Stop) is not added again
// when the kept queue is given back; what the run is storing stays queued with its images.
func TestAQueuedImageTheBoxAlreadyHoldsIsNotGivenBackTwice(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	storing, waiting := Unsent{Text: "being stored", Images: [][]byte{pngC}}, Unsent{Text: "look", Images: [][]byte{pngA, pngB}}
	_ = db.SetQueued(c.ID, []Unsent{storing, waiting})
	_ = db.SaveDraftImages(c.ID, [][]byte{pngA})
	if err := db.GiveBackQueued(c.ID, []Unsent{waiting}, []Unsent{storing}); err != nil {
		t.Fatal(err)
	}
	if d, _ := db.DraftImages(); !sameImages(d[c.ID], [][]byte{pngA, pngB}) {
		t.Errorf("draft images %d; want the one the box held and the other given back", len(d[c.ID]))
	}
	if got, _ := db.QueuedImages(c.ID); len(got) != 1 || !sameImages(got[0], [][]byte{pngC}) {
		t.Errorf("queued images %d; want those of the message being stored", len(got))
	}
}

// Reading the settings or the texts never reads the images: they are in a bucket of their own.
func TestUnsentImagesAreKeptOutOfTheSettingsBucket(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	big := bytes.Repeat([]byte{7}, 1<<20)
	_ = db.SaveDraftImages(c.ID, [][]byte{big})
	_ = db.SetQueued(c.ID, []Unsent{{Text: "t", Images: [][]byte{big}}})
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		size := 0
		_ = tx.Bucket(bucketSettings).ForEach(func(k, v []byte) error { size += len(v); return nil })
		if size > 64<<10 {
			t.Errorf("the settings bucket holds %d bytes; want the images elsewhere", size)
		}
		return nil
	})
}

// A box save that arrives after its chat was deleted keeps nothing, and box images a chat gone
// left behind (an older build, a crash) are deleted by the next Open.
func TestTheBoxImagesOfAChatGoneAreNotKept(t *testing.T) {
	db, path := openTestDB(t, newTestClock())
	c, gone := mustChat(t, db, Chat{}), mustChat(t, db, Chat{})
	_ = db.SaveDraftImages(c.ID, [][]byte{pngA})
	if err := db.DeleteChat(gone.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.SaveDraftImages(gone.ID, [][]byte{pngB}); err != nil {
		t.Fatal(err)
	}
	if d, _ := db.DraftImages(); len(d) != 1 {
		t.Errorf("draft images of %d chats; want only the chat that exists", len(d))
	}
	// left behind by a build that kept them
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		return putUnsentImages(tx, unsentImagesKey(boxImagesPrefix, gone.ID), [][]byte{pngB})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = reopen(t, path, Options{})
	if d, _ := db.DraftImages(); len(d) != 1 || !sameImages(d[c.ID], [][]byte{pngA}) {
		t.Errorf("draft images of %d chats; want only the chat that exists, with its image", len(d))
	}
}
