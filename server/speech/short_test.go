package speech

import (
	"bytes"
	"context"
	"math"
	"os"
	"strings"
	"sync"
	"testing"
)

// shortRun decodes audios two at a time (one per core) on rec, each
// with the options opt gives it.
func shortRun(t *testing.T, rec *Recognizer, audios [][]byte, opt func(i int) Options) []Result {
	t.Helper()
	out := make([]Result, len(audios))
	errs := make([]error, len(audios))
	var wg sync.WaitGroup
	sem := make(chan struct{}, rec.Slots())
	for i, audio := range audios {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i], errs[i] = RecognizeWith(context.Background(), rec, "en", rateOf(t, audio), opt(i), bytes.NewReader(audio))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("utterance %d: %v", i, err)
		}
	}
	return out
}

// speakAll synthesises texts in voice.
func speakAll(t *testing.T, dir, voice string, texts []string) [][]byte {
	t.Helper()
	out := make([][]byte, len(texts))
	for i, text := range texts {
		out[i] = speak(t, dir, voice, text)
	}
	return out
}

// TestShortCommandsEarly measures the early start of short commands
// against decoding them after their end (Config.LateStart), on the
// sub-second commands of the fixtures (kal16; slt too with the variants): a speaker's first
// command (no prior: the model's initial mean seeds the full decoder's
// early frames) and a later one (the prior is the mean of the same
// speaker's previous command, as harkd carries it). Neither may lose
// accuracy, and each must have been searched by the short arrangement
// (Config.ShortDecoder, the domain decoder, against the early full one).
// HARK_SHORT_VARIANTS=1 also measures the alternatives the package
// documentation compares.
func TestShortCommandsEarly(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes about 250 utterances")
	}
	skipUnderRace(t)
	set := loadTestSet(t)
	if len(set.Short) < 20 {
		t.Fatalf("%d short commands in the fixtures", len(set.Short))
	}
	rec := testRecognizer(t)
	// The reference is decoding after the end as when the short
	// arrangement was chosen: the mixed decoder with pocketsphinx's search
	// settings. With today's (DefaultSearchArgs) the mixed decoder after
	// the end hears two words more of kal16's first sub-second commands
	// than the short arrangement ("delete alarm", 6.1 % against 12.1 %,
	// measured once; package documentation, "Search settings"), at the
	// 0.4-0.8 × real time after the last byte that the short arrangement
	// exists to avoid.
	late, err := New(Config{Grammar: dialogueGrammar(), LateStart: true, SearchArgs: PocketsphinxSearchArgs})
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	variants := os.Getenv("HARK_SHORT_VARIANTS") == "1"
	// Earlier utterances of the same speaker: 2-3 s commands.
	firsts := []string{"what's the weather like in london tomorrow", "set a timer for twenty minutes", "play some classical music"}
	// 16 kHz only: 8 kHz uploads are decoded after the mean is known (their
	// early start lost accuracy once domain + full decoded them). make test
	// speaks kal16; HARK_SHORT_VARIANTS=1 adds slt (the table in the
	// package documentation has both).
	voices := []string{"kal16"}
	if variants {
		voices = append(voices, "slt")
	}
	for _, voice := range voices {
		dir := t.TempDir()
		audios, firstAudios := speakAll(t, dir, voice, set.Short), speakAll(t, dir, voice, firsts)
		none := func(int) Options { return Options{} }
		base := shortRun(t, late, audios, none)
		firstRes := shortRun(t, late, firstAudios, none)
		// Only commands of less than MeanDelay frames of speech change.
		var idx []int
		for i, r := range base {
			if r.Mean != nil && r.Mean.Frames < rec.cfg.MeanDelay {
				idx = append(idx, i)
			}
		}
		if len(idx) < len(set.Short)/4 {
			t.Fatalf("%s: only %d of %d short commands are under %d frames", voice, len(idx), len(set.Short), rec.cfg.MeanDelay)
		}
		wer := func(label string, res []Result) float64 {
			var errs, words float64
			var diff []string
			for _, i := range idx {
				n := float64(len(strings.Fields(set.Short[i])))
				errs += wordErrorRate(set.Short[i], res[i].Text) * n
				words += n
				if res[i].Text != base[i].Text {
					diff = append(diff, "«"+res[i].Text+"» not «"+base[i].Text+"» ("+set.Short[i]+")")
				}
			}
			t.Logf("%s %-26s WER %5.1f%% over %d commands (%0.f words); differs from late on: %s",
				voice, label, 100*errs/words, len(idx), words, strings.Join(diff, ", "))
			return errs / words
		}
		lateWER := wer("late (after the end)", base)
		session := func(i int) Options {
			return Options{Prior: firstRes[i%len(firstRes)].Mean}
		}
		// The short arrangement searched every command under MeanDelay
		// frames (the 300 ms target depends on it: the mixed decoder
		// would search it after its end at 0.4-0.8 times real time).
		short := func(label string, res []Result) []Result {
			for _, i := range idx {
				if _, ok := res[i].ByDecoder[rec.cfg.ShortDecoder]; !ok || len(res[i].ByDecoder) != len(rec.short.names) {
					t.Errorf("%s %s: %q was decoded by %v, want %v", voice, label, set.Short[i], res[i].ByDecoder, rec.short.names)
				}
			}
			return res
		}
		if got := wer("early, first command", short("first", shortRun(t, rec, audios, none))); got > lateWER {
			t.Errorf("%s: the early start without a prior loses accuracy: WER %.1f%%, late %.1f%%", voice, 100*got, 100*lateWER)
		}
		if got := wer("early, session prior", short("session", shortRun(t, rec, audios, session))); got > lateWER {
			t.Errorf("%s: the early start with a session prior loses accuracy: WER %.1f%%, late %.1f%%", voice, 100*got, 100*lateWER)
		}
		if !variants {
			continue
		}
		// The arrangement before the short one: the mixed decoder after
		// the end against the early full decoder.
		before := *rec
		before.short = rec.wide
		wer("mixed after end, first", shortRun(t, &before, audios, none))
		wer("mixed after end, session", shortRun(t, &before, audios, session))
		for _, v := range []struct {
			label string
			opt   func(int) Options
		}{
			{"running mean from 0", func(int) Options { return Options{early: earlyRunning} }},
			{"model mean, weight 30", func(int) Options { return Options{priorWeight: 30} }},
			{"model mean, weight 300", func(int) Options { return Options{priorWeight: 300} }},
			{"prior weight 30", func(i int) Options { o := session(i); o.priorWeight = 30; return o }},
			{"prior weight 300", func(i int) Options { o := session(i); o.priorWeight = 300; return o }},
			{"prior of another short", func(i int) Options { return Options{Prior: base[(i+1)%len(base)].Mean} }},
			{"mixed early too, first", func(int) Options { return Options{earlyGrammar: true} }},
			{"mixed early too, session", func(i int) Options { o := session(i); o.earlyGrammar = true; return o }},
		} {
			wer(v.label, shortRun(t, &before, audios, v.opt))
		}
	}
}

