package ollamatest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// GGUF value types (GGUF v3).
const (
	ggufUint32  = 4
	ggufInt32   = 5
	ggufFloat32 = 6
	ggufBool    = 7
	ggufString  = 8
	ggufArray   = 9
)

// llama.cpp token types, as stored in tokenizer.ggml.token_type.
const (
	tokenUnknown     int32 = 2
	tokenControl     int32 = 3
	tokenUserDefined int32 = 4
	tokenByte        int32 = 6
)

const ggufAlignment = 32

// WriteGGUF writes the scripted model of scripts to w: a one-block llama whose greedy output
// after each marker is that marker's script (see the package comment for how it works).
func WriteGGUF(w io.Writer, scripts Scripts) error {
	return Model{Scripts: scripts}.writeGGUF(w)
}

// writeGGUF writes m's GGUF: its scripts, and the vision key when m has [Model.Vision].
func (m Model) writeGGUF(w io.Writer) error {
	v, err := compile(m.Scripts)
	if err != nil {
		return err
	}
	v.vision = m.Vision
	return v.writeGGUF(w)
}

// tensor is one F32 tensor of the file: its dims (fastest-varying first, as GGUF lists them)
// and a function filling its data, row by row, so the file is streamed without holding it.
type tensor struct {
	name string
	dims []uint64
	// set reports the value at flat index i; nil means all zeros, ones means all ones.
	set  func(i uint64) float32
	ones bool
}

func (t tensor) elements() uint64 {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	return n
}

func alignUp(n, a uint64) uint64 { return (n + a - 1) / a * a }

// dimensions of the scripted model: the embedding is one-hot, so it is at least as long as
// the vocabulary; heads are 32 wide; the feed-forward block is minimal (its weights are zero).
func (v *vocab) dimensions() (embd, heads, ff uint64) {
	embd = alignUp(uint64(len(v.texts)), 32)
	return embd, embd / 32, 32
}

func (v *vocab) tensors() []tensor {
	embd, _, ff := v.dimensions()
	n := uint64(len(v.texts))
	oneHot := func(i uint64) float32 { // token_embd: row t is e_t
		if i/embd == i%embd {
			return 1
		}
		return 0
	}
	chain := func(i uint64) float32 { // output: row next(t) has a one in column t
		row, col := i/embd, i%embd
		if col < n && uint64(v.next[col]) == row {
			return 1
		}
		return 0
	}
	return []tensor{
		{name: "token_embd.weight", dims: []uint64{embd, n}, set: oneHot},
		{name: "blk.0.attn_norm.weight", dims: []uint64{embd}, ones: true},
		{name: "blk.0.attn_q.weight", dims: []uint64{embd, embd}},
		{name: "blk.0.attn_k.weight", dims: []uint64{embd, embd}},
		{name: "blk.0.attn_v.weight", dims: []uint64{embd, embd}},
		{name: "blk.0.attn_output.weight", dims: []uint64{embd, embd}},
		{name: "blk.0.ffn_norm.weight", dims: []uint64{embd}, ones: true},
		{name: "blk.0.ffn_gate.weight", dims: []uint64{embd, ff}},
		{name: "blk.0.ffn_up.weight", dims: []uint64{embd, ff}},
		{name: "blk.0.ffn_down.weight", dims: []uint64{ff, embd}},
		{name: "output_norm.weight", dims: []uint64{embd}, ones: true},
		{name: "output.weight", dims: []uint64{embd, n}, set: chain},
	}
}

// ggufWriter writes little-endian GGUF fields and remembers the first error.
type ggufWriter struct {
	w   *bufio.Writer
	n   uint64
	err error
}

func (g *ggufWriter) raw(p []byte) {
	if g.err != nil {
		return
	}
	var k int
	k, g.err = g.w.Write(p)
	g.n += uint64(k)
}

func (g *ggufWriter) u32(x uint32) { g.raw(binary.LittleEndian.AppendUint32(nil, x)) }
func (g *ggufWriter) u64(x uint64) { g.raw(binary.LittleEndian.AppendUint64(nil, x)) }
func (g *ggufWriter) str(s string) { g.u64(uint64(len(s))); g.raw([]byte(s)) }

func (g *ggufWriter) pad() {
	if r := alignUp(g.n, ggufAlignment) - g.n; r > 0 {
		g.raw(make([]byte, r))
	}
}

