package sandbox

import (
	"fmt"
	"unicode/utf8"
)

// Stream names where a chunk of output came from.
type Stream string

// The two streams of a command.
const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// Chunk is one read from a command's stdout or stderr, delivered as it comes.
type Chunk struct {
	Stream Stream
	// Data is valid only during the call of the [OutputFunc]; copy it to keep it.
	Data []byte
}

// OutputFunc receives the command's output, one call per chunk, in the order each stream
// produced it (the two streams interleave as they were read). Returning an error stops the
// command as a cancelled context would; [Run] then returns that error.
type OutputFunc func(Chunk) error

// Output is the bounded copy of a command's stdout and stderr interleaved in the order
// read, kept for the model: the first and the last bytes, the middle counted. Its memory is
// at most head+tail bytes however much the command prints.
type Output struct {
	Head    []byte // the first bytes
	Tail    []byte // the last bytes, after the omitted middle
	Omitted int64  // bytes dropped between Head and Tail
	Total   int64  // bytes the command printed
}

// Text is the output as one string for a model: the head, a line saying how much was cut,
// the tail. Cuts fall on UTF-8 boundaries.
func (o Output) Text() string {
	if o.Omitted == 0 {
		return string(o.Head) + string(o.Tail)
	}
	head, tail := o.Head, o.Tail
	for len(head) > 0 && !utf8.Valid(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	return fmt.Sprintf("%s\n[… %d bytes of output omitted …]\n%s", head, o.Omitted+int64(len(o.Head)-len(head))+int64(len(o.Tail)-len(tail)), tail)
}

// boundedOutput keeps the first head bytes and a ring of the last tail bytes.
type boundedOutput struct {
	head    []byte
	ring    []byte // capacity tail; written circularly once full
	start   int    // index of the oldest byte in ring once full
	full    bool
	headCap int
	total   int64
}

func newBoundedOutput(head, tail int) *boundedOutput {
	return &boundedOutput{head: make([]byte, 0, head), ring: make([]byte, 0, tail), headCap: head}
}

func (b *boundedOutput) write(p []byte) {
	b.total += int64(len(p))
	if n := min(b.headCap-len(b.head), len(p)); n > 0 {
		b.head = append(b.head, p[:n]...)
		p = p[n:]
	}
	c := cap(b.ring)
	if c == 0 || len(p) == 0 {
		return
	}
	if len(p) >= c { // only the last c bytes can survive
		b.ring = append(b.ring[:0], p[len(p)-c:]...)
		b.start, b.full = 0, true
		return
	}
	if !b.full {
		n := min(c-len(b.ring), len(p))
		b.ring = append(b.ring, p[:n]...)
		p = p[n:]
		if len(b.ring) == c {
			b.full = true
		}
	}
	for len(p) > 0 { // overwrite the oldest bytes
		n := copy(b.ring[b.start:], p)
		p = p[n:]
		b.start = (b.start + n) % c
	}
}

func (b *boundedOutput) result() Output {
	tail := make([]byte, 0, len(b.ring))
	tail = append(tail, b.ring[b.start:]...)
	tail = append(tail, b.ring[:b.start]...)
	kept := int64(len(b.head) + len(tail))
	return Output{Head: append([]byte(nil), b.head...), Tail: tail, Omitted: b.total - kept, Total: b.total}
}
