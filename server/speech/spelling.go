package speech

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// The pronouncing dictionary spells many words both ways: "neighbour" and
// "neighbor", "centre" and "center", "realise" and "realize", each with the
// same phones. The decoder cannot hear which spelling was meant, so the
// language model's preference decides, and a recognised "my neighbour" is
// another contact than the typed "my neighbor" to everything downstream
// (the dialogue's slot values, the conversation's history). harkd's
// English is American (en-US models, US dates), so recognised text is
// written in the American spelling.
//
// The pairs are found in the dictionary itself, not listed: a word is
// rewritten when one of the spelling rules below gives another word of the
// dictionary with a pronunciation in common. The rules stay within the
// regular British/American families; the shared pronunciation keeps them
// off unrelated words ("flour" and "flor", "pence" and "pense" sound
// different or are not rewritten: too short a stem). Most proper names of
// the dictionary that fit a family are left out by the stems (no "-tre"
// rule beyond the measures and "centre"/"theatre"); a few remain, spelled
// either way in the dictionary ("vanmetre").
var spellingRules = []struct {
	// hint is a cheap test a word must pass before the expression is
	// tried: the dictionary has 135,000 words, and matching each with
	// every expression took 9 s in a race-detector build.
	hint func(string) bool
	re   *regexp.Regexp
	repl string
}{
	// colour, neighbour(s), favourite, honourable, behaviour: two letters
	// or more before "our", so "four"/"for" and "pour"/"por" never meet.
	{contains("our"), regexp.MustCompile(`^(..+)our(s|ed|ing|ite|ites|able|ably|er|ers|ful|less)?$`), "${1}or$2"},
	// realise, recognised, apologising, privatisation (four letters or
	// more before "is": not the name "blaise")
	{endsWith("ise", "ised", "ises", "ising", "isation", "isations"), regexp.MustCompile(`^(....+)is(e|ed|es|ing|ation|ations)$`), "${1}iz$2"},
	// analyse, paralysed
	{endsWith("yse", "ysed", "yses", "ysing"), regexp.MustCompile(`^(..+)ys(e|ed|es|ing)$`), "${1}yz$2"},
	// centre, theatre, kilometre, millilitre
	{endsWith("tre", "tres"), regexp.MustCompile(`^(.*(?:cen|thea|me|li))tre(s)?$`), "${1}ter$2"},
	// catalogue, dialogue
	{endsWith("ogue", "ogues"), regexp.MustCompile(`^(..+)ogue(s)?$`), "${1}og$2"},
	// cancelled, travelling, labelled: a doubled l after an unstressed vowel
	{endsWith("lled", "lling"), regexp.MustCompile(`^(.*[aeiou][^aeiou]*[aeiou])ll(ed|ing)$`), "${1}l$2"},
	// defence, licence, offence
	{endsWith("ence", "ences"), regexp.MustCompile(`^(...+)ence(s)?$`), "${1}ense$2"},
	// programme(s)
	{endsWith("programme", "programmes"), regexp.MustCompile(`^programme(s)?$`), "program$1"},
}

func contains(part string) func(string) bool {
	return func(w string) bool { return strings.Contains(w, part) }
}

func endsWith(suffixes ...string) func(string) bool {
	return func(w string) bool {
		for _, s := range suffixes {
			if strings.HasSuffix(w, s) {
				return true
			}
		}
		return false
	}
}

var spellingsByDir sync.Map // model directory -> map[string]string

// Spellings reads the pronouncing dictionary of the models in modelDir and
// gives the words to rewrite in recognised text, each to its American
// spelling (see spellingRules). The result is kept for the process and
// shared: callers must not change it.
func Spellings(modelDir string) (map[string]string, error) {
	if sp, ok := spellingsByDir.Load(modelDir); ok {
		return sp.(map[string]string), nil
	}
	path := filepath.Join(modelDir, "cmudict-en-us.dict")
	// First the words a rule rewrites, then the pronunciations of those
	// and of their other spellings only.
	other := map[string]string{}
	if err := ScanDictionary(path, func(word, _ string) {
		for _, r := range spellingRules {
			if r.hint(word) && r.re.MatchString(word) {
				if o := r.re.ReplaceAllString(word, r.repl); o != word {
					other[word] = o
					return
				}
			}
		}
	}); err != nil {
		return nil, err
	}
	phones := map[string][]string{}
	for w, o := range other {
		phones[w], phones[o] = nil, nil
	}
	if err := ScanDictionary(path, func(word, p string) {
		if ps, ok := phones[word]; ok {
			phones[word] = append(ps, p)
		}
	}); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for w, o := range other {
		if sharesOne(phones[w], phones[o]) {
			out[w] = o
		}
	}
	spellingsByDir.Store(modelDir, out)
	return out, nil
}

// ScanDictionary calls fn with each entry of a CMU-format dictionary: the
// word (without the "(2)" of another pronunciation) and its phones.
func ScanDictionary(path string, fn func(word, phones string)) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("speech: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word, p, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(word, '('); i > 0 {
			word = word[:i]
		}
		fn(word, strings.TrimSpace(p))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("speech: read %s: %w", path, err)
	}
	return nil
}

// sharesOne reports whether a and b have an element in common.
func sharesOne(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}