func (g *ggufWriter) kv(key string, value any) {
	g.str(key)
	switch x := value.(type) {
	case uint32:
		g.u32(ggufUint32)
		g.u32(x)
	case float32:
		g.u32(ggufFloat32)
		g.u32(math.Float32bits(x))
	case bool:
		g.u32(ggufBool)
		if x {
			g.raw([]byte{1})
		} else {
			g.raw([]byte{0})
		}
	case string:
		g.u32(ggufString)
		g.str(x)
	case []string:
		g.u32(ggufArray)
		g.u32(ggufString)
		g.u64(uint64(len(x)))
		for _, s := range x {
			g.str(s)
		}
	case []float32:
		array32(g, ggufFloat32, x, math.Float32bits)
	case []int32:
		array32(g, ggufInt32, x, func(i int32) uint32 { return uint32(i) })
	default:
		g.err = fmt.Errorf("gguf: unsupported value type %T for %s", value, key)
	}
}

// array32 writes an array of 32-bit values of GGUF type typ, bits giving each one's bits.
func array32[T any](g *ggufWriter, typ uint32, xs []T, bits func(T) uint32) {
	g.u32(ggufArray)
	g.u32(typ)
	g.u64(uint64(len(xs)))
	for _, x := range xs {
		g.u32(bits(x))
	}
}

// ggufKV is one key and value of a GGUF file's header.
type ggufKV struct {
	key   string
	value any
}

func (v *vocab) writeGGUF(out io.Writer) error {
	embd, heads, ff := v.dimensions()
	kvs := []ggufKV{
		{"general.architecture", "llama"},
		{"general.name", "scripted"},
		{"general.file_type", uint32(0)}, // all F32
		{"general.alignment", uint32(ggufAlignment)},
		{"llama.block_count", uint32(1)},
		{"llama.context_length", uint32(32768)},
		{"llama.embedding_length", uint32(embd)},
		{"llama.feed_forward_length", uint32(ff)},
		{"llama.attention.head_count", uint32(heads)},
		{"llama.attention.head_count_kv", uint32(heads)},
		{"llama.rope.dimension_count", uint32(embd / heads)},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.vocab_size", uint32(len(v.texts))},
		{"tokenizer.ggml.model", "llama"},
		{"tokenizer.ggml.tokens", v.texts},
		{"tokenizer.ggml.scores", make([]float32, len(v.texts))},
		{"tokenizer.ggml.token_type", v.types},
		{"tokenizer.ggml.unknown_token_id", uint32(unkID)},
		{"tokenizer.ggml.bos_token_id", uint32(bosID)},
		{"tokenizer.ggml.eos_token_id", uint32(eosID)},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
	if v.vision {
		// what the server's capability check looks for; 0 keeps its vision graph estimate out
		kvs = append(kvs, ggufKV{"llama.vision.block_count", uint32(0)})
	}
	ts := v.tensors()

	g := &ggufWriter{w: bufio.NewWriterSize(out, 1<<16)}
	g.raw([]byte("GGUF"))
	g.u32(3)
	g.u64(uint64(len(ts)))
	g.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		g.kv(kv.key, kv.value)
	}
	var offset uint64
	for _, t := range ts {
		g.str(t.name)
		g.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			g.u64(d)
		}
		g.u32(0) // F32
		g.u64(offset)
		offset = alignUp(offset+4*t.elements(), ggufAlignment)
	}
	g.pad()
	buf := make([]byte, 0, 4*embd)
	for _, t := range ts {
		g.pad() // every tensor starts aligned (relative offsets above assume the data section is too)
		n := t.elements()
		if t.set == nil && !t.ones { // most of the file: zero weights, written in blocks
			zeros := make([]byte, 4*embd)
			for left := 4 * n; left > 0; left -= min(left, uint64(len(zeros))) {
				g.raw(zeros[:min(left, uint64(len(zeros)))])
			}
			continue
		}
		for i := uint64(0); i < n; i++ {
			var f float32
			switch {
			case t.ones:
				f = 1
			case t.set != nil:
				f = t.set(i)
			}
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(f))
			if len(buf) == cap(buf) {
				g.raw(buf)
				buf = buf[:0]
			}
		}
		g.raw(buf)
		buf = buf[:0]
	}
	if g.err != nil {
		return fmt.Errorf("writing GGUF: %w", g.err)
	}
	if err := g.w.Flush(); err != nil {
		return fmt.Errorf("writing GGUF: %w", err)
	}
	return nil
}
