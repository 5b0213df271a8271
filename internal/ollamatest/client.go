package ollamatest

import (
	"context"
	"net/url"
	"testing"
	"time"
)

// BaseURL is the address of [Get]'s server, for a client under test.
func BaseURL(tb testing.TB) *url.URL {
	tb.Helper()
	u, err := url.Parse(Get(tb).URL())
	if err != nil {
		tb.Fatal(err)
	}
	return u
}

// Context bounds one exchange of a test with the server: it ends after two minutes, or
// with the test.
func Context(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	tb.Cleanup(cancel)
	return ctx
}
