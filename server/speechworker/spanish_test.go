package speechworker

import (
	"context"
	"log/slog"
	"os"
	"testing"
)

func TestSpanishQuestionsNeverKillAWorker(t *testing.T) {
	s := NewSynthesis(Options{Size: 1, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	defer s.Close()
	ctx := context.Background()
	if err := s.Ready(ctx); err != nil {
		t.Skip(err)
	}
	for i := range 400 {
		for _, text := range []string{"¿Algo más?", "¿Para qué hora?"} {
			pcm, err := s.Speak(ctx, "es", text)
			if err != nil || len(pcm) == 0 {
				t.Fatalf("%d %q: %d samples, %v", i, text, len(pcm), err)
			}
		}
	}
	if st := s.Stats(); st.Restarts != 0 {
		t.Fatalf("%d workers died", st.Restarts)
	}
}
