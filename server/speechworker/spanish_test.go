package speechworker

import (
	"context"
	"testing"
)

// Spanish questions end in words like "más", on which libespeak-ng 1.51
// read past its clause buffer (see tts.closeClauses); a fresh worker
// crashed on its first "¿Algo más?" more often than not. Each round
// starts a fresh worker and speaks the questions several times; no worker
// may die.
func TestSpanishQuestionsNeverKillAWorker(t *testing.T) {
	ctx := context.Background()
	texts := []string{"¿Algo más?", "¿Para qué hora?", "Vale, a las tres. ¿Algo más?", "¿Cuántas personas?"}
	deaths := 0
	for round := range 12 {
		log := &logTo{}
		s := NewSynthesis(Options{Size: 1, Logger: log.logger()})
		if err := s.Ready(ctx); err != nil {
			s.Close()
			t.Skipf("speech synthesis is not available here: %v", err)
		}
		for i := range 20 {
			text := texts[i%len(texts)]
			pcm, err := s.Speak(ctx, "es", text)
			if err != nil || len(pcm) < 22050/4 {
				t.Errorf("round %d %q: %d samples, %v", round, text, len(pcm), err)
			}
		}
		deaths += s.Stats().Restarts
		if s.Stats().Restarts > 0 {
			t.Log(log.String())
		}
		s.Close()
	}
	if deaths > 0 {
		t.Fatalf("%d workers died", deaths)
	}
}
