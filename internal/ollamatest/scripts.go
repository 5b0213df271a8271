package ollamatest

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Scripts maps a marker (the trail of message roles so far, one letter per message: U user,
// A assistant, T tool, S system — e.g. "U", "UAT", "UATAT"; and for a model with
// [Model.Vision], I for each image of the message before) to the pieces the model emits, in
// order, after a prompt ending in that marker. EOS follows the last piece.
//
// The marker [Fallback] ("*") answers every conversation whose trail has no script of its own.
type Scripts map[string][]string

// Fallback is the marker of the script that answers a conversation whose trail has no script.
// Without one, such a conversation gets [Unscripted] as its whole answer.
const Fallback = "*"

// Unscripted is the answer of a model to a conversation its scripts do not cover, so that a
// test that forgot a marker sees why instead of an empty reply.
const Unscripted = "(no script for this conversation)"

// ErrBadScripts is returned (wrapped) for scripts that cannot become a model: a marker with a
// letter other than U, A, T, S, I, an empty piece, or a piece containing the marker bracket "[[".
var ErrBadScripts = errors.New("ollamatest: invalid scripts")

// Fixed token ids at the head of every scripted vocabulary.
const (
	unkID = 0
	bosID = 1
	eosID = 2
)

// vocab is scripts compiled into a token chain: texts[i] is token i, next[i] the token the
// model emits after it (EOS for every token that is not on a script's path).
type vocab struct {
	texts   []string
	types   []int32
	next    []int
	markers []string            // sorted, without Fallback
	vision  bool                // the GGUF says the model sees images
	emitted map[string][]string // marker → the token texts it really emits
}

func markerText(marker string) string { return "[[" + marker + "]]" }

func validMarker(m string) bool {
	if m == Fallback {
		return true
	}
	if m == "" {
		return false
	}
	return strings.Trim(m, "UATSI") == ""
}

// compile turns scripts into a vocabulary. Markers are handled in sorted order; the first use
// of a piece keeps its text as one token, later uses are re-segmented (see [Segment]).
func compile(scripts Scripts) (*vocab, error) {
	v := &vocab{emitted: map[string][]string{}}
	taken := map[string]bool{}
	add := func(text string, typ int32) int {
		taken[text] = true
		v.texts = append(v.texts, text)
		v.types = append(v.types, typ)
		v.next = append(v.next, eosID)
		return len(v.texts) - 1
	}
	add("<unk>", tokenUnknown)
	add("<s>", tokenControl)
	add("</s>", tokenControl)
	for b := range 256 {
		add(fmt.Sprintf("<0x%02X>", b), tokenByte)
	}

	all := maps.Clone(scripts)
	if all == nil {
		all = Scripts{}
	}
	if _, ok := all[Fallback]; !ok {
		all[Fallback] = []string{Unscripted}
	}
	markers := slices.Sorted(maps.Keys(all))
	for _, m := range markers {
		if !validMarker(m) {
			return nil, fmt.Errorf("%w: marker %q: use the letters U, A, T, S (one per message), I (one per image) or %q", ErrBadScripts, m, Fallback)
		}
		for _, p := range all[m] {
			if p == "" {
				return nil, fmt.Errorf("%w: marker %q has an empty piece", ErrBadScripts, m)
			}
			if strings.Contains(p, "[[") {
				return nil, fmt.Errorf("%w: piece %q of marker %q contains %q, which is reserved for markers", ErrBadScripts, p, m, "[[")
			}
		}
		if m != Fallback {
			v.markers = append(v.markers, m)
		}
	}
	// Markers first, so that no piece can take a marker's text.
	ids := map[string]int{}
	for _, m := range markers {
		ids[m] = add(markerText(m), tokenUserDefined)
	}
	for _, m := range markers {
		prev := ids[m]
		var out []string
		for _, p := range all[m] {
			for _, part := range segment(p, taken) {
				id := add(part, tokenUserDefined)
				v.next[prev] = id
				prev = id
				out = append(out, part)
			}
		}
		v.next[prev] = eosID
		v.emitted[m] = out
	}
	return v, nil
}

// segment returns the token texts that emit p: p itself when it is free, else the split of p
// into two (then three) free parts with the longest first part, else p behind enough spaces
// to be free (the only case that changes the text).
func segment(p string, taken map[string]bool) []string {
	if !taken[p] {
		return []string{p}
	}
	var cuts []int // rune boundaries inside p
	for i := range p {
		if i > 0 {
			cuts = append(cuts, i)
		}
	}
	free := func(parts ...string) bool {
		for i, s := range parts {
			if taken[s] || slices.Contains(parts[:i], s) {
				return false
			}
		}
		return true
	}
	for _, i := range slices.Backward(cuts) {
		if free(p[:i], p[i:]) {
			return []string{p[:i], p[i:]}
		}
	}
	for _, i := range slices.Backward(cuts) {
		for _, j := range slices.Backward(cuts) {
			if j <= i {
				break
			}
			if free(p[:i], p[i:j], p[j:]) {
				return []string{p[:i], p[i:j], p[j:]}
			}
		}
	}
	s := p
	for taken[s] {
		s = " " + s
	}
	return []string{s}
}

// Segment returns the scripts as the model really emits them: every piece is one token, and a
// piece already used earlier (in marker order, then piece order) is re-segmented into parts
// that are still free, the longest first part first — a second "<think>" becomes "<think" +
// ">", a second "</think>" then "</thin" + "k>" (">" is taken) — because
// llama.cpp needs unique token texts and the chain needs one successor per token. The text is
// unchanged; only the chunk boundaries of repeats differ, which the server's tag and tool-call
// parsers do not see. A piece too short to split (a repeated "." or "\n") gets leading spaces.
//
// Tests that assert on the exact thinking or content chunks of a repeated piece compute them
// from Segment.
func Segment(scripts Scripts) (Scripts, error) {
	v, err := compile(scripts)
	if err != nil {
		return nil, err
	}
	out := Scripts{}
	for m, pieces := range v.emitted {
		if _, ok := scripts[m]; ok {
			out[m] = pieces
		}
	}
	return out, nil
}
