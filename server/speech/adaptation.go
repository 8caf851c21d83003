package speech

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/server/speech/adapt"
	"github.com/harkhq/hark/server/speech/wav"
)

// Speaker adaptation
//
// Beside a speaker's mean and warp, Priors keeps the audio and recognised
// text of their latest 16 kHz utterances and, from the adaptFirst-th on,
// every adaptEvery utterances, estimates an MLLR transform of the
// acoustic model's means from the last adaptKeep (package adapt,
// sphinxtrain in child processes: 0.5 s for ten commands, idle). The
// speaker's next utterances are decoded under it (Prior.Transform). Measured first with
// the full English model on 120 dev commands, unsupervised (the
// recogniser's own texts): flite's kal16 20.4 → 16.3 % word errors, slt,
// awb and rms, voices the model already hears well, within a point.
// Through the server on dev3 (177 turns, WER / action as typed), off →
// on: kal16 11.3 / 89.3 → 9.6 / 89.8 %, slt 9.8 / 89.8 → 9.4 / 88.1 %,
// awb 13.4 / 84.2 → 14.3 / 84.7 %, rms 7.4 / 93.2 → 7.7 / 93.2 %.
//
// 8 kHz audio is not adapted per speaker: it is decoded under
// adapt.Narrowband, which needs no speech. On dev3, kal16 at 8 kHz: none
// 37.2 / 60.5 %, the speaker's own from their fifth utterance 25.0 /
// 74.0 %, narrowband 21.2 / 71.8 %, narrowband until the speaker's own
// 23.8 / 74.0 %; offline, a speaker's own estimated on top of the
// narrowband one did no better than the narrowband one alone (24.6 / 24.1
// %). README, "Speaker adaptation".
//
// The audio stays in harkd's memory (never on disk but for the second an
// estimate runs, in a temporary directory removed after it), bounded by
// adaptKeep utterances of at most maxAdaptSamples a speaker and
// maxHeldSamples in all: past that the least recently heard speakers'
// audio is dropped, their transforms kept. The transform outlives the process
// (Priors.Profiles, profile.go), the audio does not: a speaker met again
// after a restart is decoded under their kept transform until as many new
// utterances as it was estimated from are heard.
const (
	adaptFirst      = 5
	adaptEvery      = 10
	adaptKeep       = 40
	maxAdaptSamples = 20 * 16000      // 20 s: a longer utterance is not kept
	maxHeldSamples  = 30 * 60 * 16000 // 30 minutes of 16 kHz audio, 55 MiB
	adaptTimeout    = 2 * time.Minute // an estimate of ten commands takes 0.5 s idle
	// adaptWait bounds how long a speaker's next utterance waits for their
	// estimate in flight. An estimate is about a second of CPU, begun
	// after an answer, so only turns sent back to back (hark flow, tests)
	// ever wait; on 2 loaded cores it can take several seconds, more than
	// a warp estimate (estimateWait), and an utterance decoded without it
	// would make a flow's result depend on the machine's load.
	adaptWait = 15 * time.Second
)

// MaxHeardBytes is the longest WAV AddHeard keeps: callers need not hold
// more of an upload for it.
const MaxHeardBytes = wav.HeaderSize + 2*maxAdaptSamples

// Estimator computes a speaker's transform from their utterances under a
// warp (adapt.Model.Estimate).
type Estimator func(ctx context.Context, utts []adapt.Utterance, warp float64) (adapt.Transform, error)

// NewEstimator estimates with sphinxtrain on the English model, which it
// readies for that (adapt.Prepare, in the speech cache) on first use; an
// error says why adaptation cannot run here.
func NewEstimator() (Estimator, error) {
	if err := adapt.Available(); err != nil {
		return nil, err
	}
	model := sync.OnceValues(func() (*adapt.Model, error) {
		dict := filepath.Join(DefaultModelDir, "cmudict-en-us.dict")
		words, err := LoadDictionary(dict)
		if err != nil {
			return nil, err
		}
		dir, err := speechCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		return adapt.Prepare(filepath.Join(DefaultModelDir, "en-us"), dict, func(w string) bool { return words[w] }, dir)
	})
	return func(ctx context.Context, utts []adapt.Utterance, warp float64) (adapt.Transform, error) {
		m, err := model()
		if err != nil {
			return adapt.Transform{}, err
		}
		return m.Estimate(ctx, utts, warp)
	}, nil
}

// adaptation is what an entry keeps for speaker adaptation.
type adaptation struct {
	heard    []adapt.Utterance // oldest first
	newSince int               // utterances heard since the last estimate began
	// transform is the latest estimate's text, under warp, from from
	// utterances.
	transform string
	warp      float64
	from      int
	// adapting is closed when the estimate in flight ends; nil when none.
	adapting chan struct{}
	// tried is the warp of the latest estimate begun, so that a failed
	// one is not begun again by every utterance (transform).
	tried float64
}

