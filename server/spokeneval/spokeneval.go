// Package spokeneval is the spoken evaluation of the blind phrasing sets
// (server/dialogue/testdata/blind): the English lines that can be spoken
// are synthesised with flite voices and sent through the real server's
// /v2/query/audio/data, and the same text through /v2/query/text, so that
// recognition is judged by what the assistant then does. This package
// holds the parts that need no server — which lines can be spoken, what
// flite says for them, word error rate, the WAV cache and the seeded
// sample; its tests drive a real in-process server (eval_test.go).
//
// # Which lines can be spoken
//
// A line is kept when every word of it, lower-cased and stripped of
// surrounding punctuation, is in the recogniser's pronunciation
// dictionary (cmudict-en-us.dict), or is a number flite reads ("7", "7:30",
// "0545", "25%", "2nd", "7am"). Hyphenated words count as their parts.
// Anything else — a typo ("tiemr"), an abbreviation the dictionary lacks
// ("tmrw", "pls"), an address ("mark@example.com", "github.com"), a digit
// form that is not a number ("1h30m", "3/5", "+1") — drops the line: the
// recogniser cannot be asked to hear a word it has no pronunciation for,
// and the reference text of such a line is not what flite says. A
// multi-turn sequence is kept only when each of its turns is.
//
// # The reference text and the word error rate
//
// The reference is the line's words with every number replaced by the
// words flite says for it (flite -pw: "7:30" is "seven thirty", "0545" is
// "zero five four five", "1500" is "one thousand five hundred", "25%" is
// "twenty five per cent"), read in the whole line, since flite reads a
// number by its neighbours ("call 212 555 0147" digit by digit). Both the reference and the recognised text are
// then normalised the same way (Normalize): lower case; a.m./p.m. and
// flite's spelled "a m"/"p m" become "am"/"pm"; "per cent" becomes
// "percent"; every character but letters, digits and apostrophes becomes
// a space; apostrophes at the ends of words go; a word spelled two ways
// with the same sound is written one way (Spelling: "okay" is "ok", the
// dictionary's British spellings are American, as the recogniser writes
// them, a word with an apostrophe as the same sound without it, "what's"
// as "whats"), as a scoring tool's global mapping file does. Then, as
// such a file also does, filled pauses ("uh", "um") are optional, and a
// word joined on one side and apart on the other ("bluetooth" and "blue
// tooth", "wifi" and "wi fi", "sms" and flite's "s m s") is written as
// the reference writes it (Errors). WER is the word-level edit distance
// over the reference's word count, summed over lines (so long lines weigh
// more), as in server/speech's accuracy test.
package spokeneval

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/harkhq/hark/audio"
	"github.com/harkhq/hark/server/speech"
)

// DictPath is the pronunciation dictionary of the en-us model (Debian's
// pocketsphinx-en-us), the words the recogniser can hear.
const DictPath = speech.DefaultModelDir + "/cmudict-en-us.dict"

// Turn is one query of a case.
type Turn struct {
	Q      string `json:"q"`
	Expect string `json:"expect"`
	// Said is the reference text: what flite says for Q, normalised
	// (filled by Selector.Select).
	Said string `json:"-"`
}

// Case is one line of a blind set: a single turn, or a sequence of turns
// forming one conversation.
type Case struct {
	Set        string // "dev3", "holdout", ...
	Line       int    // 1-based line of the file
	NoLocation bool
	Turns      []Turn
}

// Label names the case for failure lists (dev sets only).
func (c Case) Label() string { return fmt.Sprintf("%s:%d", c.Set, c.Line) }

