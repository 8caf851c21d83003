package media

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Rendering format: the speech rate, so a client plays music and answers
// through one audio context without resampling, at a music bit rate.
const (
	SampleRate = 22050
	Bitrate    = 96 // kbps, MPEG-2 Layer III allows up to 160
	// about this long, rounded to whole bars, plus a release tail
	targetSeconds = 24.0
)

// score is a piece being rendered into a mono buffer.
type score struct {
	buf   []float64
	rng   *rand.Rand
	beat  float64 // seconds per beat
	root  int     // MIDI note of the tonic
	scale []int   // semitone offsets of the mode
	bars  int
}

var (
	major      = []int{0, 2, 4, 5, 7, 9, 11}
	minor      = []int{0, 2, 3, 5, 7, 8, 10}
	dorian     = []int{0, 2, 3, 5, 7, 9, 10}
	lydian     = []int{0, 2, 4, 6, 7, 9, 11}
	bluesScale = []int{0, 3, 5, 6, 7, 10} // see renderBlues
	beatsInBar = 4.0
)

func newScore(id string, bpmMin, bpmMax float64, rootMin, rootMax int, scale []int) *score {
	h := fnv.New64a()
	h.Write([]byte(id))
	seed := h.Sum64()
	rng := rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))
	bpm := bpmMin + rng.Float64()*(bpmMax-bpmMin)
	s := &score{rng: rng, beat: 60 / bpm, root: rootMin + rng.IntN(rootMax-rootMin+1), scale: scale}
	s.bars = int(math.Round(targetSeconds / (beatsInBar * s.beat)))
	total := float64(s.bars)*beatsInBar*s.beat + 2.5
	s.buf = make([]float64, int(total*SampleRate))
	return s
}

// at converts bar and beat to seconds.
func (s *score) at(bar int, beat float64) float64 {
	return (float64(bar)*beatsInBar + beat) * s.beat
}

// pitch returns the MIDI note of a scale degree (any integer; octaves wrap)
// shifted by octaves.
func (s *score) pitch(degree, octave int) int {
	n := len(s.scale)
	o := degree / n
	d := degree % n
	if d < 0 {
		d += n
		o--
	}
	return s.root + 12*(o+octave) + s.scale[d]
}

// chord returns the MIDI notes of the triad (or seventh) on a degree.
func (s *score) chord(degree, octave int, seventh bool) []int {
	notes := []int{s.pitch(degree, octave), s.pitch(degree+2, octave), s.pitch(degree+4, octave)}
	if seventh {
		notes = append(notes, s.pitch(degree+6, octave))
	}
	return notes
}

// sineTable holds one period of a sine; sine interpolates it, about five
// times faster than math.Sin and far below audible error.
var sineTable = func() [4097]float64 {
	var t [4097]float64
	for i := range t {
		t[i] = math.Sin(2 * math.Pi * float64(i) / 4096)
	}
	return t
}()

func sine(x float64) float64 {
	p := x * (4096 / (2 * math.Pi))
	p -= 4096 * math.Floor(p/4096)
	i := int(p)
	if i >= 4096 { // p rounded up to exactly one period
		return 0
	}
	f := p - float64(i)
	return sineTable[i] + f*(sineTable[i+1]-sineTable[i])
}

func freq(midi int) float64 { return 440 * math.Pow(2, float64(midi-69)/12) }

// instrument is a note generator: wave gives the sample at time t of a
// note of duration d and frequency f, envelope included; it sounds for
// release seconds after d.
type instrument struct {
	release float64
	wave    func(t, d, f float64) float64
}

// env is a linear attack, a hold for the note's duration and a quadratic
// release.
func env(t, d, attack, release float64) float64 {
	switch {
	case t < attack:
		return t / attack
	case t < d:
		return 1
	case t < d+release:
		x := 1 - (t-d)/release
		return x * x
	}
	return 0
}

