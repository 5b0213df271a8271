package httpstream

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestRetryAfterIsSecondsOrADateAndNothingElse(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for v, want := range map[string]time.Duration{
		"":     0,
		"7":    7 * time.Second,
		"-3":   0,
		"soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
	} {
		if got := ParseRetryAfter(v, now); got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, want %v", v, got, want)
		}
	}
}

var fast = Policy{Attempts: 3, MaxElapsed: time.Minute, Initial: time.Millisecond, MaxInterval: time.Millisecond}

func TestDoWaitsWhatTheServerAsksBetweenAttempts(t *testing.T) {
	busy := errors.New("busy")
	var retries []Retry
	calls := 0
	_, err := Do(context.Background(), fast, func() (*Stream, error) {
		calls++
		return nil, busy
	}, func(error) time.Duration { return 20 * time.Millisecond }, func(r Retry) error {
		retries = append(retries, r)
		return nil
	})
	if !errors.Is(err, busy) || calls != 3 {
		t.Fatalf("err %v after %d calls; want busy after 3", err, calls)
	}
	for i, r := range retries {
		if r.Attempt != i+2 || r.Delay != 20*time.Millisecond || !errors.Is(r.Err, busy) {
			t.Errorf("retry %d = %+v", i, r)
		}
	}
}

func TestDoStopsWhenTheServerAsksForMoreThanTheWaitAllowed(t *testing.T) {
	calls := 0
	p := fast
	p.MaxElapsed = time.Second
	_, err := Do(context.Background(), p, func() (*Stream, error) {
		calls++
		return nil, errors.New("busy")
	}, func(error) time.Duration { return time.Hour }, nil)
	if err == nil || calls != 1 {
		t.Fatalf("err %v after %d calls; want the first error, at once", err, calls)
	}
}

func TestAnErrorOfOnRetryStopsTheRetryingAndIsReturned(t *testing.T) {
	stop := errors.New("the sink is gone")
	calls := 0
	_, err := Do(context.Background(), fast, func() (*Stream, error) {
		calls++
		return nil, errors.New("busy")
	}, func(error) time.Duration { return 0 }, func(Retry) error { return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("err %v after %d calls; want %v after 1", err, calls, stop)
	}
}

func TestASilentServerEndsTheRequestWithTheFirstByteTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	timeout := errors.New("nothing for 50 ms")
	_, _, err := Send(context.Background(), srv.Client(), Request{Method: http.MethodGet, URL: srv.URL,
		FirstByte: 50 * time.Millisecond, FirstByteTimeout: timeout})
	if !errors.Is(err, timeout) {
		t.Fatalf("err = %v, want the first-byte timeout", err)
	}
}

// sendWithIdle sends a GET to srv whose read ends with idle once nothing new came for limit;
// the caller closes the stream before srv, whose handler waits for the request to end.
func sendWithIdle(t *testing.T, srv *httptest.Server, limit time.Duration, idle error) *Stream {
	t.Helper()
	_, s, err := Send(context.Background(), srv.Client(), Request{Method: http.MethodGet, URL: srv.URL,
		Idle: limit, IdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestALineThenSilenceEndsTheReadWithTheIdleTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("one\n"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	idle := errors.New("silent for 50 ms")
	s := sendWithIdle(t, srv, 50*time.Millisecond, idle)
	defer s.Close()
	buf := make([]byte, 4)
	if _, err := s.Body.Read(buf); err != nil {
		t.Fatal(err)
	}
	s.LineArrived()
	_, err := s.Body.Read(buf)
	if err = s.Why(err); !errors.Is(err, idle) {
		t.Fatalf("err = %v, want the idle timeout", err)
	}
}

func TestNothingListeningIsARefusedTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, _, err := Send(context.Background(), http.DefaultClient, Request{Method: http.MethodGet, URL: url})
	var te *TransportError
	if !errors.As(err, &te) || !te.Refused {
		t.Fatalf("err = %v, want a refused TransportError", err)
	}
}

func TestKeepAlivesDoNotReArmTheIdleTimer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for {
			w.Write([]byte("\n"))
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	idle := errors.New("nothing new for 100 ms")
	s := sendWithIdle(t, srv, 100*time.Millisecond, idle)
	defer s.Close()
	s.Begin() // the answer began; what follows adds nothing to it
	_, err := io.Copy(io.Discard, s.Body)
	if err = s.Why(err); !errors.Is(err, idle) {
		t.Fatalf("err = %v, want the idle timeout", err)
	}
}

func TestADeadlinePassingBetweenAttemptsSaysWhyTheLastOneFailed(t *testing.T) {
	refused := errors.New("nothing answers at http://127.0.0.1:9/v1 — start the model server")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	slow := Policy{Attempts: 5, MaxElapsed: 10 * time.Hour, Initial: time.Hour, MaxInterval: time.Hour}
	_, err := Do(ctx, slow, func() (*Stream, error) { return nil, refused },
		func(error) time.Duration { return 0 }, nil)
	if err == nil || err.Error() != refused.Error() {
		t.Fatalf("err %v; want the last attempt's sentence %q", err, refused)
	}
	if !errors.Is(err, refused) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v matches neither the attempt's error nor the deadline", err)
	}
}

func TestACancelledRequestReturnsTheCancellation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	slow := Policy{Attempts: 5, MaxElapsed: 10 * time.Hour, Initial: time.Hour, MaxInterval: time.Hour}
	_, err := Do(ctx, slow, func() (*Stream, error) { return nil, errors.New("busy") },
		func(error) time.Duration { return 0 }, func(Retry) error { cancel(); return nil })
	if !errors.Is(err, context.Canceled) || err.Error() != context.Canceled.Error() {
		t.Fatalf("err %v; want context.Canceled", err)
	}
}
