// Package archtest holds the import rules of the project's rooms, checked by its test on
// every `go test ./...`: which packages may import Wails, the model clients, the store, the
// agent loop and the window's session, and what the store, the model layer, its two clients
// and its leaf may import. A new import that breaks a rule fails with the arrow and the rule.
// Its second test scans the Go sentences the window shows for the wording rule
// (sentences_test.go). It has no code of its own.
package archtest