// harmonics sums k = 1..n sine partials with amplitude amp(k), skipping
// those above the Nyquist frequency (no aliasing).
func harmonics(t, f float64, n int, amp func(k int) float64) float64 {
	var v float64
	for k := 1; k <= n && float64(k)*f < SampleRate/2; k++ {
		v += amp(k) * sine(2*math.Pi*float64(k)*f*t)
	}
	return v
}

var (
	piano = instrument{0.3, func(t, d, f float64) float64 {
		v := harmonics(t, f, 6, func(k int) float64 {
			return math.Exp(-t*(0.8+0.6*float64(k))) / math.Pow(float64(k), 1.5)
		})
		return v * env(t, d, 0.004, 0.3)
	}}
	electricPiano = instrument{0.3, func(t, d, f float64) float64 {
		index := 1.8 * math.Exp(-4*t)
		return sine(2*math.Pi*f*t+index*sine(2*math.Pi*f*t)) * math.Exp(-1.2*t) * env(t, d, 0.005, 0.3)
	}}
	strings_ = instrument{0.6, func(t, d, f float64) float64 {
		vib := 1 + 0.004*sine(2*math.Pi*5.2*t)
		return 0.5 * harmonics(t, f*vib, 8, func(k int) float64 { return 1 / float64(k) }) * env(t, d, 0.35, 0.6)
	}}
	pad = instrument{2.0, func(t, d, f float64) float64 {
		v := sine(2*math.Pi*f*0.997*t) + sine(2*math.Pi*f*1.003*t) + 0.4*sine(2*math.Pi*2*f*t)
		return 0.35 * v * env(t, d, 1.5, 2.0)
	}}
	guitar = instrument{0.08, func(t, d, f float64) float64 {
		v := harmonics(t, f, 6, func(k int) float64 { return 1 / float64(k) })
		return 0.5 * math.Tanh(3*v) * (0.6 + 0.4*math.Exp(-6*t)) * env(t, d, 0.003, 0.08)
	}}
	bass = instrument{0.1, func(t, d, f float64) float64 {
		v := sine(2*math.Pi*f*t) + 0.3*sine(4*math.Pi*f*t)
		return v * (0.5 + 0.5*math.Exp(-5*t)) * env(t, d, 0.005, 0.1)
	}}
	synthBass = instrument{0.05, func(t, d, f float64) float64 {
		n := 2 + int(6*math.Exp(-12*t)) // a closing filter: fewer partials as it decays
		return 0.6 * harmonics(t, f, n, func(k int) float64 { return 1 / float64(k) }) * env(t, d, 0.003, 0.05)
	}}
	lead = instrument{0.12, func(t, d, f float64) float64 {
		vib := 1 + 0.005*sine(2*math.Pi*5.5*t)*math.Min(t*2, 1)
		return 0.5 * harmonics(t, f*vib, 7, func(k int) float64 {
			if k%2 == 0 {
				return 0
			}
			return 1 / float64(k)
		}) * env(t, d, 0.01, 0.12)
	}}
	pluck = instrument{0.15, func(t, d, f float64) float64 {
		v := harmonics(t, f, 6, func(k int) float64 { return math.Exp(-t*3*float64(k)) / float64(k) })
		return v * env(t, d, 0.002, 0.15)
	}}
	bell = instrument{2.5, func(t, d, f float64) float64 {
		index := 2.5 * math.Exp(-1.5*t)
		return sine(2*math.Pi*f*t+index*sine(2*math.Pi*3.5*f*t)) * math.Exp(-1.3*t) * env(t, d, 0.003, 2.5)
	}}
)

// note adds one note to the buffer.
func (s *score) note(start, dur float64, midi int, amp float64, inst instrument) {
	f := freq(midi)
	first := int(start * SampleRate)
	last := min(int((start+dur+inst.release)*SampleRate), len(s.buf))
	for i := max(first, 0); i < last; i++ {
		t := float64(i-first) / SampleRate
		s.buf[i] += amp * inst.wave(t, dur, f)
	}
}

