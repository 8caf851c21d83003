package speech

import (
	"errors"
	"math"
	"slices"

	"github.com/harkhq/hark/server/speech/sphinx"
)

// Speaker normalisation by frequency warping.
//
// The acoustic model was trained on many speakers; a voice whose vocal
// tract is shorter or longer than their average has its formants higher
// or lower than the model expects, and is heard worse (the flite voice
// slt, the highest, had 15.5 % dev WER on the mixed decoder against 12.2 %
// for kal16). Stretching the mel filters by a warp factor (vocal tract
// length normalisation; sphinx.NewFrontend) moves such a voice towards the
// model. A speaker's factor is the one under which the model finds their
// speech most likely, which needs no transcript: each grid warp's front
// end computes the utterance's cepstra, the domain decoder (the cheapest
// n-gram search, real-time factor about 0.03) decodes them, and its path
// score per frame is the likelihood compared. harkd keeps the scores per
// speaker beside their cepstral mean (Priors) and sends the chosen warp
// with the speaker's next utterance, whose front end uses it. The
// estimate runs once the utterance's result has been returned, on the
// slot's domain decoder (Options.Warps), so no answer waits for it (see
// BenchmarkWarpEstimate); a next utterance of the speaker that begins
// before it is in waits for it (Priors.Get). Priors asks for it only until
// the warp settles, while estimates disagree, and every warpRecheck
// utterances.
//
// Measured on the dev lines (TestDecoderComparison, 42 commands and 99 dev
// lines per voice, the mixed decoder alone; dev WER at warps 0.82 / 0.88 /
// 1 / 1.2 / 1.36): kal16 12.0 / 12.0 / 12.2 / 14.6 / 19.0 %, slt 24.6 /
// 22.6 / 15.5 / 12.4 / 10.3 %, awb 12.5 / 13.1 / 15.9 / 18.1 / 22.3 %, rms
// 10.6 / 10.1 / 10.8 / 11.8 / 14.1 %. The domain decoder's mean score per
// frame over a voice's utterances peaked at 0.82 for kal16 and rms (0.94
// and 0.88 next), 0.82-0.88 for awb and at the top of the grid for slt;
// per utterance, slt's best warp was 1.2 or more in 122 of 141. Through
// the server see README "Speaker normalisation". 8 kHz audio is not warped
// (StartWith): on dev3 through the server (one account for every voice,
// as the evaluation then ran), kal16 at 8 kHz lost with it (WER 38.5 ->
// 38.9 %, action as typed 59.3 -> 58.2 %).

// WarpGrid are the warps a speaker's is chosen from: 1 is the model's own
// filters. Upwards it reaches where slt's likelihood flattens; downwards
// it stops at 0.88: the men's voices' likelihood still rose below it
// (kal16 and rms peaked at 0.82, awb at 0.88) while their commands and
// questions were heard worse there (rms: commands 2.7 → 5.5 %, questions
// 1.7 → 6.8 % WER at 0.82) — the likelihood of warped filters is not
// quite comparable across warps (no Jacobian term), and it favours the
// low end.
var WarpGrid = []float64{0.88, 0.94, 1, 1.06, 1.12, 1.2, 1.28, 1.36}

// warpSamples caps the audio an estimate decodes (2 s at 16 kHz, the
// 300 ms the front end is primed with included): enough frames to rank
// the warps, and a bound on the time it adds to the utterances that carry
// one.
const warpSamples = 2 * 16000

