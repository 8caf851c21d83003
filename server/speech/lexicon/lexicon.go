// Package lexicon spells words the pronouncing dictionary lacks ("netflix",
// "tiktok", "ramen") in the acoustic model's phones, so that the recogniser
// can hear the names the dialogue knows. espeak-ng's letter-to-sound rules
// give the pronunciation, as IPA, in a child process (a native library
// that can crash never runs inside harkd or a speech worker); FromIPA maps
// it onto the en-us model's ARPAbet phones.
//
// Measured against the dictionary itself (TestAgreesWithTheDictionary: 600
// of its words, most of them proper names, taking the closest of a word's
// pronunciations): 11 % of phones differ and 60 % of words come out exactly,
// which is what a rule-based speller does on names. The misses are mostly
// unstressed vowels (AH for IH or EH) and flaps written T where the
// dictionary has D, neighbours the acoustic model confuses anyway.
package lexicon

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"
)

// ipaPhones maps espeak-ng's en-us IPA onto the model's phones, longest
// sequences first (FromIPA tries them in order): diphthongs and r-coloured
// vowels before their parts.
var ipaPhones = []struct{ ipa, phones string }{
	{"tʃ", "CH"}, {"dʒ", "JH"},
	{"eɪ", "EY"}, {"aɪ", "AY"}, {"ɔɪ", "OY"}, {"aʊ", "AW"}, {"oʊ", "OW"}, {"əʊ", "OW"},
	{"ɑːɹ", "AA R"}, {"oːɹ", "AO R"}, {"ɔːɹ", "AO R"}, {"ɔɹ", "AO R"}, {"ɛɹ", "EH R"}, {"ɪɹ", "IH R"}, {"ʊɹ", "UH R"},
	{"ɜːɹ", "ER"}, {"ɜː", "ER"}, {"ɚ", "ER"}, {"əɹ", "ER"},
	{"ɑː", "AA"}, {"iː", "IY"}, {"uː", "UW"}, {"ɔː", "AO"}, {"oː", "AO"},
	{"ɪ", "IH"}, {"ᵻ", "IH"}, {"ə", "AH"}, {"ɐ", "AH"}, {"ʌ", "AH"}, {"æ", "AE"}, {"ɛ", "EH"}, {"ɑ", "AA"}, {"ɒ", "AA"},
	{"ɔ", "AO"}, {"ʊ", "UH"}, {"i", "IY"}, {"u", "UW"}, {"o", "OW"}, {"e", "EH"}, {"a", "AA"},
	{"p", "P"}, {"b", "B"}, {"t", "T"}, {"d", "D"}, {"k", "K"}, {"ɡ", "G"}, {"g", "G"}, {"f", "F"}, {"v", "V"},
	{"θ", "TH"}, {"ð", "DH"}, {"s", "S"}, {"z", "Z"}, {"ʃ", "SH"}, {"ʒ", "ZH"}, {"h", "HH"},
	{"m", "M"}, {"n", "N"}, {"ŋ", "NG"}, {"l", "L"}, {"ɹ", "R"}, {"r", "R"}, {"j", "Y"}, {"w", "W"},
	{"ɾ", "T"}, {"ʔ", "T"}, {"x", "K"},
}

// syllabic is the IPA mark of a consonant that is a syllable of its own
// ("button" bʌʔn̩): the dictionary writes a vowel before it.
const syllabic = "\u0329"

// FromIPA is the phones of one word's IPA; stress marks and symbols it
// does not know are skipped.
func FromIPA(ipa string) []string {
	ipa = strings.NewReplacer("ˈ", "", "ˌ", "").Replace(strings.TrimSpace(ipa))
	var out []string
	for ipa != "" {
		matched := false
		for _, p := range ipaPhones {
			if rest, ok := strings.CutPrefix(ipa, p.ipa); ok {
				if after, ok := strings.CutPrefix(rest, syllabic); ok {
					out, rest = append(out, "AH"), after
				}
				out, ipa, matched = append(out, strings.Fields(p.phones)...), rest, true
				break
			}
		}
		if !matched {
			_, size := utf8.DecodeRuneInString(ipa)
			ipa = ipa[size:]
		}
	}
	return out
}

// word is what Pronounce spells: lower-case letters and apostrophes, as
// the dictionary's words are.
var word = regexp.MustCompile(`^[a-z][a-z']*$`)

// Available tells whether espeak-ng can be run here.
func Available() error {
	_, err := exec.LookPath("espeak-ng")
	return err
}

// Pronounce spells words in the model's phones with espeak-ng's American
// English, all in one child process. Words that are not plain lower-case
// words, or for which it gives no phone, are left out of the result.
func Pronounce(ctx context.Context, words []string) (map[string][]string, error) {
	var asked []string
	var in bytes.Buffer
	for _, w := range words {
		if word.MatchString(w) {
			asked = append(asked, w)
			in.WriteString(w + ".\n") // one clause, so one line of output, per word
		}
	}
	out := map[string][]string{}
	if len(asked) == 0 {
		return out, nil
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "espeak-ng", "-q", "--ipa", "-v", "en-us")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("lexicon: espeak-ng: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) != len(asked) {
		return nil, fmt.Errorf("lexicon: espeak-ng gave %d lines for %d words", len(lines), len(asked))
	}
	for i, w := range asked {
		if phones := FromIPA(lines[i]); len(phones) > 0 {
			out[w] = phones
		}
	}
	return out, nil
}
