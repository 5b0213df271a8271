package agentloop

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"prototyper/events"
	"prototyper/store"
)

// unreadableSettings fails every read of the settings while armed, like a database that
// cannot be read: the start of a run fails before it changes anything.
type unreadableSettings struct {
	*store.DB
	armed atomic.Bool
}

var errSettingsUnreadable = errors.New("the settings cannot be read")

func (s *unreadableSettings) Settings() (store.Settings, error) {
	if s.armed.Load() {
		return store.Settings{}, errSettingsUnreadable
	}
	return s.DB.Settings()
}

// answerPaths are the two ways a user answers what a paused chat waits for: in the window
// (the agent's own methods, the run resumed in the background) and with `prototyper run
// --chat ID` (RunOnce, the run resumed and waited for).
var summaryAnswerPaths = []struct {
	name   string
	answer func(a *Agent, chatID string) error
}{
	{"window", func(a *Agent, chatID string) error {
		return a.AnswerSummary(chatID, store.SummaryChoiceSummarize)
	}},
	{"run", func(a *Agent, chatID string) error {
		_, err := a.RunOnce(context.Background(), chatID, "", RunOptions{Summarize: store.SummarizeAlways})
		return err
	}},
}

func TestASummaryAnswerIsKeptAndSaidOnlyOnceTheRunItResumesHasStarted(t *testing.T) {
	for _, path := range summaryAnswerPaths {
		t.Run(path.name, func(t *testing.T) {
			settings := &unreadableSettings{}
			a, _, db, rec, _, chatID := summaryHarnessWith(t, answer("A summary."), func(c *Config) {
				settings.DB = c.Store.(*store.DB)
				c.Store = settings
			})
			offer := pausedOnOffer(t, a, rec, chatID)

			// an answer that starts nothing leaves the offer waiting, unanswered
			settings.armed.Store(true)
			if err := path.answer(a, chatID); !errors.Is(err, errSettingsUnreadable) {
				t.Fatalf("an answer whose run cannot start: %v", err)
			}
			if kept := offerOf(t, db, offer.RunID); kept.Choice != "" {
				t.Fatalf("an answer that started nothing was kept: %+v", kept)
			}
			if said := ofType(rec.events(), events.SummaryAnswered); len(said) != 0 {
				t.Fatalf("an answer that started nothing was said: %s", summary(said))
			}
			if a.Phase(chatID) != events.PhaseAwaitingSummary {
				t.Fatalf("after an answer that started nothing the chat is %s", a.Phase(chatID))
			}

			// answered again, it is kept and said after the run it resumes has started
			settings.armed.Store(false)
			if err := path.answer(a, chatID); err != nil {
				t.Fatal(err)
			}
			evs := rec.waitFor(t, "the resumed run", finished(3))
			resumed := slices.IndexFunc(evs, func(e events.Event) bool {
				return e.Type == events.RunStarted && e.Trigger == events.TriggerSummary
			})
			said := slices.IndexFunc(evs, func(e events.Event) bool { return e.Type == events.SummaryAnswered })
			if resumed < 0 || said < resumed {
				t.Fatalf("the answer said at %d, the resumed run started at %d: %v", said, resumed, typesOf(evs))
			}
			if kept := offerOf(t, db, offer.RunID); kept.Choice != store.SummaryChoiceSummarize {
				t.Fatalf("the answer kept with the offer: %+v", kept)
			}
		})
	}
}