// hit adds a drum sound lasting length seconds.
func (s *score) hit(start, length, amp float64, sound func(t float64, noise float64) float64) {
	first := int(start * SampleRate)
	last := min(first+int(length*SampleRate), len(s.buf))
	prev := 0.0
	for i := max(first, 0); i < last; i++ {
		t := float64(i-first) / SampleRate
		n := s.rng.Float64()*2 - 1
		// A first difference of white noise tilts it towards the highs.
		s.buf[i] += amp * sound(t, n-prev)
		prev = n
	}
}

func (s *score) kick(at, amp float64) {
	s.hit(at, 0.35, amp, func(t, _ float64) float64 {
		// The pitch falls from 135 to 45 Hz; phase is its integral.
		phase := 2 * math.Pi * (45*t + 90*(1-math.Exp(-t*30))/30)
		return sine(phase) * math.Exp(-t*9)
	})
}

func (s *score) snare(at, amp float64) {
	s.hit(at, 0.25, amp, func(t, n float64) float64 {
		return 0.5*n*math.Exp(-t*18) + 0.5*sine(2*math.Pi*185*t)*math.Exp(-t*25)
	})
}

func (s *score) hat(at, amp float64, open bool) {
	decay, length := 60.0, 0.06
	if open {
		decay, length = 14, 0.25
	}
	s.hit(at, length, amp, func(t, n float64) float64 { return 0.4 * n * math.Exp(-t*decay) })
}

func (s *score) ride(at, amp float64) {
	s.hit(at, 0.6, amp, func(t, n float64) float64 {
		metal := sine(2*math.Pi*3150*t) + sine(2*math.Pi*4410*t+2*sine(2*math.Pi*1230*t))
		return (0.15*metal + 0.15*n) * math.Exp(-t*6)
	})
}

// melody walks the scale from a chord tone, step by step, with the given
// rhythm (durations in beats) repeated over bars; rests where the rhythm
// value is negative.
func (s *score) melody(fromBar, toBar int, progression []int, rhythm []float64, octave int, amp float64, inst instrument, swing float64) {
	for bar := fromBar; bar < toBar; bar++ {
		deg := progression[bar%len(progression)] + 2*s.rng.IntN(3) // start on a chord tone
		beat := 0.0
		for _, r := range rhythm {
			dur := math.Abs(r)
			if r > 0 {
				start := beat
				if swing > 0 && math.Mod(beat, 1) == 0.5 {
					start += swing / 2
				}
				s.note(s.at(bar, start), dur*s.beat*0.9, s.pitch(deg, octave), amp, inst)
				deg += []int{-2, -1, -1, 1, 1, 2, 0}[s.rng.IntN(7)]
			}
			beat += dur
		}
	}
}

// renderers synthesise each genre of the catalogue; the tests check that
// every genre in the catalogue has one.
var renderers = map[string]func(id string) *score{
	Rock:       renderRock,
	Jazz:       renderJazz,
	Classical:  renderClassical,
	Pop:        renderPop,
	Electronic: renderElectronic,
	Ambient:    renderAmbient,
	Country:    renderCountry,
	Blues:      renderBlues,
	Reggae:     renderReggae,
}

// render synthesises the track's audio as 16-bit samples.
func render(t Track) []int16 {
	r, ok := renderers[t.Genre]
	if !ok {
		r = renderAmbient
	}
	return r(t.ID).master()
}

func pick[T any](rng *rand.Rand, xs []T) T { return xs[rng.IntN(len(xs))] }

