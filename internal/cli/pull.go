package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"prototyper/model/ollama"
)

// pullCommand is `prototyper pull NAME`: it pulls a model through the Ollama server, with a
// progress bar per layer on a terminal and one line per progress step otherwise.
func pullCommand(ctx context.Context, args []string, io IO) int {
	client, common, pos, code, done := startOllamaCommand("pull",
		usageLines("pull")+"\nPulls a model (e.g. "+ollama.RecommendedModel().Name+", the one recommended to start with) onto the Ollama server.\n",
		args, io, func(pos []string) string {
			if len(pos) != 1 {
				return "name one model, e.g. `prototyper pull " + ollama.RecommendedModel().Name + "`"
			}
			return ""
		})
	if done {
		return code
	}
	name := pos[0]
	local, ok := startCommandOllama(ctx, io, "pull", client.URL(), common)
	if !ok {
		return ExitFailed
	}
	defer local.stop()

	view := newPullView(io.Out, isTerminal(io.Out), time.Now)
	update := view.update
	if view.tty {
		// the bars redraw as often as the window's progress does
		update = ollama.ThrottlePull(update)
	}
	err := client.Pull(ctx, name, update)
	view.finish()
	var se *ollama.StreamError
	switch {
	case err == nil:
		fmt.Fprintf(io.Out, "Pulled %s.\n", Sanitize(name))
		return ExitCompleted
	case errors.Is(err, ollama.ErrRegistryUnreachable):
		printError(io.Err, "pull", err)
		return ExitFailed
	case errors.As(err, &se) && strings.Contains(se.Message, "file does not exist"):
		fmt.Fprintf(io.Err, "prototyper pull: there is no model %q in the Ollama library — check the name at https://ollama.com/library\n", name)
		return ExitFailed
	case errors.As(err, &se):
		fmt.Fprintf(io.Err, "prototyper pull: Ollama could not pull %s: %s — check the name (https://ollama.com/library) and the server's internet connection\n",
			cell(name), cell(se.Message))
		return ExitFailed
	}
	return ollamaFailure(ctx, io, "pull", err)
}

// layerProgress is one layer's download.
type layerProgress struct {
	digest           string
	total, completed int64
	speed            float64 // bytes per second, smoothed
	at               time.Time
	lastPercent      int // the last percentage printed on a plain writer
}

// pullView renders the progress of a pull: on a terminal, a block of bars redrawn in place
// (fed through [ollama.ThrottlePull], at most ten times a second); elsewhere, a line for
// every status and every whole percent.
type pullView struct {
	out    io.Writer
	tty    bool
	now    func() time.Time
	layers []*layerProgress
	status string
	drawn  int // lines of the block on screen
	width  int
}

func newPullView(out io.Writer, tty bool, now func() time.Time) *pullView {
	v := &pullView{out: out, tty: tty, now: now, width: 80}
	if f, ok := out.(*os.File); ok && tty {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 20 {
			v.width = w
		}
	}
	return v
}

func (v *pullView) update(p ollama.PullProgress) error {
	now := v.now()
	// the server's words go to the terminal: nothing in them may move the cursor
	p.Status, p.Digest = cell(p.Status), cell(p.Digest)
	if p.Digest != "" && p.Total > 0 {
		l := v.layer(p.Digest, now)
		if dt := now.Sub(l.at).Seconds(); dt > 0 && p.Completed >= l.completed {
			inst := float64(p.Completed-l.completed) / dt
			if l.speed == 0 {
				l.speed = inst
			} else {
				l.speed = 0.7*l.speed + 0.3*inst
			}
		}
		l.total, l.completed, l.at = p.Total, p.Completed, now
		if v.tty {
			v.draw()
			return nil
		}
		if pct := percent(l.completed, l.total); pct != l.lastPercent {
			l.lastPercent = pct
			line := fmt.Sprintf("%s %3d%% %s/%s %s", shortDigest(l.digest), pct, humanBytes(l.completed), humanBytes(l.total), speed(l.speed))
			fmt.Fprintln(v.out, strings.TrimRight(line, " "))
		}
		return nil
	}
	if p.Status == v.status {
		return nil
	}
	v.status = p.Status
	if v.tty {
		v.draw()
	} else {
		fmt.Fprintln(v.out, p.Status)
	}
	return nil
}

func (v *pullView) layer(digest string, now time.Time) *layerProgress {
	for _, l := range v.layers {
		if l.digest == digest {
			return l
		}
	}
	l := &layerProgress{digest: digest, at: now, lastPercent: -1}
	v.layers = append(v.layers, l)
	return l
}

// draw redraws the block in place.
func (v *pullView) draw() {
	var b strings.Builder
	if v.drawn > 0 {
		fmt.Fprintf(&b, "\x1b[%dA", v.drawn)
	}
	lines := 0
	for _, l := range v.layers {
		b.WriteString("\r\x1b[2K")
		b.WriteString(v.bar(l))
		b.WriteByte('\n')
		lines++
	}
	// The status line, unless it only repeats a layer's "pulling <digest>".
	if v.status != "" && (!strings.HasPrefix(v.status, "pulling ") || len(v.layers) == 0) {
		b.WriteString("\r\x1b[2K")
		b.WriteString(v.status)
		b.WriteByte('\n')
		lines++
	}
	// Clear what a previous, taller block left behind.
	for i := lines; i < v.drawn; i++ {
		b.WriteString("\r\x1b[2K\n")
	}
	if v.drawn > lines {
		fmt.Fprintf(&b, "\x1b[%dA", v.drawn-lines)
	}
	v.drawn = lines
	_, _ = io.WriteString(v.out, b.String())
}

// bar renders "pulling 7df6b6e09427  45% ▕████      ▏ 235 MB/522 MB  12 MB/s  24s".
func (v *pullView) bar(l *layerProgress) string {
	pct := percent(l.completed, l.total)
	head := fmt.Sprintf("pulling %s %3d%% ", shortDigest(l.digest), pct)
	tail := fmt.Sprintf(" %s/%s  %s", humanBytes(l.completed), humanBytes(l.total), speed(l.speed))
	if l.speed > 0 && l.completed < l.total {
		eta := time.Duration(float64(l.total-l.completed) / l.speed * float64(time.Second)).Round(time.Second)
		tail += "  " + eta.String()
	}
	// A fixed width, so that the bars of all layers line up.
	width := v.width - 70
	if width < 10 {
		width = 10
	}
	if width > 40 {
		width = 40
	}
	fill := width * pct / 100
	return strings.TrimRight(head+"▕"+strings.Repeat("█", fill)+strings.Repeat(" ", width-fill)+"▏"+tail, " ")
}

// finish leaves the cursor below the block.
func (v *pullView) finish() {
	if v.tty && len(v.layers) > 0 {
		v.draw()
	}
}

func percent(done, total int64) int {
	if total <= 0 {
		return 0
	}
	p := int(done * 100 / total)
	if p > 100 {
		p = 100
	}
	return p
}

func speed(bps float64) string {
	if bps <= 0 {
		return ""
	}
	return humanBytes(int64(bps)) + "/s"
}

func shortDigest(d string) string {
	d = strings.TrimPrefix(d, "sha256:")
	if len(d) > 12 {
		d = d[:12]
	}
	return d
}
