package store

// The images of what the user wrote and no run took: those pasted into a chat's box and not
// sent, and those of each message waiting in a busy chat's queue. They live in a bucket of their
// own, beside the texts the settings bucket keeps (window.go), so that reading the settings or
// the texts never decodes them: they are read only when a box or a queue is given back.
//
// A build that does not know the bucket opens the file as before and leaves the bucket alone: it
// gives the queued texts back without their images, which the next Open of a build that knows it
// gives to the box then (late, but not lost), and the images of a box it emptied stay there.

import (
	"bytes"
	"encoding/json"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Unsent is a message the user wrote that no run has taken: its text and its images (raw bytes).
type Unsent struct {
	Text   string
	Images [][]byte
}

// bucketUnsentImages holds, by chat id ("" for the chat not started yet), the images of its
// box (key 'd' ‖ chat id → JSON list) and of its queued messages (key 'q' ‖ chat id → JSON list
// of lists, one per queued message that has images, in queue order). Created by the first write;
// a file without it holds none.
var bucketUnsentImages = []byte("unsentImages")

const (
	boxImagesPrefix    = 'd'
	queuedImagesPrefix = 'q'
)

func unsentImagesKey(prefix byte, chatID string) []byte {
	return append([]byte{prefix}, chatID...)
}

// SaveDraftImages keeps images as those of the unsent text of chat chatID ("" for the chat the
// window starts with its first message); none forgets them. The images of a chat that does not
// exist (deleted while its box was being saved) are not kept. The caller bounds them as a
// message's images are bounded: the store keeps what it is given.
func (db *DB) SaveDraftImages(chatID string, images [][]byte) error {
	return db.update("save the images of the unsent text", func(tx *bolt.Tx) error {
		if !chatExists(tx, chatID) {
			return nil
		}
		return putUnsentImages(tx, unsentImagesKey(boxImagesPrefix, chatID), images)
	})
}

// DraftImages returns the images of the unsent text of each chat that has some, by chat id.
func (db *DB) DraftImages() (map[string][][]byte, error) {
	out := map[string][][]byte{}
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketUnsentImages)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek([]byte{boxImagesPrefix}); len(k) > 0 && k[0] == boxImagesPrefix; k, v = c.Next() {
			var images [][]byte
			if err := json.Unmarshal(v, &images); err != nil {
				return err
			}
			out[string(k[1:])] = images
		}
		return nil
	})
	return out, err
}

// QueuedImages returns the images kept with each message of chat chatID's queue that has some, in
// queue order.
func (db *DB) QueuedImages(chatID string) ([][][]byte, error) {
	var out [][][]byte
	err := db.view(func(tx *bolt.Tx) error {
		return getUnsentImages(tx, unsentImagesKey(queuedImagesPrefix, chatID), &out)
	})
	return out, err
}

// putUnsentImages writes v at key, or deletes the key when v holds no image.
func putUnsentImages[T any](tx *bolt.Tx, key []byte, v []T) error {
	if len(v) == 0 {
		if b := tx.Bucket(bucketUnsentImages); b != nil {
			return b.Delete(key)
		}
		return nil
	}
	b, err := tx.CreateBucketIfNotExists(bucketUnsentImages)
	if err != nil {
		return err
	}
	return putJSON(b, key, v)
}

func getUnsentImages(tx *bolt.Tx, key []byte, v any) error {
	if b := tx.Bucket(bucketUnsentImages); b != nil {
		if raw := b.Get(key); raw != nil {
			return json.Unmarshal(raw, v)
		}
	}
	return nil
}

// keepQueuedImages keeps the images of queued, the messages of chat chatID's queue, within tx.
func keepQueuedImages(tx *bolt.Tx, chatID string, queued []Unsent) error {
	var per [][][]byte
	for _, m := range queued {
		if len(m.Images) > 0 {
			per = append(per, m.Images)
		}
	}
	return putUnsentImages(tx, unsentImagesKey(queuedImagesPrefix, chatID), per)
}

// addDraftImages puts images after those of chat chatID's box within tx; an image the box
// already holds (the window saved the box with it given back) is not added again.
func addDraftImages(tx *bolt.Tx, chatID string, images [][]byte) error {
	if len(images) == 0 {
		return nil
	}
	key := unsentImagesKey(boxImagesPrefix, chatID)
	var box [][]byte
	if err := getUnsentImages(tx, key, &box); err != nil {
		return err
	}
	held := len(box)
	for _, img := range images {
		if !slices.ContainsFunc(box[:held], func(b []byte) bool { return bytes.Equal(b, img) }) {
			box = append(box, img)
		}
	}
	return putUnsentImages(tx, key, box)
}

// giveBackQueuedImages moves the images of every chat's kept queue into its box within tx: those
// of the messages whose texts the box is given too, or whose texts an older build gave back
// without them. The box images of chats gone are deleted in the same pass.
func giveBackQueuedImages(tx *bolt.Tx) error {
	b := tx.Bucket(bucketUnsentImages)
	if b == nil {
		return nil
	}
	queued := map[string][][][]byte{}
	var orphans [][]byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		switch {
		case k[0] == boxImagesPrefix && !chatExists(tx, string(k[1:])):
			orphans = append(orphans, bytes.Clone(k))
		case k[0] == queuedImagesPrefix:
			var per [][][]byte
			if err := json.Unmarshal(v, &per); err != nil {
				return err
			}
			queued[string(k[1:])] = per
		}
	}
	for _, k := range orphans {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	for id, per := range queued {
		if err := b.Delete(unsentImagesKey(queuedImagesPrefix, id)); err != nil {
			return err
		}
		if !chatExists(tx, id) {
			continue // its chat is gone
		}
		for _, images := range per {
			if err := addDraftImages(tx, id, images); err != nil {
				return err
			}
		}
	}
	return nil
}

// unsentImagesToTidy reports whether a chat's queue keeps images, or a chat gone keeps box
// images: Open then has some to give back or to delete.
func unsentImagesToTidy(tx *bolt.Tx) bool {
	b := tx.Bucket(bucketUnsentImages)
	if b == nil {
		return false
	}
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if k[0] == queuedImagesPrefix || !chatExists(tx, string(k[1:])) {
			return true
		}
	}
	return false
}

// chatExists reports whether chat id exists; "" (the chat not started yet) always does.
func chatExists(tx *bolt.Tx, id string) bool {
	return id == "" || tx.Bucket(bucketChats).Get([]byte(id)) != nil
}

// forgetUnsentImages deletes the images of chat chatID's box and queue within tx.
func forgetUnsentImages(tx *bolt.Tx, chatID string) error {
	if err := putUnsentImages[[]byte](tx, unsentImagesKey(boxImagesPrefix, chatID), nil); err != nil {
		return err
	}
	return putUnsentImages[[]byte](tx, unsentImagesKey(queuedImagesPrefix, chatID), nil)
}