func renderRock(id string) *score {
	s := newScore(id, 118, 140, 40, 45, minor)
	s.scale = pick(s.rng, [][]int{minor, dorian})
	prog := pick(s.rng, [][]int{{0, 5, 3, 4}, {0, 3, 4, 3}, {0, 6, 5, 6}})
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		root := s.pitch(deg, 0)
		for e := 0.0; e < 4; e += 0.5 { // power-chord eighths
			for _, n := range []int{root + 12, root + 19, root + 24} {
				s.note(s.at(bar, e), 0.45*s.beat, n, 0.09, guitar)
			}
			s.note(s.at(bar, e), 0.45*s.beat, root, 0.35, bass)
			s.hat(s.at(bar, e), 0.25, false)
		}
		for _, b := range []float64{0, 2, 2.5} {
			s.kick(s.at(bar, b), 0.9)
		}
		for _, b := range []float64{1, 3} {
			s.snare(s.at(bar, b), 0.7)
		}
	}
	s.melody(s.bars/2, s.bars, prog, []float64{1, 0.5, 0.5, 1, -1}, 2, 0.3, lead, 0)
	return s
}

func renderJazz(id string) *score {
	s := newScore(id, 100, 140, 48, 53, major)
	prog := pick(s.rng, [][]int{{1, 4, 0, 5}, {0, 5, 1, 4}, {2, 5, 1, 4}})
	const swing = 0.33
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		for _, b := range []float64{1.5, 3} { // comping off the beat
			for _, n := range s.chord(deg, 1, true) {
				s.note(s.at(bar, b+swing/2), 0.6*s.beat, n, 0.12, electricPiano)
			}
		}
		for b := 0; b < 4; b++ { // walking bass
			n := s.pitch(deg+[]int{0, 2, 4, 5}[b], -1)
			if b == 3 {
				n = s.pitch(prog[(bar+1)%len(prog)], -1) + pick(s.rng, []int{-1, 1})
			}
			s.note(s.at(bar, float64(b)), 0.9*s.beat, n, 0.45, bass)
			s.ride(s.at(bar, float64(b)), 0.35)
			if b%2 == 1 {
				s.ride(s.at(bar, float64(b)+0.5+swing/2), 0.25)
				s.hat(s.at(bar, float64(b)), 0.2, false)
			}
		}
	}
	s.melody(0, s.bars, prog, []float64{0.5, 0.5, 0.5, 0.5, 1, -1}, 1, 0.25, piano, swing)
	return s
}

func renderClassical(id string) *score {
	s := newScore(id, 72, 96, 55, 62, major)
	if s.rng.IntN(3) == 0 {
		s.scale = minor
	}
	prog := pick(s.rng, [][]int{{0, 3, 4, 0}, {0, 5, 3, 4}, {0, 4, 5, 3}})
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		c := s.chord(deg, -1, false)
		for _, n := range c { // sustained strings
			s.note(s.at(bar, 0), 4*s.beat, n, 0.1, strings_)
		}
		alberti := []int{c[0], c[2], c[1], c[2]}
		for e := 0; e < 8; e++ {
			s.note(s.at(bar, float64(e)/2), 0.5*s.beat, alberti[e%4], 0.12, piano)
		}
	}
	s.melody(0, s.bars, prog, []float64{1, 1, 0.5, 0.5, 1}, 1, 0.3, piano, 0)
	return s
}

func renderPop(id string) *score {
	s := newScore(id, 100, 120, 52, 57, major)
	prog := pick(s.rng, [][]int{{0, 4, 5, 3}, {5, 3, 0, 4}, {0, 5, 3, 4}})
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		for _, b := range []float64{0, 1.5, 3} {
			for _, n := range s.chord(deg, 1, false) {
				s.note(s.at(bar, b), 0.8*s.beat, n, 0.12, pluck)
			}
		}
		for e := 0.0; e < 4; e += 0.5 {
			s.note(s.at(bar, e), 0.45*s.beat, s.pitch(deg, -1), 0.35, bass)
			s.hat(s.at(bar, e), 0.2, false)
		}
		for _, b := range []float64{0, 1.5, 2} {
			s.kick(s.at(bar, b), 0.8)
		}
		for _, b := range []float64{1, 3} {
			s.snare(s.at(bar, b), 0.6)
		}
	}
	// A two-bar hook, repeated: pop is repetition.
	hook := newScore(id+"/hook", 100, 100, s.root, s.root, s.scale)
	hook.bars = 2
	hook.beat = s.beat
	hook.buf = make([]float64, int(s.at(2, 0)*SampleRate)+SampleRate/2)
	hook.melody(0, 2, prog, []float64{0.5, 0.5, 1, 0.5, 0.5, 1}, 1, 0.3, lead, 0)
	for bar := 2; bar < s.bars; bar += 2 {
		off := int(s.at(bar, 0) * SampleRate)
		for i, v := range hook.buf {
			if off+i < len(s.buf) {
				s.buf[off+i] += v
			}
		}
	}
	return s
}