// estimateWarps scores samples (16 kHz, the utterance's audio) at every
// warp of WarpGrid with dec, a decoder the utterance does not use any more:
// per warp the path score per frame; frames is how many frames the scores
// were taken over (their weight against other utterances').
func estimateWarps(dec *sphinx.Decoder, samples []int16) (scores []float64, frames int, err error) {
	scores = make([]float64, len(WarpGrid))
	for i, w := range WarpGrid {
		cep, err := warpedCepstra(dec, w, samples)
		if err != nil {
			return nil, 0, err
		}
		n := len(cep) / dec.CepstrumSize()
		if n == 0 {
			return nil, 0, errors.New("speech: no speech to estimate a warp from")
		}
		if err := dec.Start(); err != nil {
			return nil, 0, err
		}
		err = dec.ProcessCepstra(cep)
		if endErr := dec.End(); err == nil {
			err = endErr
		}
		if err != nil {
			return nil, 0, err
		}
		h := dec.Hyp()
		scores[i] = float64(h.Score) / float64(max(h.Frames, 1))
		frames = max(frames, h.Frames)
	}
	return scores, frames, nil
}

// warpedCepstra computes the cepstra of samples under warp w, primed and
// mean-normalised over the whole of them as an utterance's are.
func warpedCepstra(dec *sphinx.Decoder, w float64, samples []int16) ([]float32, error) {
	fe, err := sphinx.NewFrontend(dec, w)
	if err != nil {
		return nil, err
	}
	defer fe.Close()
	if err := fe.Start(); err != nil {
		return nil, err
	}
	if _, err := fe.Process(nil, samples[:min(len(samples), primeSamples)]); err != nil {
		return nil, err
	}
	if _, err := fe.End(nil); err != nil {
		return nil, err
	}
	if err := fe.Start(); err != nil {
		return nil, err
	}
	cep, err := fe.Process(nil, samples)
	if err != nil {
		return nil, err
	}
	if cep, err = fe.End(cep); err != nil {
		return nil, err
	}
	m := newMeanNormalizer(dec.CepstrumSize(), math.MaxInt)
	return m.flush(m.add(nil, cep)), nil
}

// warpEvidence is what Priors keeps of a speaker's warp estimates: the
// frame-weighted sum of each grid warp's score per frame.
type warpEvidence struct {
	sum    []float64 // per WarpGrid entry
	frames int
	since  int // utterances begun since the last estimate
	// differs is set when the last estimate's own best warp was not the
	// speaker's: the next utterance estimates again.
	differs bool
}

// Settling a speaker's warp: estimates are asked for until this many
// frames of evidence are kept (two or three commands) and as long as the
// latest estimate prefers another warp than the speaker's, then once
// every warpRecheck utterances, so that another voice on the same account
// is noticed; the evidence is capped at maxWarpFrames, the older scaled
// down, so that a new voice outweighs the old within a few commands.
const (
	warpSettleFrames = 300
	warpRecheck      = 8
	maxWarpFrames    = 600
)

// add folds an utterance's scores, taken over frames, into e.
func (e *warpEvidence) add(scores []float64, frames int) {
	if len(scores) != len(WarpGrid) || frames <= 0 || slices.ContainsFunc(scores, func(v float64) bool {
		return math.IsNaN(v) || math.IsInf(v, 0)
	}) {
		return
	}
	if e.sum == nil {
		e.sum = make([]float64, len(WarpGrid))
	}
	keep := 1.0
	if e.frames+frames > maxWarpFrames {
		keep = float64(max(maxWarpFrames-frames, 0)) / float64(e.frames)
	}
	for i, s := range scores {
		e.sum[i] = e.sum[i]*keep + s*float64(frames)
	}
	e.frames = int(math.Round(float64(e.frames)*keep)) + frames
	e.since = 0
	e.differs = WarpGrid[slices.Index(scores, slices.Max(scores))] != e.warp()
}

// warp is the grid warp of the highest mean score, 1 without evidence.
func (e *warpEvidence) warp() float64 {
	if e.frames == 0 {
		return 1
	}
	best := 0
	for i, s := range e.sum {
		if s > e.sum[best] {
			best = i
		}
	}
	return WarpGrid[best]
}

// due tells whether the speaker's next utterance should carry an estimate.
func (e *warpEvidence) due() bool {
	return e.frames < warpSettleFrames || e.differs || e.since >= warpRecheck
}
