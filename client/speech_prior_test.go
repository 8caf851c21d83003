package client_test

import (
	"bytes"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/server"
)

// lockedBuffer collects the server's log across its goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// recognisedPriors returns, for each "recognised" line logged so far,
// whether the utterance started from a cepstral prior.
func (l *lockedBuffer) recognisedPriors() []bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []bool
	for _, line := range strings.Split(l.b.String(), "\n") {
		if strings.Contains(line, "msg=recognised") {
			out = append(out, strings.Contains(line, " prior=true"))
		}
	}
	return out
}

// TestSpeechPriorIsPerUser: the server seeds a speaker's utterance with
// the cepstral mean of that speaker's earlier ones (speech.Priors), keyed
// by user and never shared between users; a first utterance, without a
// prior, is still recognised.
func TestSpeechPriorIsPerUser(t *testing.T) {
	var log lockedBuffer
	sam, p := voiceClient(t, server.Config{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	kim := clientFor(t, p, p.PublicKey, p.PrivateKey)
	if _, _, err := kim.Auth.Anonymous(ctxT(t), "listener", "phone", "Kim"); err != nil {
		t.Fatal(err)
	}
	turns := []struct {
		who        *client.Client
		name, text string
		prior      bool
	}{
		{sam, "Sam", "what time is it", false}, // Sam's first: no prior
		{sam, "Sam", "call mom", true},         // Sam's own mean from then on
		{kim, "Kim", "what time is it", false}, // never Sam's
		{kim, "Kim", "thank you", true},
		{sam, "Sam", "set a timer for five minutes", true},
	}
	for i, turn := range turns {
		ans, err := turn.who.Dialogue.Stream(ctxT(t), bytes.NewReader(flite(t, turn.text)), 16000, 0)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, ans.Audio)
		ans.Audio.Close()
		if got := ans.Answer.Responses.Query; got != turn.text {
			t.Errorf("%s said %q, heard %q", turn.name, turn.text, got)
		}
		priors := log.recognisedPriors()
		if len(priors) != i+1 {
			t.Fatalf("%d recognised lines logged after %d turns", len(priors), i+1)
		}
		if priors[i] != turn.prior {
			t.Errorf("%s's %q: started from a prior %v, want %v", turn.name, turn.text, priors[i], turn.prior)
		}
	}
}