// Load reads a blind set file (format: testdata/blind/README.md).
func Load(path, set string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var raw struct {
			Turn
			NoLocation bool   `json:"nolocation"`
			Turns      []Turn `json:"turns"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		c := Case{Set: set, Line: line, NoLocation: raw.NoLocation, Turns: raw.Turns}
		if len(c.Turns) == 0 {
			c.Turns = []Turn{raw.Turn}
		}
		for _, t := range c.Turns {
			if strings.TrimSpace(t.Q) == "" || t.Expect == "" {
				return nil, fmt.Errorf("%s:%d: a turn without q or expect", path, line)
			}
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Dictionary is the set of words the recogniser can say.
type Dictionary map[string]bool

// LoadDictionary reads a pocketsphinx dictionary; alternative
// pronunciations ("word(2)") count as the word.
func LoadDictionary(path string) (Dictionary, error) {
	d, err := speech.LoadDictionary(path)
	if err != nil {
		return nil, err
	}
	if len(d) == 0 {
		return nil, fmt.Errorf("%s holds no words", path)
	}
	return d, nil
}

// numberToken is a number flite reads as words: digits with separators,
// and a percent sign, an ordinal ending or am/pm after them.
var numberToken = regexp.MustCompile(`^[0-9]+([:.,][0-9]+)*(%|st|nd|rd|th|s|am|pm)?$`)

// Reader gives the words flite says for a text (flite -pw).
type Reader func(ctx context.Context, text string) (string, error)

// FliteWords is the Reader of the installed flite.
func FliteWords(ctx context.Context, text string) (string, error) {
	out, err := exec.CommandContext(ctx, "flite", "-voice", "kal16", "-pw", "-t", text, "-o", "none").Output()
	if err != nil {
		return "", fmt.Errorf("flite -pw %q: %v", text, err)
	}
	return string(out), nil
}

// Selector decides which lines can be spoken and what flite says for them.
type Selector struct {
	Dict  Dictionary
	Words Reader
	mu    sync.Mutex
	cache map[string]string // number token -> normalised reading
}

// Spoken returns the reference text of q (what flite says, normalised),
// or ok false when q holds a word that cannot be spoken (see the package
// documentation).
func (s *Selector) Spoken(ctx context.Context, q string) (said string, ok bool, err error) {
	var out []string
	numbers := false
	for _, tok := range strings.Fields(strings.ToLower(q)) {
		// symbols flite reads aloud or spells ("w/", "a+b", "c#") have no
		// reference text this package could write down
		if strings.ContainsAny(tok, "/@&+#=*_~<>|\\$") {
			return "", false, nil
		}
		tok = strings.TrimFunc(tok, func(r rune) bool {
			return r != '%' && (unicode.IsPunct(r) || unicode.IsSymbol(r))
		})
		tok = strings.TrimLeft(tok, "%")
		if tok == "" {
			continue
		}
		if numberToken.MatchString(tok) {
			numbers = true
			reading, err := s.reading(ctx, tok)
			if err != nil {
				return "", false, err
			}
			if reading == "" {
				return "", false, nil
			}
			out = append(out, reading)
			continue
		}
		for _, part := range strings.Split(tok, "-") {
			if part == "" || !s.Dict[part] {
				return "", false, nil
			}
			out = append(out, part)
		}
	}
	if len(out) == 0 {
		return "", false, nil
	}
	said = Normalize(strings.Join(out, " "))
	if numbers {
		// flite reads a number by its neighbours: "1700" alone is
		// "seventeen hundred" but "alarm for 1700" is "alarm for one
		// thousand seven hundred", "212" alone "two hundred twelve" but
		// "call 212 555 0147" digit by digit. The audio is the whole
		// line's, so the reference is too, when every word of it is known.
		raw, err := s.Words(ctx, q)
		if err != nil {
			return "", false, err
		}
		// flite writes a clitic as a word of its own ("i 've", "doctor
		// 's"); it belongs to the word before.
		raw = clitic.ReplaceAllString(raw, "$1")
		whole := Normalize(strings.ReplaceAll(raw, "_", " "))
		if whole != "" && !slices.ContainsFunc(strings.Fields(whole), func(w string) bool { return !s.Dict[w] }) {
			said = whole
		}
	}
	return said, true, nil
}

// Canonical is text in the form texts are compared in: numbers as flite
// says them, then Normalize. A token that is not a number, or one flite
// reads with words the dictionary lacks, stays as it is.
func (s *Selector) Canonical(ctx context.Context, text string) string {
	toks := strings.Fields(strings.ToLower(text))
	for i, tok := range toks {
		bare := strings.TrimFunc(tok, func(r rune) bool {
			return r != '%' && (unicode.IsPunct(r) || unicode.IsSymbol(r))
		})
		if numberToken.MatchString(bare) {
			if r, err := s.reading(ctx, bare); err == nil && r != "" {
				toks[i] = r
			}
		}
	}
	return Normalize(strings.Join(toks, " "))
}

// reading is flite's words for a number token, "" when one of them is not
// in the dictionary.
func (s *Selector) reading(ctx context.Context, tok string) (string, error) {
	s.mu.Lock()
	r, ok := s.cache[tok]
	s.mu.Unlock()
	if ok {
		return r, nil
	}
	raw, err := s.Words(ctx, tok)
	if err != nil {
		return "", err
	}
	r = Normalize(strings.ReplaceAll(raw, "_", " "))
	for _, w := range strings.Fields(r) {
		if !s.Dict[w] {
			r = ""
			break
		}
	}
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[string]string{}
	}
	s.cache[tok] = r
	s.mu.Unlock()
	return r, nil
}

// Select keeps the cases whose every turn can be spoken, with their
// reference texts filled in.
func (s *Selector) Select(ctx context.Context, cases []Case) ([]Case, error) {
	var kept []Case
next:
	for _, c := range cases {
		turns := make([]Turn, len(c.Turns))
		for i, t := range c.Turns {
			said, ok, err := s.Spoken(ctx, t.Q)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue next
			}
			t.Said = said
			turns[i] = t
		}
		c.Turns = turns
		kept = append(kept, c)
	}
	return kept, nil
}

var (
	clitic          = regexp.MustCompile(`\s+('[a-z]+)\b`)
	spelledMeridiem = regexp.MustCompile(`\b([ap]) m\b`)
	perCent         = regexp.MustCompile(`\bper cent\b`)
)

// Normalize puts a text into the form both sides of the word error rate
// are compared in (see the package documentation).
func Normalize(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("a.m.", "am", "p.m.", "pm").Replace(s)
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	fields := strings.Fields(b.String())
	kept := fields[:0]
	for _, f := range fields {
		if f = strings.Trim(f, "'"); f != "" {
			kept = append(kept, Spelling(f))
		}
	}
	s = strings.Join(kept, " ")
	s = spelledMeridiem.ReplaceAllString(s, "${1}m")
	return perCent.ReplaceAllString(s, "percent")
}

var spellings = sync.OnceValue(func() map[string]string {
	sp, err := speech.Spellings(speech.DefaultModelDir)
	if err != nil {
		return map[string]string{} // no dictionary: no recogniser to score either
	}
	sp = maps.Clone(sp) // the recogniser's own is shared
	sp["okay"] = "ok"   // both in the dictionary, one pronunciation; neither is British
	if err := apostrophes(DictPath, sp); err != nil {
		return map[string]string{}
	}
	return sp
})

// apostrophes adds to sp each word with an apostrophe that the dictionary
// also has without it and with the same sound, written without it: typed
// lines drop apostrophes ("whats the temp", "todays date"), and no
// recogniser can hear one ("minute's" is "minutes"). Words that sound
// different stay apart ("we'll" and "well", "i'm" and "im").
func apostrophes(path string, sp map[string]string) error {
	phones := map[string][]string{} // every pronunciation of every word
	if err := speech.ScanDictionary(path, func(word, p string) { phones[word] = append(phones[word], p) }); err != nil {
		return err
	}
	for word, ps := range phones {
		bare := strings.ReplaceAll(word, "'", "")
		if bare == word || sp[word] != "" {
			continue
		}
		if slices.ContainsFunc(phones[bare], func(p string) bool { return slices.Contains(ps, p) }) {
			if to, ok := sp[bare]; ok {
				bare = to
			}
			sp[word] = bare
		}
	}
	return nil
}

// Spelling is the one spelling of a word the comparison uses: "okay" and
// "ok" are the same word, the dictionary's British spellings the American
// ones (speech.Spellings). The recogniser cannot hear which spelling was
// meant, and a typed line may use either.
func Spelling(word string) string {
	if to, ok := spellings()[word]; ok {
		return to
	}
	return word
}

// EditDistance is the word-level Levenshtein distance between ref and hyp.
func EditDistance(ref, hyp []string) int {
	prev := make([]int, len(hyp)+1)
	cur := make([]int, len(hyp)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ref); i++ {
		cur[0] = i
		for j := 1; j <= len(hyp); j++ {
			sub := prev[j-1]
			if ref[i-1] != hyp[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(hyp)]
}

// Errors counts the word errors of hyp against the reference ref, both
// normalised here, and the reference's words. As in a scoring tool's
// global mapping file, filled pauses are optional (hesitations), and a
// word written joined on one side and apart on the other ("bluetooth"
// and "blue tooth", "sms" and flite's "s m s") is written as the
// reference writes it (compounds).
func Errors(ref, hyp string) (errs, words int) {
	r := hesitationsOut(strings.Fields(Normalize(ref)))
	h := compounds(r, hesitationsOut(strings.Fields(Normalize(hyp))))
	return EditDistance(r, h), len(r)
}

// hesitations are the filled pauses a recogniser may or may not write.
var hesitations = map[string]bool{"uh": true, "um": true, "uhm": true, "ugh": true, "er": true, "erm": true, "hmm": true, "mm": true}

func hesitationsOut(words []string) []string {
	return slices.DeleteFunc(words, func(w string) bool { return hesitations[w] })
}

// compounds rewrites hyp's words that the reference writes joined or apart
// the other way: two or three hypothesis words whose letters make one
// reference word become that word, and one hypothesis word whose letters
// are two or three consecutive reference words becomes them.
func compounds(ref, hyp []string) []string {
	joined := map[string][]string{} // consecutive reference words by their letters
	for n := 2; n <= 3; n++ {
		for i := 0; i+n <= len(ref); i++ {
			joined[strings.Join(ref[i:i+n], "")] = ref[i : i+n]
		}
	}
	inRef := map[string]bool{}
	for _, w := range ref {
		inRef[w] = true
	}
	var out []string
next:
	for i := 0; i < len(hyp); i++ {
		if parts, ok := joined[hyp[i]]; ok && !inRef[hyp[i]] {
			out = append(out, parts...)
			continue
		}
		for n := 3; n >= 2; n-- {
			if i+n <= len(hyp) {
				if w := strings.Join(hyp[i:i+n], ""); inRef[w] {
					out = append(out, w)
					i += n - 1
					continue next
				}
			}
		}
		out = append(out, hyp[i])
	}
	return out
}

// Sample picks n cases with a fixed seed, so the same lines are spoken on
// every run (all of them when n covers the set). The order of cases is
// kept.
func Sample(cases []Case, n int, seed uint64) []Case {
	if n >= len(cases) {
		return cases
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	idx := r.Perm(len(cases))[:n]
	sort.Ints(idx)
	out := make([]Case, n)
	for i, j := range idx {
		out[i] = cases[j]
	}
	return out
}

// Voice is one way of speaking: a flite voice and the rate sent to the
// server (16000, or 8000 made by downsampling the voice's 16 kHz output,
// as a telephone channel would).
type Voice struct {
	Name string
	Rate int
}

func (v Voice) String() string {
	if v.Rate == 16000 {
		return v.Name
	}
	return fmt.Sprintf("%s@%dk", v.Name, v.Rate/1000)
}

// CacheDir is where synthesised WAVs are kept between runs:
// $HARK_SPOKEN_CACHE, else the user's cache directory/hark-spoken. It is
// outside the repository on purpose; generated audio is never committed.
func CacheDir() (string, error) {
	if d := os.Getenv("HARK_SPOKEN_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "hark-spoken"), nil
}

// Synthesizer speaks texts with flite into WAV files, cached by voice,
// rate and text.
type Synthesizer struct {
	Dir string
}

// WAV returns the 16-bit mono WAV of text in voice v, from the cache or
// synthesised into it.
func (s *Synthesizer) WAV(ctx context.Context, v Voice, text string) ([]byte, error) {
	if v.Rate != 16000 && v.Rate != 8000 {
		return nil, fmt.Errorf("rate %d: the server takes 16000 or 8000", v.Rate)
	}
	sum := sha256.Sum256([]byte(v.Name + "\x00" + text))
	key := hex.EncodeToString(sum[:12])
	path := filepath.Join(s.Dir, v.String(), key+".wav")
	if b, err := os.ReadFile(path); err == nil {
		return b, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "flite-*.wav")
	if err != nil {
		return nil, err
	}
	tmp.Close()
	defer os.Remove(tmp.Name())
	// flite writes WAV only to a file it can seek in; -t takes the next
	// argument as text even when it starts with a dash.
	if out, err := exec.CommandContext(ctx, "flite", "-voice", v.Name, "-t", text, "-o", tmp.Name()).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("flite -voice %s %q: %v %s", v.Name, text, err, strings.TrimSpace(string(out)))
	}
	f, err := os.Open(tmp.Name())
	if err != nil {
		return nil, err
	}
	pcm, rate, err := audio.DecodeWAV(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("flite -voice %s wrote no usable WAV: %w", v.Name, err)
	}
	// Every voice used here speaks at 16 kHz today; any other rate is
	// resampled, so a flite upgrade changes nothing.
	if rate != v.Rate {
		pcm = audio.ResampleMono(pcm, rate, v.Rate)
	}
	b := audio.EncodeWAV(pcm, v.Rate)
	// Written under a temporary name and renamed, so two runs sharing the
	// cache never read a half-written file.
	part := path + ".part" + filepath.Base(tmp.Name())
	if err := os.WriteFile(part, b, 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(part, path); err != nil {
		os.Remove(part)
		return nil, err
	}
	return b, nil
}
