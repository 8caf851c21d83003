package speech

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/speech/lexicon"
)

// A word the dialogue knows and the dictionary lacks ("netflix") is spelt
// for the in-domain decoder, which then hears it; the grammar's other
// words are left to the dictionary.
func TestNewWordsAreHeard(t *testing.T) {
	if raceEnabled {
		t.Skip("speech-bound: run without the race detector (make test runs it so)")
	}
	if err := lexicon.Available(); err != nil {
		t.Skip("espeak-ng is not installed (make test installs it)")
	}
	spec, err := dialogue.ParseGrammar([]string{"open {app}", "launch {app}"},
		map[string][]string{"app": {"netflix", "spotify", "camera", "calculator"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := New(Config{Grammar: spec, Slots: 1, Decoders: []string{SourceDomain}, NarrowbandDecoders: []string{SourceDomain}})
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	if got := strings.Join(rec.words["netflix"], " "); got != "N EH T F L IH K S" || len(rec.words) != 1 {
		t.Fatalf("spelt %v, want netflix alone, as N EH T F L IH K S", rec.words)
	}
	if rec.decoderConfig(SourceDomain).Words == nil {
		t.Fatal("the domain decoder does not get the spelt words")
	}
	if rec.decoderConfig(SourceFull).Words != nil {
		t.Fatal("the full decoder got words its model does not hold")
	}
	audio := speak(t, t.TempDir(), "kal16", "open netflix")
	res, err := rec.Recognize(context.Background(), "en", 16000, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "open netflix" {
		t.Fatalf("heard %q, want \"open netflix\"", res.Text)
	}
}
