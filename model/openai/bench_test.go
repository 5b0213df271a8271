package openai

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
)

// BenchmarkDecodeSSE decodes a stream of 2,000 events (thinking, then content), the hot path
// of every answer; compare with the native client's BenchmarkDecode… figures.
func BenchmarkDecodeSSE(b *testing.B) {
	var buf strings.Builder
	for range 1000 {
		buf.WriteString(chunk(`{"reasoning_content":" thinking a little"}`))
	}
	for range 1000 {
		buf.WriteString(chunk(`{"content":" and a word"}`))
	}
	buf.WriteString(finish + "data: [DONE]\n\n")
	data := []byte(buf.String())
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		s := httpstream.NewStream(ctx, io.NopCloser(bytes.NewReader(data)))
		d := &decoder{fn: func(Event) error { return nil }, think: vocab.ReasoningSplitter{Leading: true}}
		if err := d.read(s, 16<<20); err != nil || !d.done {
			b.Fatal(err)
		}
		s.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2001), "ns/event")
}
