package ollama

import (
	"fmt"
	"net"
	"prototyper/model/vocab"
	"strings"
)

// ContextFit is the context size chosen for a model on this machine, and why when the
// machine's memory chose it.
type ContextFit struct {
	NumCtx int `json:"numCtx"`
	// Why says it to the user ("16K tokens: the most …"); "" when the size asked for fits.
	Why string `json:"why,omitempty"`
}

// MinFitContext is the least context a fit chooses: below it the agent's system prompt and
// tools leave no room for a conversation.
const MinFitContext = 4096

// FitContext is the largest context up to want (a multiple of 1024 tokens, at least
// [MinFitContext]) whose KV cache (kvPerToken bytes a token) fits beside the model's weights
// in free memory, keeping room to spare: 1 GiB and a tenth of what is free, for the runtime's
// buffers and everything else the machine runs. It keeps want when anything is unknown (0).
func FitContext(model string, want int, weights, kvPerToken, free int64) ContextFit {
	if want <= 0 || weights <= 0 || kvPerToken <= 0 || free <= 0 {
		return ContextFit{NumCtx: want}
	}
	room := free - weights - gb - free/10
	if room >= int64(want)*kvPerToken {
		return ContextFit{NumCtx: want}
	}
	n := int(max(room, 0)/kvPerToken) / 1024 * 1024
	if n < MinFitContext {
		n = min(MinFitContext, want)
		return ContextFit{NumCtx: n, Why: fmt.Sprintf("%s tokens: %s barely fits the %s of memory this machine has free; it may answer slowly",
			vocab.TokenCount(n), model, memoryText(free))}
	}
	return ContextFit{NumCtx: n, Why: fmt.Sprintf("%s tokens: the most the %s of memory this machine has free holds for %s with room to spare",
		vocab.TokenCount(n), memoryText(free), model)}
}

// OnThisMachine reports whether the server is on this computer's loopback: only then is this
// machine's memory the server's.
func (c *Client) OnThisMachine() bool {
	host := c.base.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