// TestLongUtteranceDecodedAsIfLate: once the first MeanDelay frames are
// in, the full decoder starts over on the exactly normalised frames, so
// a command longer than that gets the result it got before the early
// start, with or without a prior: the same hypotheses, and the margin up
// to the decoder's own history (pocketsphinx carries some state from one
// search to the next: the same audio decoded late twice on one slot, with
// other utterances between, measured margins 20.96 and 21.17).
func TestLongUtteranceDecodedAsIfLate(t *testing.T) {
	rec := testRecognizer(t)
	late := *rec
	late.cfg.LateStart = true
	audio := speak(t, t.TempDir(), "slt", "what's the weather like in london tomorrow")
	want, err := late.Recognize(context.Background(), "en", 16000, bytes.NewReader(audio))
	if err != nil {
		t.Fatal(err)
	}
	if want.Mean == nil || want.Mean.Frames <= rec.cfg.MeanDelay {
		t.Fatalf("the fixture is not longer than %d frames: %+v", rec.cfg.MeanDelay, want.Mean)
	}
	for _, opt := range []Options{{}, {Prior: &Prior{Mean: make([]float32, len(want.Mean.Mean)), Frames: 100}}} {
		got, err := RecognizeWith(context.Background(), rec, "en", 16000, opt, bytes.NewReader(audio))
		if err != nil {
			t.Fatal(err)
		}
		if got.FullText != want.FullText || got.GrammarText != want.GrammarText || math.Abs(got.Margin-want.Margin) > 1 {
			t.Fatalf("early start (prior %v): %+v, want %+v", opt.Prior != nil, got, want)
		}
	}
}