func renderElectronic(id string) *score {
	s := newScore(id, 122, 128, 45, 50, minor)
	prog := pick(s.rng, [][]int{{0, 5, 3, 4}, {0, 0, 5, 6}, {0, 3, 5, 4}})
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		c := s.chord(deg, 1, false)
		for b := 0; b < 4; b++ {
			s.kick(s.at(bar, float64(b)), 1)
			s.hat(s.at(bar, float64(b)+0.5), 0.3, true)
			s.note(s.at(bar, float64(b)+0.5), 0.4*s.beat, s.pitch(deg, 0), 0.35, synthBass)
		}
		for _, b := range []float64{1, 3} {
			s.snare(s.at(bar, b), 0.5)
		}
		for i := 0; i < 16; i++ { // rising arpeggio in sixteenths
			n := c[i%len(c)] + 12*(i/len(c)%2)
			s.note(s.at(bar, float64(i)/4), 0.2*s.beat, n, 0.12, synthBass)
		}
		for _, n := range c {
			s.note(s.at(bar, 0), 4*s.beat, n, 0.05, pad)
		}
	}
	return s
}

func renderAmbient(id string) *score {
	s := newScore(id, 60, 72, 48, 55, major)
	s.scale = pick(s.rng, [][]int{major, lydian})
	prog := pick(s.rng, [][]int{{0, 0, 3, 3}, {0, 0, 5, 5}, {3, 3, 0, 0}})
	for bar := 0; bar < s.bars; bar += 2 {
		for _, n := range s.chord(prog[bar%len(prog)], 0, true) {
			s.note(s.at(bar, 0), 8*s.beat, n, 0.12, pad)
		}
	}
	for bar := 0; bar < s.bars; bar++ {
		for b := 0; b < 4; b++ {
			if s.rng.Float64() < 0.35 {
				deg := prog[bar%len(prog)] + pick(s.rng, []int{0, 2, 4, 7, 9})
				s.note(s.at(bar, float64(b)), s.beat, s.pitch(deg, 1), 0.15, bell)
			}
		}
	}
	return s
}

func renderCountry(id string) *score {
	s := newScore(id, 100, 125, 43, 48, major)
	// I-IV-V, four bars a cycle, and the V always leads home to the I.
	prog := pick(s.rng, [][]int{{0, 3, 4, 0}, {0, 0, 3, 4}, {0, 3, 0, 4}})
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		next := prog[(bar+1)%len(prog)]
		// Boom-chick: the bass alternates the root on 1 and the fifth below
		// on 3 ...
		s.note(s.at(bar, 0), 0.8*s.beat, s.pitch(deg, 0), 0.45, bass)
		s.note(s.at(bar, 2), 0.8*s.beat, s.pitch(deg+4, -1), 0.45, bass)
		if next != deg {
			// ... and steps into a chord change from the scale note below.
			s.note(s.at(bar, 3.5), 0.45*s.beat, s.pitch(next-1, 0), 0.35, bass)
		}
		// ... and a short strummed chord answers on 2 and 4: a downstroke,
		// so the strings sound 12 ms apart from the lowest up.
		voicing := append(s.chord(deg, 1, false), s.pitch(deg, 2))
		for _, b := range []float64{1, 3} {
			for i, n := range voicing {
				s.note(s.at(bar, b)+0.012*float64(i), 0.35*s.beat, n, 0.1, pluck)
			}
		}
		// A light kit keeps the two-beat feel: kick with the boom, snare
		// with the chick.
		for _, b := range []float64{0, 2} {
			s.kick(s.at(bar, b), 0.6)
		}
		for _, b := range []float64{1, 3} {
			s.snare(s.at(bar, b), 0.4)
		}
		for e := 0.0; e < 4; e += 0.5 {
			s.hat(s.at(bar, e), 0.12, false)
		}
	}
	// A simple fiddle-like tune in quarters and eighths after a bar of
	// rhythm section alone.
	s.melody(1, s.bars, prog, []float64{1, 0.5, 0.5, 1, 1}, 2, 0.22, lead, 0)
	return s
}

