package speech

import (
	"container/list"
	"sync"
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
	mu    sync.Mutex
	max   int
	order *list.List // of *priorEntry, most recently used first
	byKey map[string]*list.Element
}

type priorEntry struct {
	key   string
	prior Prior
}

// maxPriorFrames caps the frames a kept mean stands for, so that a
// speaker's latest utterances outweigh old ones (a new microphone, a
// different room) after a few seconds of speech.
const maxPriorFrames = 500

// NewPriors keeps the means of at most max speakers.
func NewPriors(max int) *Priors {
	return &Priors{max: max, order: list.New(), byKey: map[string]*list.Element{}}
}

// Get returns a copy of key's prior, or nil.
func (p *Priors) Get(key string) *Prior {
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.byKey[key]
	if !ok {
		return nil
	}
	p.order.MoveToFront(el)
	e := el.Value.(*priorEntry)
	return &Prior{Mean: append([]float32(nil), e.prior.Mean...), Frames: e.prior.Frames}
}

// Add folds the mean of key's latest utterance into key's prior: the two
// are weighted by their frames, the sum capped at maxPriorFrames. A nil
// mean (nothing heard) changes nothing; a mean of another size replaces
// the old one.
func (p *Priors) Add(key string, m *Prior) {
	if m == nil || m.Frames <= 0 || len(m.Mean) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.byKey[key]; ok {
		p.order.MoveToFront(el)
		e := el.Value.(*priorEntry)
		if len(e.prior.Mean) != len(m.Mean) {
			e.prior = Prior{Mean: append([]float32(nil), m.Mean...), Frames: min(m.Frames, maxPriorFrames)}
			return
		}
		old, n := float64(e.prior.Frames), float64(m.Frames)
		for j := range e.prior.Mean {
			e.prior.Mean[j] = float32((float64(e.prior.Mean[j])*old + float64(m.Mean[j])*n) / (old + n))
		}
		e.prior.Frames = min(e.prior.Frames+m.Frames, maxPriorFrames)
		return
	}
	p.byKey[key] = p.order.PushFront(&priorEntry{key: key,
		prior: Prior{Mean: append([]float32(nil), m.Mean...), Frames: min(m.Frames, maxPriorFrames)}})
	for p.order.Len() > p.max {
		last := p.order.Back()
		p.order.Remove(last)
		delete(p.byKey, last.Value.(*priorEntry).key)
	}
}