// TestShortCommandsMeasure (HARK_SHORT_MEASURE=1) logs, for every short
// command (kal16 and slt, first command and with a session prior), the
// early seed's distance from the exact mean (Result.earlyDistance) and the
// texts of the arrangements "Short commands" compares: decoded after the
// end (late), the mixed decoder after the end with the full one early
// (free), both early (both), the mixed decoder alone after the end and
// early, the default (domain), and the domain and full decoders both
// early (domainEarly). One line per command, tab-separated,
// for tabulating.
func TestShortCommandsMeasure(t *testing.T) {
	mode := os.Getenv("HARK_SHORT_MEASURE")
	if mode != "1" && mode != "open" {
		t.Skip("HARK_SHORT_MEASURE=1 (all), open (the short open phrases only)")
	}
	set := loadTestSet(t)
	rec := testRecognizer(t)
	late := *rec
	late.cfg.LateStart = true
	alone, err := New(Config{Grammar: dialogueGrammar(), Decoders: []string{SourceMixed}, NarrowbandDecoders: []string{SourceDomain}})
	if err != nil {
		t.Fatal(err)
	}
	defer alone.Close()
	dom, err := New(Config{Grammar: dialogueGrammar(), Decoders: []string{SourceDomain, SourceFull}})
	if err != nil {
		t.Fatal(err)
	}
	defer dom.Close()
	before := *rec // the mixed decoder after the end, as before the short arrangement
	before.short = rec.wide
	aloneLate := *alone
	aloneLate.cfg.LateStart = true
	firsts := []string{"what's the weather like in london tomorrow", "set a timer for twenty minutes", "play some classical music"}
	// Short phrases outside the commands, which the domain model may force
	// onto one: the margin of 4 must hand them to the full model.
	open := []string{"who is obama", "what is love", "how old are you", "never mind", "bless you",
		"good night", "i am hungry", "what is pi", "where is paris", "nice shoes"}
	for _, voice := range []string{"kal16", "slt"} {
		openAudios := speakAll(t, t.TempDir(), voice, open)
		openLate := shortRun(t, &late, openAudios, func(int) Options { return Options{} })
		openBefore := shortRun(t, &before, openAudios, func(int) Options { return Options{} })
		openNow := shortRun(t, rec, openAudios, func(int) Options { return Options{} })
		for i, r := range openLate {
			if r.Mean == nil || r.Mean.Frames >= rec.cfg.MeanDelay {
				continue
			}
			t.Logf("M\t%s\topen\t%q\t%d\t%.2f\tlate=%q [%s]\tfree=%q [%s %s|%s %+.1f]\tdomain=%q [%s %s|%s %+.1f]",
				voice, open[i], r.Mean.Frames, openNow[i].earlyDistance, r.Text, r.Source,
				openBefore[i].Text, openBefore[i].Source, openBefore[i].GrammarText, openBefore[i].FullText, openBefore[i].Margin,
				openNow[i].Text, openNow[i].Source, openNow[i].GrammarText, openNow[i].FullText, openNow[i].Margin)
		}
	}
	if mode == "open" {
		return
	}
	for _, voice := range []string{"kal16", "slt"} {
		dir := t.TempDir()
		audios, firstAudios := speakAll(t, dir, voice, set.Short), speakAll(t, dir, voice, firsts)
		none := func(int) Options { return Options{} }
		base := shortRun(t, &late, audios, none)
		firstRes := shortRun(t, &late, firstAudios, none)
		aLate := shortRun(t, &aloneLate, audios, none)
		for _, prior := range []string{"first", "session"} {
			opt := func(i int) Options {
				if prior == "session" {
					return Options{Prior: firstRes[i%len(firstRes)].Mean}
				}
				return Options{}
			}
			both := func(i int) Options { o := opt(i); o.earlyGrammar = true; return o }
			free := shortRun(t, &before, audios, opt)
			all := shortRun(t, rec, audios, both)
			aEarly := shortRun(t, alone, audios, both)
			domain := shortRun(t, rec, audios, opt)
			domEarly := shortRun(t, dom, audios, both)
			for i, r := range base {
				if r.Mean == nil || r.Mean.Frames >= rec.cfg.MeanDelay {
					continue
				}
				t.Logf("M\t%s\t%s\t%q\t%d\t%.2f\tlate=%q [%s|%s %+.1f]\tfree=%q [%s|%s %+.1f]\tboth=%q [%s|%s %+.1f]\taloneLate=%q\taloneEarly=%q\tdomain=%q [%s|%s %+.1f]\tdomainEarly=%q [%s|%s %+.1f]",
					voice, prior, set.Short[i], r.Mean.Frames, all[i].earlyDistance,
					r.Text, r.GrammarText, r.FullText, r.Margin,
					free[i].Text, free[i].GrammarText, free[i].FullText, free[i].Margin,
					all[i].Text, all[i].GrammarText, all[i].FullText, all[i].Margin,
					aLate[i].Text, aEarly[i].Text, domain[i].Text, domain[i].GrammarText, domain[i].FullText, domain[i].Margin,
					domEarly[i].Text, domEarly[i].GrammarText, domEarly[i].FullText, domEarly[i].Margin)
			}
		}
	}
}