// twelveBar is the blues chorus as the semitones of each bar's chord above
// the tonic: I7 for four bars, IV7 for two, I7 for two, then V7, IV7 and
// I7 to the end.
var twelveBar = []int{0, 0, 0, 0, 5, 5, 0, 0, 7, 5, 0, 0}

func renderBlues(id string) *score {
	// A chorus at 70 bpm lasts 41 s, more than a catalogue track (about
	// 24 s), so the tempo stays at 85-100 bpm (9 or 10 bars) and the track
	// plays the chorus's last bars: it opens on the I7 and ends on the
	// turnaround's tonic.
	//
	// The lead plays the blues scale (the minor pentatonic with the flat
	// fifth): over the major dominant sevenths its minor third, flat fifth
	// and minor seventh are the blue notes.
	s := newScore(id, 85, 100, 40, 45, bluesScale)
	form := twelveBar[len(twelveBar)-s.bars:]
	const swing = 0.33 // shuffled eighths, as in renderJazz
	shuffle := func(e float64) float64 {
		if math.Mod(e, 1) == 0.5 {
			return e + swing/2
		}
		return e
	}
	last := s.bars - 1
	for bar := 0; bar < last; bar++ {
		chord := s.root + form[bar]
		formBar := len(twelveBar) - s.bars + bar
		for b := 0; b < 4; b++ {
			// The rhythm guitar's boogie: root with fifth, sixth, flat
			// seventh, sixth, each beat as two shuffled eighths.
			upper := []int{7, 9, 10, 9}[b]
			for _, e := range []float64{0, 0.5} {
				at := s.at(bar, shuffle(float64(b)+e))
				s.note(at, 0.3*s.beat, chord+12, 0.1, guitar)
				s.note(at, 0.3*s.beat, chord+12+upper, 0.1, guitar)
				s.hat(at, 0.2, false)
			}
			// A walking bass up the dominant seventh's arpeggio, then down.
			step := []int{0, 4, 7, 9}[b]
			if formBar%2 == 1 {
				step = []int{10, 9, 7, 4}[b]
			}
			s.note(s.at(bar, float64(b)), 0.85*s.beat, chord+step, 0.45, bass)
		}
		// A dominant seventh on the piano pushes the "and" of 2 and 4.
		for _, b := range []float64{1.5, 3.5} {
			for _, n := range []int{4, 7, 10, 12} {
				s.note(s.at(bar, shuffle(b)), 0.4*s.beat, chord+12+n, 0.07, piano)
			}
		}
		for _, b := range []float64{0, 2} {
			s.kick(s.at(bar, b), 0.6)
		}
		for _, b := range []float64{1, 3} {
			s.snare(s.at(bar, b), 0.55)
		}
	}
	// The ending: the band hits the tonic seventh together and lets it ring.
	for _, n := range []int{0, 7, 10, 16} {
		s.note(s.at(last, 0), 3*s.beat, s.root+12+n, 0.1, guitar)
	}
	s.note(s.at(last, 0), 3*s.beat, s.root, 0.45, bass)
	s.kick(s.at(last, 0), 0.7)
	s.ride(s.at(last, 0), 0.5)
	// The lead calls in the first two bars of each four-bar line and leaves
	// the other two to the band, over the blues scale: melody starts each
	// bar on the scale degree of the chord's root (I 0, IV 2, V 4).
	degree := map[int]int{0: 0, 5: 2, 7: 4}
	prog := make([]int, s.bars)
	for bar := range prog {
		prog[bar] = degree[form[bar]]
	}
	for bar := 0; bar < last; bar++ {
		if (len(twelveBar)-s.bars+bar)%4 < 2 {
			s.melody(bar, bar+1, prog, []float64{0.5, 0.5, 1, 0.5, 0.5, -1}, 2, 0.2, guitar, swing)
		}
	}
	return s
}

