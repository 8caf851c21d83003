package speech

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/harkhq/hark/server/speech/sphinx"
)

// evalLine is one utterance of the decoder comparison.
type evalLine struct {
	group, voice, ref string
}

// devLines picks n single-turn lines of the blind development sets (never
// the held-back ones) that flite and the dictionary can say as typed: no
// digits, every word in the dictionary (which leaves the typing errors
// out), 2 to 12 words; every k-th such line, so all authors are sampled.
func devLines(t *testing.T, n int, dict map[string]bool) []string {
	t.Helper()
	files, err := filepath.Glob("../dialogue/testdata/blind/dev*_en.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no blind development sets: %v", err)
	}
	sort.Strings(files)
	var ok []string
	for _, f := range files {
		if strings.Contains(f, "holdout") {
			t.Fatalf("held-back file %s matched", f)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(b))
	lines:
		for sc.Scan() {
			var l struct{ Q string }
			if json.Unmarshal(sc.Bytes(), &l) != nil || l.Q == "" {
				continue
			}
			words := strings.Fields(normalizeWords(l.Q))
			if len(words) < 2 || len(words) > 12 || strings.ContainsAny(l.Q, "0123456789@") {
				continue
			}
			for _, w := range words {
				if !dict[w] {
					continue lines
				}
			}
			ok = append(ok, l.Q)
		}
	}
	step := max(len(ok)/n, 1)
	var out []string
	for i := 0; i < len(ok) && len(out) < n; i += step {
		out = append(out, ok[i])
	}
	return out
}

// evalOutcome is every decoder's hypothesis of one utterance.
type evalOutcome struct {
	line evalLine
	hyps map[string]sphinx.Hyp // by column name
}

// decodeLines decodes every line with rec (two at a time), recording each
// decoder's hypothesis under name(decoder).
func decodeLines(t *testing.T, rec *Recognizer, lines []evalLine, audio map[evalLine][]byte, out []evalOutcome, name func(string) string) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, rec.Slots())
	for i, l := range lines {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			a := audio[l]
			res, err := rec.Recognize(context.Background(), "en", rateOf(t, a), bytes.NewReader(a))
			if err != nil {
				t.Errorf("%q: %v", l.ref, err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if out[i].hyps == nil {
				out[i] = evalOutcome{line: l, hyps: map[string]sphinx.Hyp{}}
			}
			for j, d := range rec.DecodersFor(rateOf(t, a)) {
				out[i].hyps[name(d)] = res.hyps[j]
			}
		}()
	}
	wg.Wait()
}

