package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/flow"
)

// The wait for the embedded platform's speech engines before a run with spoken turns: a slow start
// is announced, engines that fail are said to have failed and the run goes on (each spoken turn
// then says why), an interruption stops it, and typed flows never wait.
func TestWaitForSpeech(t *testing.T) {
	parse := func(turn string) *flow.Flow {
		f, err := flow.Parse([]byte("name: w\nlang: en\nturns:\n  - " + turn + "\n    expect: {action: OPEN_ASR}\n"))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	spoken, typed := parse("say: set an alarm"), parse("type: set an alarm")
	slowFailure := func(ctx context.Context) error {
		select {
		case <-time.After(700 * time.Millisecond):
			return errors.New("no language model")
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	var stderr bytes.Buffer
	if err := waitForSpeech(context.Background(), &platform{SpeechReady: slowFailure}, []*flow.Flow{spoken}, &stderr); err != nil {
		t.Fatalf("engines that fail stopped the run: %v", err)
	}
	if got := stderr.String(); !strings.Contains(got, "starting the speech engines") ||
		!strings.Contains(got, "the speech engines did not start: no language model") {
		t.Errorf("stderr %q", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitForSpeech(ctx, &platform{SpeechReady: slowFailure}, []*flow.Flow{spoken}, &stderr); !errors.Is(err, context.Canceled) {
		t.Errorf("an interrupted wait gave %v, want context.Canceled", err)
	}

	called := false
	stderr.Reset()
	ready := func(context.Context) error { called = true; return nil }
	if err := waitForSpeech(context.Background(), &platform{SpeechReady: ready}, []*flow.Flow{typed}, &stderr); err != nil || called || stderr.Len() > 0 {
		t.Errorf("a typed flow: err %v, waited %v, stderr %q", err, called, stderr.String())
	}
}