// reggaeBass is one bar of a bass riff: when (beat), how long (beats) and
// which scale step above the chord's root.
type reggaeBass []struct {
	at, dur float64
	step    int
}

func renderReggae(id string) *score {
	s := newScore(id, 70, 85, 45, 50, minor)
	// Minor (i-iv, i-VII, i-iv-VII-v) or major (I-IV-V, I-vi-IV-V).
	progs := [][]int{{0, 0, 3, 3}, {0, 0, 6, 6}, {0, 3, 6, 4}}
	if s.rng.IntN(2) == 0 {
		s.scale = major
		progs = [][]int{{0, 3, 4, 3}, {0, 0, 3, 4}, {0, 5, 3, 4}}
	}
	prog := pick(s.rng, progs)
	// One riff for the whole track, an octave below the root: reggae bass is
	// a deep, repeated tune rather than a pulse.
	riff := pick(s.rng, []reggaeBass{
		{{0, 1, 0}, {1, 0.5, 2}, {1.5, 0.5, 4}, {2.5, 0.5, 5}, {3, 1, 4}},
		{{0, 1.5, 0}, {1.5, 0.5, -1}, {2, 0.5, 0}, {2.5, 0.5, 2}, {3.5, 0.5, 4}},
		{{0, 0.5, 0}, {0.5, 0.5, 0}, {1, 1, 4}, {2.5, 0.5, 2}, {3, 0.5, 1}, {3.5, 0.5, 0}},
	})
	for bar := 0; bar < s.bars; bar++ {
		deg := prog[bar%len(prog)]
		// One drop: nothing on 1, kick and snare together on 3, hats on
		// the eighths, the off-beat ones louder.
		s.kick(s.at(bar, 2), 0.9)
		s.snare(s.at(bar, 2), 0.5)
		for e := 0.0; e < 4; e += 0.5 {
			amp := 0.12
			if math.Mod(e, 1) == 0.5 {
				amp = 0.2
			}
			s.hat(s.at(bar, e), amp, false)
		}
		// The skank: a short, muted chord on every "and".
		for b := 0.5; b < 4; b++ {
			for _, n := range s.chord(deg, 1, false) {
				s.note(s.at(bar, b), 0.12*s.beat, n, 0.1, pluck)
			}
		}
		for _, r := range riff {
			s.note(s.at(bar, r.at), 0.9*r.dur*s.beat, s.pitch(deg+r.step, -1), 0.6, bass)
		}
	}
	// A sparse, melodica-like tune in the second half.
	s.melody(s.bars/2, s.bars, prog, []float64{1.5, 0.5, 1, -1}, 2, 0.2, lead, 0)
	return s
}

// master fades the ends, normalises the peak to -1 dBFS and converts.
func (s *score) master() []int16 {
	fadeIn, fadeOut := int(0.02*SampleRate), int(2.0*SampleRate)
	peak := 0.0
	for i := range s.buf {
		if i < fadeIn {
			s.buf[i] *= float64(i) / float64(fadeIn)
		}
		if r := len(s.buf) - i; r < fadeOut {
			s.buf[i] *= float64(r) / float64(fadeOut)
		}
		peak = max(peak, math.Abs(s.buf[i]))
	}
	gain := 0.0
	if peak > 0 {
		gain = 0.89 * 32767 / peak
	}
	out := make([]int16, len(s.buf))
	for i, v := range s.buf {
		out[i] = int16(math.Round(v * gain))
	}
	return out
}