// TestDecoderComparison measures, on the same audio, the grammar, the
// full model, the domain model alone, the mixed model at several weights
// and the grammar paired with the full or mixed model under the choice
// rule at several margins: word error rates on the test set's commands and
// open questions and on a sample of blind development lines (kal16 and
// slt), and how often the dialogue takes the typed line's action. It takes
// many minutes, so it runs only with HARK_LM_EVAL=1 (HARK_LM_EVAL_N dev
// lines, 50 by default; HARK_LM_EVAL_WEIGHTS the mixed weights).
func TestDecoderComparison(t *testing.T) {
	if os.Getenv("HARK_LM_EVAL") == "" {
		t.Skip("set HARK_LM_EVAL=1 to run the decoder comparison (many minutes)")
	}
	n := 50
	if v, err := strconv.Atoi(os.Getenv("HARK_LM_EVAL_N")); err == nil {
		n = v
	}
	weights := []float64{0.5}
	if v := os.Getenv("HARK_LM_EVAL_WEIGHTS"); v != "" {
		weights = nil
		for _, f := range strings.Split(v, ",") {
			if f == "none" {
				break
			}
			w, err := strconv.ParseFloat(f, 64)
			if err != nil {
				t.Fatal(err)
			}
			weights = append(weights, w)
		}
	}
	dict, err := LoadDictionary(filepath.Join(DefaultModelDir, "cmudict-en-us.dict"))
	if err != nil {
		t.Fatal(err)
	}
	set := loadTestSet(t)
	var lines []evalLine
	voices := []string{"kal16", "slt"}
	if v := os.Getenv("HARK_LM_EVAL_VOICES"); v != "" { // "kal" speaks at 8 kHz
		voices = strings.Split(v, ",")
	}
	for _, voice := range voices {
		for _, c := range set.Commands {
			lines = append(lines, evalLine{"command", voice, c})
		}
		for _, q := range set.Questions {
			lines = append(lines, evalLine{"question", voice, q})
		}
		for _, d := range devLines(t, n, dict) {
			lines = append(lines, evalLine{"dev", voice, d})
		}
	}
	dir := os.Getenv("HARK_LM_EVAL_AUDIO") // a cache of the synthesised audio
	if dir == "" {
		dir = t.TempDir()
	}
	audio := map[evalLine][]byte{}
	for _, l := range lines {
		audio[l] = speak(t, dir, l.voice, l.ref)
	}
	out := make([]evalOutcome, len(lines))
	// HARK_LM_EVAL_HYPS keeps every decoder's hypotheses between runs, so
	// a run decodes only the columns it has not seen (the audio and the
	// decoders being the same).
	cache := map[string]map[string]sphinx.Hyp{}
	cacheFile := os.Getenv("HARK_LM_EVAL_HYPS")
	if cacheFile != "" {
		if b, err := os.ReadFile(cacheFile); err == nil {
			if err := json.Unmarshal(b, &cache); err != nil {
				t.Fatal(err)
			}
		}
	}
	keyOf := func(l evalLine) string { return l.group + "|" + l.voice + "|" + l.ref }
	run := func(cfg Config, name func(string) string) {
		missing := false
		for _, l := range lines {
			for _, d := range cfg.Decoders {
				if _, ok := cache[keyOf(l)][name(d)]; !ok {
					missing = true
				}
			}
		}
		if !missing {
			for i, l := range lines {
				if out[i].hyps == nil {
					out[i] = evalOutcome{line: l, hyps: map[string]sphinx.Hyp{}}
				}
				for _, d := range cfg.Decoders {
					out[i].hyps[name(d)] = cache[keyOf(l)][name(d)]
				}
			}
			return
		}
		rec, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		decodeLines(t, rec, lines, audio, out, name)
		rec.Close()
		for _, o := range out {
			if cache[keyOf(o.line)] == nil {
				cache[keyOf(o.line)] = map[string]sphinx.Hyp{}
			}
			for k, h := range o.hyps {
				cache[keyOf(o.line)][k] = h
			}
		}
		if cacheFile != "" {
			b, _ := json.Marshal(cache)
			if err := os.WriteFile(cacheFile, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	all := []string{SourceGrammar, SourceFull, SourceDomain}
	if v := os.Getenv("HARK_LM_EVAL_BASE"); v != "" { // fewer decoders, less time
		all = strings.Split(v, ",")
	}
	run(Config{Grammar: dialogueGrammar(), Slots: 2, Decoders: all, NarrowbandDecoders: all},
		func(d string) string { return d })
	// HARK_LM_EVAL_MIX: which mixed models, "all" (every n-gram of the
	// general model, the default), "queried" (before the trie reader) and
	// "pruned<threshold>" (ngram.Prune).
	kinds := []string{"all"}
	if v := os.Getenv("HARK_LM_EVAL_MIX"); v != "" {
		kinds = strings.Split(v, ",")
	}
	// HARK_LM_EVAL_ARGS: search settings of the mixed decoder to compare
	// with DefaultSearchArgs, separated by ";" ("-lw 8;-wip 0.2 -lw 8";
	// pocketsphinx's own are PocketsphinxSearchArgs).
	settings := []string{""}
	if v := os.Getenv("HARK_LM_EVAL_ARGS"); v != "" {
		settings = append(settings, strings.Split(v, ";")...)
	}
	var mixed []string
	for _, w := range weights {
		for _, kind := range kinds {
			for _, setting := range settings {
				col := fmt.Sprintf("mixed %.2f", w)
				if setting != "" {
					col += " [" + setting + "]"
				}
				var prune float64
				switch {
				case kind == "queried":
					col += " queried"
				case strings.HasPrefix(kind, "pruned"): // "pruned1e-7"
					if prune, err = strconv.ParseFloat(strings.TrimPrefix(kind, "pruned"), 64); err != nil {
						t.Fatal(err)
					}
					col += " " + kind
				}
				mixed = append(mixed, col)
				run(Config{Grammar: dialogueGrammar(), Slots: 2, Decoders: []string{SourceMixed},
					NarrowbandDecoders: []string{SourceMixed}, DomainWeight: w, mixQueried: kind == "queried", mixPrune: prune,
					SearchArgs: searchArgs(setting)},
					func(string) string { return col })
			}
		}
	}
	// HARK_LM_EVAL_DOMAIN_ARGS: search settings of the domain decoder (8
	// kHz audio and short commands) to compare with its default, the
	// "domain" column, separated by ";" as HARK_LM_EVAL_ARGS.
	var domains []string
	if v := os.Getenv("HARK_LM_EVAL_DOMAIN_ARGS"); v != "" {
		for _, setting := range strings.Split(v, ";") {
			col := SourceDomain + " [" + setting + "]"
			domains = append(domains, col)
			run(Config{Grammar: dialogueGrammar(), Slots: 2, Decoders: []string{SourceDomain},
				NarrowbandDecoders: []string{SourceDomain}, DomainSearchArgs: strings.Fields(setting)},
				func(string) string { return col })
		}
	}
	g := testRecognizer(t).grammar
	type column struct {
		name string
		pick func(o evalOutcome) string
	}
	single := func(name string) column {
		return column{name, func(o evalOutcome) string { return o.hyps[name].Text }}
	}
	paired := func(first, free string, margin float64) column {
		return column{fmt.Sprintf("%s+%s @%g", first, free, margin), func(o evalOutcome) string {
			text, _, _ := choose(o.hyps[first], o.hyps[free], margin, g.Contains)
			return text
		}}
	}
	cols := []column{single(SourceGrammar), single(SourceFull), single(SourceDomain)}
	for _, m := range mixed {
		cols = append(cols, single(m))
	}
	for _, d := range domains {
		cols = append(cols, single(d))
	}
	cols = append(cols, paired(SourceGrammar, SourceFull, DefaultMinMargin))
	margins := []float64{-8, -4, 0, 4, 8, 12}
	for _, margin := range margins {
		cols = append(cols, paired(SourceDomain, SourceFull, margin))
	}
	for _, d := range domains {
		// Settings that change the language weight change the scale of
		// the domain decoder's scores against the full one's: finer margins.
		for _, margin := range []float64{-8, -4, -2, -1, 0, 1, 2, 4, 8} {
			cols = append(cols, paired(d, SourceFull, margin))
		}
	}
	for _, m := range mixed {
		for _, first := range []string{SourceGrammar, SourceDomain} {
			for _, margin := range margins {
				cols = append(cols, paired(first, m, margin))
			}
		}
		for _, margin := range []float64{-8, -4, -3, -2, -1, 0, 1, 2, 3, 4, 8, 12} {
			cols = append(cols, paired(m, SourceFull, margin))
		}
	}
	for _, o := range out {
		parts := []string{}
		for _, c := range cols[:3+len(mixed)+len(domains)] {
			parts = append(parts, fmt.Sprintf("%s=%q", c.name, c.pick(o)))
		}
		gh, fh := o.hyps[SourceGrammar], o.hyps[SourceFull]
		dh := o.hyps[SourceDomain]
		t.Logf("%s %s %q: %s margin(grammar-full) %+.1f margin(domain-full) %+.1f", o.line.group, o.line.voice, o.line.ref,
			strings.Join(parts, " "), float64(gh.Score-fh.Score)/float64(max(gh.Frames, fh.Frames, 1)),
			float64(dh.Score-fh.Score)/float64(max(dh.Frames, fh.Frames, 1)))
	}
	t.Logf("%-28s %9s %9s %9s %9s %9s %9s %9s %9s", "decoders", "cmd WER", "cmd act", "q WER", "dev WER", "dev act", "cmd WERs", "dev WERs", "dev acts")
	for _, c := range cols {
		type acc struct{ errs, words, same, n float64 }
		stats := map[string]*acc{}
		for _, o := range out {
			hyp := c.pick(o)
			for _, key := range []string{o.line.group, o.line.group + " " + o.line.voice} {
				a := stats[key]
				if a == nil {
					a = &acc{}
					stats[key] = a
				}
				words := float64(len(strings.Fields(normalizeWords(o.line.ref))))
				a.errs += wordErrorRate(o.line.ref, hyp) * words
				a.words += words
				a.n++
				if o.line.group != "question" && actionOf(t, o.line.ref) == actionOf(t, hyp) {
					a.same++
				}
			}
		}
		wer := func(k string) string {
			if stats[k] == nil {
				return "-"
			}
			return fmt.Sprintf("%.1f", 100*stats[k].errs/stats[k].words)
		}
		act := func(k string) string {
			if stats[k] == nil {
				return "-"
			}
			return fmt.Sprintf("%.1f", 100*stats[k].same/stats[k].n)
		}
		t.Logf("%-28s %9s %9s %9s %9s %9s %9s %9s %9s", c.name, wer("command"), act("command"), wer("question"),
			wer("dev"), act("dev"), wer("command kal16")+"/"+wer("command slt"), wer("dev kal16")+"/"+wer("dev slt"),
			act("dev kal16")+"/"+act("dev slt"))
	}
}

// TestWorkerMemory reports the resident memory of a process holding one
// slot of the decoders in HARK_LM_RSS (comma-separated, as
// Config.Decoders and NarrowbandDecoders, or "default" for the defaults),
// as a speech worker does; run it once per arrangement, each in its own
// process: HARK_LM_RSS=grammar,full go test -run WorkerMemory -v
// ./server/speech (HARK_LM_EVAL_MIX=queried: the mixed model as before
// the trie reader)
func TestWorkerMemory(t *testing.T) {
	decs := os.Getenv("HARK_LM_RSS")
	if decs == "" {
		t.Skip("set HARK_LM_RSS to the decoders to measure")
	}
	before := rss(t)
	cfg := Config{Grammar: dialogueGrammar(), Slots: 1, mixQueried: os.Getenv("HARK_LM_EVAL_MIX") == "queried"}
	if decs != "default" {
		cfg.Decoders = strings.Split(decs, ",")
		cfg.NarrowbandDecoders = cfg.Decoders
	}
	rec, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	a := speak(t, t.TempDir(), "kal16", "what's the weather like in london tomorrow")
	if _, err := rec.Recognize(context.Background(), "en", 16000, bytes.NewReader(a)); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: RSS %d MiB after one utterance (%d MiB before loading)", decs, rss(t)>>20, before>>20)
}

func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Skip("no VmRSS")
	return 0
}

// searchArgs are the mixed decoder's settings of a HARK_LM_EVAL_ARGS
// entry: nil (DefaultSearchArgs) for the empty one, which an empty list
// would turn into pocketsphinx's own.
func searchArgs(setting string) []string {
	if setting == "" {
		return nil
	}
	return strings.Fields(setting)
}
