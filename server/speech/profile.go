package speech

import (
	"slices"
	"time"
)

// Profile is what Priors has learnt of one speaker that outlives the
// process: the cepstral mean, the warp evidence and the MLLR transform.
// Never the audio: the utterances a transform is estimated from stay in
// memory (see "Speaker adaptation" in adaptation.go), so after a restart
// the speaker's next transform waits for as many new utterances as the
// kept one was estimated from.
type Profile struct {
	Mean       []float32 `json:"mean,omitempty"`
	MeanFrames int       `json:"meanFrames,omitempty"`
	MeanWarp   float64   `json:"meanWarp,omitempty"` // 0: the model's filters
	// WarpScores is the frame-weighted sum of each WarpGrid warp's score,
	// over WarpFrames frames.
	WarpScores []float64 `json:"warpScores,omitempty"`
	WarpFrames int       `json:"warpFrames,omitempty"`
	// Transform is package adapt's text, estimated under TransformWarp (1:
	// the model's filters) from TransformFrom utterances.
	Transform     string  `json:"transform,omitempty"`
	TransformWarp float64 `json:"transformWarp,omitempty"`
	TransformFrom int     `json:"transformFrom,omitempty"`
}

// ProfileStore keeps Profiles beyond the process (package speakers, in the
// platform's database). Load is called once per speaker and process, the
// first time the speaker is heard, and may block on the database; it
// returns nil for a speaker it does not know or does not keep. Save is
// called after every change and must not block: the store writes behind.
type ProfileStore interface {
	Load(key string) (*Profile, error)
	Save(key string, p Profile)
}

// load makes key's entry from its stored profile, when there is a store
// and key has no entry yet; the store is read without p.mu held.
func (p *Priors) load(key string) {
	if p.Profiles == nil {
		return
	}
	p.mu.Lock()
	_, known := p.byKey[key]
	p.mu.Unlock()
	if known {
		return
	}
	prof, err := p.Profiles.Load(key)
	if err != nil && p.OnProfileError != nil {
		p.OnProfileError(key, err)
	}
	if prof == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, known := p.byKey[key]; known {
		return // heard meanwhile: what this process learnt wins
	}
	e := p.entry(key)
	if len(prof.Mean) > 0 && prof.MeanFrames > 0 {
		e.prior = Prior{Mean: slices.Clone(prof.Mean), Frames: min(prof.MeanFrames, maxPriorFrames), Warp: prof.MeanWarp}
	}
	if len(prof.WarpScores) == len(WarpGrid) && prof.WarpFrames > 0 {
		e.warps = warpEvidence{sum: slices.Clone(prof.WarpScores), frames: min(prof.WarpFrames, maxWarpFrames)}
	}
	if prof.Transform != "" && prof.TransformWarp > 0 {
		e.adapt.transform, e.adapt.warp, e.adapt.tried = prof.Transform, prof.TransformWarp, prof.TransformWarp
		e.adapt.from = min(prof.TransformFrom, adaptKeep)
	}
}

// save hands e's profile to the store; p.mu is held.
func (p *Priors) save(e *priorEntry) {
	if p.Profiles == nil {
		return
	}
	prof := Profile{
		Mean: slices.Clone(e.prior.Mean), MeanFrames: e.prior.Frames, MeanWarp: e.prior.Warp,
		WarpScores: slices.Clone(e.warps.sum), WarpFrames: e.warps.frames,
		Transform: e.adapt.transform, TransformWarp: e.adapt.warp, TransformFrom: e.adapt.from,
	}
	p.Profiles.Save(e.key, prof)
}

// Drain waits, at most d, for the warp estimates and transforms in flight
// to come in, so that they reach the store before the process ends (an
// embedded platform ends with its hark command, right after the answer
// whose warp estimate comes after it). The caller stops the recognisers
// after Drain, not before.
func (p *Priors) Drain(d time.Duration) {
	deadline := time.Now().Add(d)
	for {
		p.mu.Lock()
		var ch chan struct{}
		for el := p.order.Front(); el != nil && ch == nil; el = el.Next() {
			e := el.Value.(*priorEntry)
			switch {
			case e.estimating != nil:
				ch = e.estimating
			case e.adapt.adapting != nil:
				ch = e.adapt.adapting
			}
		}
		p.mu.Unlock()
		left := time.Until(deadline)
		if ch == nil || left <= 0 {
			return
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}
