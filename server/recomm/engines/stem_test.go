package engines

import (
	"reflect"
	"testing"
)

func TestPorterStem(t *testing.T) {
	cases := map[string]string{
		"caresses": "caress", "ponies": "poni", "cats": "cat", "feed": "feed", "agreed": "agre",
		"plastered": "plaster", "motoring": "motor", "sing": "sing", "conflated": "conflat",
		"troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan", "falling": "fall",
		"hissing": "hiss", "fizzed": "fizz", "failing": "fail", "filing": "file", "happy": "happi",
		"relational": "relat", "conditional": "condit", "generalization": "gener", "running": "run",
		"connection": "connect", "connected": "connect", "hopeful": "hope", "goodness": "good",
		"electrical": "electr", "adjustment": "adjust", "controll": "control", "rate": "rate",
		"stories": "stori", "love": "love", "weddings": "wed", "is": "is",
	}
	for in, want := range cases {
		if got := porterStem(in); got != want {
			t.Errorf("porterStem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTerms(t *testing.T) {
	got := terms("La Canción del Verano: THE running Dogs, año 1995!")
	want := []string{"cancion", "verano", "run", "dog", "ano", "1995"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("terms = %v, want %v", got, want)
	}
}

func FuzzTerms(f *testing.F) {
	for _, s := range []string{"", "a", "sses", "ies", "Über-café niño", "yyyyy", "eed", "\xff\xfe", "ational"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range terms(s) {
			if term == "" {
				t.Errorf("empty term from %q", s)
			}
		}
		_ = porterStem(s)
	})
}
