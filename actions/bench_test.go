package actions

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkDecodeBaseline is plain json.Unmarshal of SET_TIMER's data into a map: the floor
// the handlers' validation is measured against.
func BenchmarkDecodeBaseline(b *testing.B) {
	data := []byte(`{"duration":300000,"label":"pasta"}`)
	for b.Loop() {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDispatchInMemory is a whole SET_TIMER (decode, validate, schedule, event) with the
// state in memory, then its cancellation.
func BenchmarkDispatchInMemory(b *testing.B) {
	r, err := New(Config{Clock: NewManualClock(start), Opener: &recordingOpener{}, Notifier: &recordingNotifier{},
		Location: time.UTC, Logger: quietLogger(), EventBuffer: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	a := Action{Code: "SET_TIMER", Data: []byte(`{"duration":300000,"label":"pasta"}`)}
	for b.Loop() {
		if o := r.Dispatch(context.Background(), a, 1); o.Kind != Done {
			b.Fatal(o.Err)
		}
		_ = r.Cancel(r.Scheduled()[0].ID)
		for len(r.Events()) > 0 {
			<-r.Events()
		}
	}
}

// BenchmarkDispatchPersisted is BenchmarkDispatchInMemory with the state file written
// atomically (temp file, fsync, rename) on each change, with ten other entries scheduled.
func BenchmarkDispatchPersisted(b *testing.B) {
	r, err := New(Config{StatePath: filepath.Join(b.TempDir(), "schedule.json"), Clock: NewManualClock(start),
		Opener: &recordingOpener{}, Notifier: &recordingNotifier{}, Location: time.UTC, Logger: quietLogger(), EventBuffer: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	for i := 0; i < 10; i++ {
		r.Dispatch(context.Background(), Action{Code: "SET_TIMER", Data: []byte(`{"duration":9000000}`)}, 1)
	}
	a := Action{Code: "SET_TIMER", Data: []byte(`{"duration":300000,"label":"pasta"}`)}
	for b.Loop() {
		if o := r.Dispatch(context.Background(), a, 1); o.Kind != Done {
			b.Fatal(o.Err)
		}
		_ = r.Cancel(r.Scheduled()[0].ID)
		for len(r.Events()) > 0 {
			<-r.Events()
		}
	}
}
