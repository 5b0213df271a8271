package store

// The user's answers about the MCP server files that workspaces hold (.prototyper/mcp.json):
// nothing of such a file runs before the user allowed its exact bytes. Each answer lives in a
// bucket of its own, keyed by the workspace's absolute path, created by the first answer (a
// file without it has none).

import (
	"encoding/json"
	"time"

	bolt "go.etcd.io/bbolt"
)

// bucketWorkspaceTrust holds a [WorkspaceTrust] (JSON) by workspace path.
var bucketWorkspaceTrust = []byte("workspaceTrust")

// WorkspaceTrust is the user's answer about a workspace's own server file.
type WorkspaceTrust struct {
	// Hash is the SHA-256 (hex) of the exact bytes of the file the user answered about: a
	// file that changed since is asked about again.
	Hash string `json:"hash"`
	// Allowed is the answer: its servers may start (true) or not (false).
	Allowed bool      `json:"allowed"`
	At      time.Time `json:"at"`
}

// AllowsHash reports whether t allows the file whose bytes hash to hash.
func (t WorkspaceTrust) AllowsHash(hash string) bool { return t.Allowed && t.Hash == hash }

// WorkspaceTrust returns the answer about the server file of workspace (an absolute path);
// the zero value when there is none.
func (db *DB) WorkspaceTrust(workspace string) (WorkspaceTrust, error) {
	var t WorkspaceTrust
	err := db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketWorkspaceTrust)
		if b == nil {
			return nil
		}
		if raw := b.Get([]byte(workspace)); raw != nil {
			return json.Unmarshal(raw, &t)
		}
		return nil
	})
	return t, err
}

// SetWorkspaceTrust records the answer t about the server file of workspace (an absolute
// path), replacing any earlier one.
func (db *DB) SetWorkspaceTrust(workspace string, t WorkspaceTrust) error {
	if t.At.IsZero() {
		t.At = time.Now().UTC()
	}
	return db.putRecord("record whether a workspace's MCP servers may run", bucketWorkspaceTrust, workspace, t)
}
