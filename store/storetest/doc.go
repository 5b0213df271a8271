// Package storetest holds what the tests of the store and of its users need to make the
// disk under a database misbehave for real. It is imported by tests only.
package storetest