// held is the samples of audio e keeps.
func (a *adaptation) held() int {
	n := 0
	for _, u := range a.heard {
		n += len(u.PCM)
	}
	return n
}

// AddHeard gives key's latest utterance, the WAV that was recognised and
// the text chosen, decoded under warp (0 or 1: the model's filters), to
// speaker adaptation, and starts an estimate when one is due. It does
// nothing without an Estimator, for an empty text, or for audio that is
// not a 16-bit mono WAV of at most maxAdaptSamples at 16 kHz: 8 kHz audio
// is decoded under adapt.Narrowband instead.
func (p *Priors) AddHeard(key string, audio []byte, text string, warp float64) {
	if p.Adapt == nil || strings.TrimSpace(text) == "" {
		return
	}
	pcm, ok := heardPCM(audio)
	if !ok {
		return
	}
	if warp == 0 {
		warp = 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	a := &e.adapt
	a.heard = append(a.heard, adapt.Utterance{PCM: pcm, Text: text})
	p.held += len(pcm)
	if n := len(a.heard) - adaptKeep; n > 0 {
		for _, u := range a.heard[:n] {
			p.held -= len(u.PCM)
		}
		a.heard = slices.Delete(a.heard, 0, n)
	}
	a.newSince++
	p.dropHeard(e)
	// A transform is replaced only by one estimated from as many
	// utterances: one read from the store (profile.go), or kept while the
	// audio it came from was dropped, stays until as many are heard again.
	if a.adapting != nil || len(a.heard) < max(adaptFirst, a.from) || (a.transform != "" && a.newSince < adaptEvery) {
		return
	}
	p.startEstimate(key, a, warp)
}

// startEstimate starts an estimate of a, key's, transform under warp from
// the utterances it keeps; p.mu is held.
func (p *Priors) startEstimate(key string, a *adaptation, warp float64) {
	done := make(chan struct{})
	a.adapting, a.newSince, a.tried = done, 0, warp
	go p.estimate(key, done, slices.Clone(a.heard), warp)
}

// estimate runs one speaker's estimate (at most one at a time in harkd:
// it is CPU the recognisers would otherwise have) and keeps its result.
func (p *Priors) estimate(key string, done chan struct{}, utts []adapt.Utterance, warp float64) {
	p.slot <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), adaptTimeout)
	start := time.Now()
	t, err := p.Adapt(ctx, utts, warp)
	cancel()
	<-p.slot
	if p.OnAdapt != nil {
		p.OnAdapt(key, len(utts), time.Since(start), err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.byKey[key]
	if !ok {
		return // forgotten meanwhile
	}
	e := el.Value.(*priorEntry)
	a := &e.adapt
	if a.adapting != done {
		return
	}
	if err == nil {
		a.transform, a.warp, a.from = t.String(), warp, len(utts)
		p.save(e)
	}
	close(done)
	a.adapting = nil
}

// dropHeard keeps the audio held under p.heldMax by dropping the
// least recently used speakers' (never keep's); p.mu is held.
func (p *Priors) dropHeard(keep *priorEntry) {
	for el := p.order.Back(); el != nil && p.held > p.heldMax; el = el.Prev() {
		e := el.Value.(*priorEntry)
		if e == keep {
			continue
		}
		p.held -= e.adapt.held()
		e.adapt.heard = nil
	}
}

// transform is key's transform for an utterance under warp (0 or 1: the
// model's filters); "" when there is none yet. An estimate in flight is
// waited for, at most adaptWait. A transform estimated under another warp
// would mislead: when the speaker's warp has moved since (it settles over
// their first utterances), their kept utterances are estimated again
// under the new one, and waited for likewise. p.mu is held, and released
// while waiting.
func (p *Priors) transform(key string, warp float64) string {
	if warp == 0 {
		warp = 1
	}
	// current is key's adaptation, if any, and its transform if under warp.
	current := func() (*adaptation, string) {
		el := p.byKey[key]
		if el == nil {
			return nil, ""
		}
		a := &el.Value.(*priorEntry).adapt
		if a.warp != warp {
			return a, ""
		}
		return a, a.transform
	}
	a, text := current()
	if a == nil {
		return ""
	}
	if text == "" && a.adapting == nil && a.tried != warp && p.Adapt != nil && len(a.heard) >= adaptFirst {
		p.startEstimate(key, a, warp)
	}
	if ch := a.adapting; ch != nil {
		p.waitUnlocked(ch, adaptWait)
	}
	_, text = current()
	return text
}

// heardPCM is the samples of a recognised 16 kHz WAV, if AddHeard keeps
// it.
func heardPCM(audio []byte) ([]int16, bool) {
	pcm, err := wav.Decode(audio, 16000)
	if err != nil || len(pcm) == 0 || len(pcm) > maxAdaptSamples {
		return nil, false
	}
	return pcm, true
}
