package speakers

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/harkhq/hark/server/speech"
	"github.com/harkhq/hark/server/store/storetest"
)

func open(t *testing.T, dir string, max int) *Store {
	t.Helper()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	s, err := Open(context.Background(), db, max, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// A profile saved by one process is what the next one loads; a save not
// yet written is what Load gives meanwhile; only signed-in users' profiles
// are kept; the table keeps the most recently updated ones.
func TestProfilesOutliveTheProcess(t *testing.T) {
	dir := t.TempDir()
	want := speech.Profile{Mean: []float32{1.5, -2}, MeanFrames: 300, MeanWarp: 1.12,
		WarpScores: []float64{-41, -40}, WarpFrames: 600, Transform: "1\n1\n2\n", TransformWarp: 1.12, TransformFrom: 40}
	s := open(t, dir, 2)
	s.Save("user/1/7/16000", want)
	s.Save("conversation/1/99/16000", want)
	if got, err := s.Load("user/1/7/16000"); err != nil || got == nil || got.Transform != want.Transform {
		t.Fatalf("pending profile: %+v, %v", got, err)
	}
	s.Close()

	s = open(t, dir, 2)
	got, err := s.Load("user/1/7/16000")
	if err != nil || got == nil {
		t.Fatalf("after a restart: %+v, %v", got, err)
	}
	if !slices.Equal(got.Mean, want.Mean) || got.MeanFrames != 300 || got.MeanWarp != 1.12 || !slices.Equal(got.WarpScores, want.WarpScores) ||
		got.WarpFrames != 600 || got.Transform != want.Transform || got.TransformWarp != 1.12 || got.TransformFrom != 40 {
		t.Fatalf("after a restart: %+v, want %+v", got, want)
	}
	if got, err := s.Load("conversation/1/99/16000"); got != nil || err != nil {
		t.Fatalf("a conversation's profile was kept: %+v, %v", got, err)
	}
	if got, err := s.Load("user/1/8/16000"); got != nil || err != nil {
		t.Fatalf("an unknown speaker: %+v, %v", got, err)
	}

	// Two more speakers, each in a later millisecond: the first one goes
	// when the next process sweeps.
	for _, key := range []string{"user/1/8/16000", "user/1/9/8000"} {
		time.Sleep(2 * time.Millisecond)
		s.Save(key, speech.Profile{MeanFrames: 1, Mean: []float32{1}})
		s.Close()
		s = open(t, dir, 2)
	}
	s.Save("user/1/9/8000", speech.Profile{MeanFrames: 2, Mean: []float32{1}}) // wakes the writer, which sweeps first time
	s.Close()
	s = open(t, dir, 2)
	for key, kept := range map[string]bool{"user/1/7/16000": false, "user/1/8/16000": true, "user/1/9/8000": true} {
		if got, err := s.Load(key); err != nil || (got != nil) != kept {
			t.Errorf("%s: %+v, %v; want kept %v", key, got, err, kept)
		}
	}
}

// A profile stays what Load gives until a commit holds it: a write that
// fails loses nothing and is tried again with the next save.
func TestAFailedWriteKeepsTheProfile(t *testing.T) {
	dir := t.TempDir()
	db, err := storetest.Open(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	logged := make(chan struct{}, 8)
	log := slog.New(handlerFunc(func(r slog.Record) {
		if r.Message == "keep speaker profiles" {
			logged <- struct{}{}
		}
	}))
	s, err := Open(context.Background(), db, 10, log)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`ALTER TABLE speech_speakers RENAME TO speech_speakers_aside`); err != nil {
		t.Fatal(err)
	}
	first := speech.Profile{Mean: []float32{3}, MeanFrames: 7}
	s.Save("user/1/7/16000", first)
	select {
	case <-logged:
	case <-time.After(30 * time.Second):
		t.Fatal("the write did not fail")
	}
	if got, err := s.Load("user/1/7/16000"); err != nil || got == nil || got.MeanFrames != 7 {
		t.Fatalf("after a failed write: %+v, %v", got, err)
	}
	if _, err := db.Exec(`ALTER TABLE speech_speakers_aside RENAME TO speech_speakers`); err != nil {
		t.Fatal(err)
	}
	s.Save("user/1/8/16000", speech.Profile{Mean: []float32{4}, MeanFrames: 9})
	s.Close()

	s = open(t, dir, 10)
	for key, frames := range map[string]int{"user/1/7/16000": 7, "user/1/8/16000": 9} {
		if got, err := s.Load(key); err != nil || got == nil || got.MeanFrames != frames {
			t.Errorf("%s after a restart: %+v, %v", key, got, err)
		}
	}
}

// handlerFunc is a slog.Handler that hands each record to a function.
type handlerFunc func(slog.Record)

func (h handlerFunc) Enabled(context.Context, slog.Level) bool      { return true }
func (h handlerFunc) Handle(_ context.Context, r slog.Record) error { h(r); return nil }
func (h handlerFunc) WithAttrs([]slog.Attr) slog.Handler            { return h }
func (h handlerFunc) WithGroup(string) slog.Handler                 { return h }
