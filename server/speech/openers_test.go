package speech

import (
	"slices"
	"strings"
	"testing"
)

// The dialogue's openers ("hey", "ok so", "uh") reach the domain model in
// the dictionary's spelling; package ngram checks what the model makes of
// them.
func TestOpenersReachTheDomainModel(t *testing.T) {
	var said []string
	for _, o := range dictionarySpec(dialogueGrammar()).Openers {
		var words []string
		for _, e := range o {
			words = append(words, e.Word)
		}
		said = append(said, strings.Join(words, " "))
	}
	for _, want := range []string{"hey", "ok so", "uh"} {
		if !slices.Contains(said, want) {
			t.Errorf("openers %q lack %q", said, want)
		}
	}
}
