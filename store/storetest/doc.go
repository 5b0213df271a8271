// Package storetest holds what the tests of the store and of its users need to make the
// disk under a database misbehave for real, and to write the files other processes leave
// behind (a newer schema, a file killed before its first commit). It is imported by tests
// only.
package storetest
