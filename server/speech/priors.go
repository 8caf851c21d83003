package speech

import (
	"container/list"
	"sync"
	"time"
)

// Priors keeps the cepstral mean of each speaker's recent utterances in
// harkd, so that the speaker's next utterance starts its early
// normalisation from it (Options.Prior; see "Short commands" in the
// package documentation). A key names one speaker on one channel: the
// caller builds it from the user (or the conversation) and the sample
// rate, and never shares one between users. It holds at most a fixed
// number of keys, forgetting the least recently used. Safe for
// concurrent use.
type Priors struct {
	// NoWarp keeps every speaker at the model's own filters: Get never
	// gives a warp nor asks for an estimate. Set before use.
	NoWarp bool
	// Adapt, when set, estimates speakers' transforms from the utterances
	// AddHeard gives (see "Speaker adaptation" in adaptation.go); OnAdapt,
	// when set, hears how each estimate went. Set before use.
	Adapt   Estimator
	OnAdapt func(key string, utterances int, took time.Duration, err error)
	// Profiles, when set, keeps what is learnt of each speaker beyond the
	// process (profile.go); OnProfileError hears a profile that could not
	// be read. Set before use.
	Profiles       ProfileStore
	OnProfileError func(key string, err error)

	mu      sync.Mutex
	max     int
	order   *list.List // of *priorEntry, most recently used first
	byKey   map[string]*list.Element
	held    int           // samples of audio kept for adaptation, all speakers
	heldMax int           // maxHeldSamples; smaller in tests
	slot    chan struct{} // one estimate at a time
}

type priorEntry struct {
	key   string
	prior Prior // the mean, and the warp it was measured under
	warps warpEvidence
	// estimating is closed when the estimate Get last asked for is in
	// (AddWarps); nil when none is awaited.
	estimating chan struct{}
	adapt      adaptation
}

// estimateWait bounds how long Get waits for the speaker's estimate in
// flight: it comes within a second of the previous result unless the
// machine is overloaded, and then the utterance goes on without it.
const estimateWait = 5 * time.Second

// maxPriorFrames caps the frames a kept mean stands for, so that a
// speaker's latest utterances outweigh old ones (a new microphone, a
// different room) after a few seconds of speech.
const maxPriorFrames = 500

// NewPriors keeps the means of at most max speakers.
func NewPriors(max int) *Priors {
	return &Priors{max: max, order: list.New(), byKey: map[string]*list.Element{}, heldMax: maxHeldSamples, slot: make(chan struct{}, 1)}
}

// Get returns what key's next utterance starts from: the speaker's warp
// (see "Speaker normalisation" in warp.go), the cepstral mean measured
// under that warp if there is one, and whether the utterance should carry
// a new warp estimate. An unknown key gets no mean and the model's own
// filters, and asks for an estimate. When it asks, the caller must hand
// the estimate, or nil when none came (the recognition failed), to
// AddWarps. The estimate of a speaker's previous utterance arrives after
// its answer (speech.Options.Warps); a next utterance that begins before
// it (turns sent back to back, as by hark flow) waits for it, at most
// estimateWait, so it is decoded under everything learnt before it; so
// does it for the speaker's transform (AddHeard).
func (p *Priors) Get(key string) *Prior {
	p.load(key)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.NoWarp {
		out := p.current(p.byKey[key])
		out.Transform = p.transform(key, out.Warp)
		return out
	}
	e := p.entry(key)
	if ch := e.estimating; ch != nil {
		p.waitUnlocked(ch, estimateWait)
		e = p.entry(key) // the same, unless forgotten meanwhile
		if e.estimating == ch {
			e.estimating = nil // gave up on it
		}
	}
	out := p.current(p.byKey[key])
	out.Transform = p.transform(key, out.Warp)
	e = p.entry(key) // the same, unless forgotten while waiting for the transform
	switch {
	case !out.Estimate:
	case e.estimating != nil:
		out.Estimate = false // another utterance of the speaker asked meanwhile
	default:
		e.estimating = make(chan struct{})
	}
	return out
}

// waitUnlocked releases p.mu until ch is closed or d has passed.
func (p *Priors) waitUnlocked(ch <-chan struct{}, d time.Duration) {
	p.mu.Unlock()
	defer p.mu.Lock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// current is the prior of entry el (nil: an unknown speaker); p.mu is held.
func (p *Priors) current(el *list.Element) *Prior {
	if el == nil {
		return &Prior{Estimate: !p.NoWarp}
	}
	p.order.MoveToFront(el)
	e := el.Value.(*priorEntry)
	e.warps.since++
	out := &Prior{Warp: e.warps.warp(), Estimate: e.warps.due()}
	switch {
	case p.NoWarp:
		out.Warp, out.Estimate = 0, false
	case out.Warp == 1:
		out.Warp = 0
	}
	if e.prior.Warp == out.Warp && len(e.prior.Mean) > 0 {
		out.Mean, out.Frames = append([]float32(nil), e.prior.Mean...), e.prior.Frames
	}
	return out
}

// AddWarps folds the warp scores of key's latest utterance
// (speech.Options.Warps, taken over frames) into key's warp evidence, and
// ends Get's wait for them; nil scores (none came) only end the wait.
func (p *Priors) AddWarps(key string, scores []float64, frames int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	if len(scores) > 0 {
		e.warps.add(scores, frames)
		p.save(e)
	}
	if e.estimating != nil {
		close(e.estimating)
		e.estimating = nil
	}
}

// entry returns key's entry, made and the least recently used forgotten
// when there is none; p.mu is held.
func (p *Priors) entry(key string) *priorEntry {
	if el, ok := p.byKey[key]; ok {
		p.order.MoveToFront(el)
		return el.Value.(*priorEntry)
	}
	e := &priorEntry{key: key}
	p.byKey[key] = p.order.PushFront(e)
	for p.order.Len() > p.max {
		last := p.order.Back()
		p.order.Remove(last)
		delete(p.byKey, last.Value.(*priorEntry).key)
		p.held -= last.Value.(*priorEntry).adapt.held()
	}
	return e
}

// Add folds the mean of key's latest utterance (Result.Mean) into key's
// prior: the two are weighted by their frames, the sum capped at
// maxPriorFrames. A nil mean (nothing heard) changes nothing; a mean of
// another size, or measured under another warp, replaces the old one.
func (p *Priors) Add(key string, m *Prior) {
	if m == nil || m.Frames <= 0 || len(m.Mean) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.entry(key)
	defer p.save(e)
	if len(e.prior.Mean) != len(m.Mean) || e.prior.Warp != m.Warp {
		e.prior = Prior{Mean: append([]float32(nil), m.Mean...), Frames: min(m.Frames, maxPriorFrames), Warp: m.Warp}
		return
	}
	old, n := float64(e.prior.Frames), float64(m.Frames)
	for j := range e.prior.Mean {
		e.prior.Mean[j] = float32((float64(e.prior.Mean[j])*old + float64(m.Mean[j])*n) / (old + n))
	}
	e.prior.Frames = min(e.prior.Frames+m.Frames, maxPriorFrames)
}
