package speech

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
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
// different or are not rewritten: too short a stem). Proper names of the
// dictionary that happen to fit a family are left out by the stems'
// endings (no "-tre" rule beyond the measures and "centre"/"theatre").
var spellingRules = []struct {
	re   *regexp.Regexp
	repl string
}{
	// colour, neighbour(s), favourite, honourable, behaviour: two letters
	// or more before "our", so "four"/"for" and "pour"/"por" never meet.
	{regexp.MustCompile(`^(..+)our(s|ed|ing|ite|ites|able|ably|er|ers|ful|less)?$`), "${1}or$2"},
	// realise, recognised, apologising, privatisation (four letters or
	// more before "is": not the name "blaise")
	{regexp.MustCompile(`^(....+)is(e|ed|es|ing|ation|ations)$`), "${1}iz$2"},
	// analyse, paralysed
	{regexp.MustCompile(`^(..+)ys(e|ed|es|ing)$`), "${1}yz$2"},
	// centre, theatre, kilometre, millilitre
	{regexp.MustCompile(`^(.*(?:cen|thea|me|li))tre(s)?$`), "${1}ter$2"},
	// catalogue, dialogue
	{regexp.MustCompile(`^(..+)ogue(s)?$`), "${1}og$2"},
	// cancelled, travelling, labelled: a doubled l after an unstressed vowel
	{regexp.MustCompile(`^(.*[aeiou][^aeiou]*[aeiou])ll(ed|ing)$`), "${1}l$2"},
	// defence, licence, offence
	{regexp.MustCompile(`^(...+)ence(s)?$`), "${1}ense$2"},
	// programme(s)
	{regexp.MustCompile(`^programme(s)?$`), "program$1"},
}

// Spellings reads the pronouncing dictionary of the models in modelDir and
// gives the words to rewrite in recognised text, each to its American
// spelling (see spellingRules).
func Spellings(modelDir string) (map[string]string, error) {
	path := filepath.Join(modelDir, "cmudict-en-us.dict")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("speech: %w", err)
	}
	defer f.Close()
	phones := make(map[string][]string, 140000)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		word, p, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(word, '('); i > 0 {
			word = word[:i] // "word(2)": another pronunciation
		}
		phones[word] = append(phones[word], strings.TrimSpace(p))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("speech: read %s: %w", path, err)
	}
	out := map[string]string{}
	for word, ps := range phones {
		for _, r := range spellingRules {
			if !r.re.MatchString(word) {
				continue
			}
			other := r.re.ReplaceAllString(word, r.repl)
			if other != word && sharesOne(ps, phones[other]) {
				out[word] = other
				break
			}
		}
	}
	return out, nil
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
