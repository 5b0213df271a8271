package store

// The results of the model check (package modelcheck): how a model did on this machine, one
// result per model, quantisation and context size, the latest replacing the earlier. They
// live in a bucket of their own, created by the first result (a file without it has none).

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketModelChecks holds a [ModelCheck] (JSON) by [ModelCheck.Key].
var bucketModelChecks = []byte("modelChecks")

// ModelCheck is the summary of one model check and its cases as the check reported them.
type ModelCheck struct {
	Model string `json:"model"`
	// Quantization is the server's quantization level of the model ("Q4_K_M"); "" when the
	// server did not say.
	Quantization string `json:"quantization,omitempty"`
	// NumCtx is the context size the check's requests asked for.
	NumCtx int `json:"numCtx"`
	Passed int `json:"passed"`
	Total  int `json:"total"`
	// Calls and WellFormed count the tool calls of every case, and those among them that were
	// well formed (native or written as text).
	Calls      int `json:"calls"`
	WellFormed int `json:"wellFormed"`
	// TextCalls counts the well-formed calls the model wrote as text.
	TextCalls          int     `json:"textCalls"`
	FirstTokenMs       int64   `json:"firstTokenMs"`
	PromptTokensPerSec float64 `json:"promptTokensPerSec"`
	AnswerTokensPerSec float64 `json:"answerTokensPerSec"`
	// MemoryBytes is what the loaded model took (the server's /api/ps size); 0 when unknown.
	MemoryBytes int64     `json:"memoryBytes,omitempty"`
	DurationMs  int64     `json:"durationMs"`
	At          time.Time `json:"at"`
	// Cases is the report of every case, as the check wrote it.
	Cases json.RawMessage `json:"cases,omitempty"`
	// WrittenCalls: no native call worked and the cases asking for calls written as text
	// passed; the figures are that form's, and the loop drives the model in it.
	WrittenCalls bool `json:"writtenCalls,omitempty"`
}

// Key is where c is kept: its model, quantization and context size.
func (c ModelCheck) Key() string {
	return c.Model + "\x00" + c.Quantization + "\x00" + strconv.Itoa(c.NumCtx)
}

// PutModelCheck records c, replacing an earlier result of the same model, quantization and
// context size.
func (db *DB) PutModelCheck(c ModelCheck) error {
	if c.At.IsZero() {
		c.At = time.Now().UTC()
	}
	return db.putRecord("record a model check", bucketModelChecks, c.Key(), c)
}

// putRecord writes v under key in the top-level bucket, made on its first record, replacing
// what was there; what names the write in an error.
func (db *DB) putRecord(what string, bucket []byte, key string, v any) error {
	return db.update(what, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucket)
		if err != nil {
			return err
		}
		return putJSON(b, []byte(key), v)
	})
}

// ModelChecks returns the recorded checks of model (every quantization and context size),
// the newest first; none when the model was never checked.
func (db *DB) ModelChecks(model string) ([]ModelCheck, error) {
	var out []ModelCheck
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketModelChecks)
		if b == nil {
			return nil
		}
		prefix := []byte(model + "\x00")
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) >= len(prefix) && string(k[:len(prefix)]) == string(prefix); k, v = c.Next() {
			var mc ModelCheck
			if err := json.Unmarshal(v, &mc); err != nil {
				return err
			}
			out = append(out, mc)
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool { return out[i].At.After(out[j].At) })
	return out, err
}

// CheckedModels returns the names of the models that have a recorded check, in order.
func (db *DB) CheckedModels() ([]string, error) {
	var out []string
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketModelChecks)
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, _ []byte) error {
			name, _, _ := strings.Cut(string(k), "\x00")
			if len(out) == 0 || out[len(out)-1] != name {
				out = append(out, name)
			}
			return nil
		})
	})
	return out, err
}
