package dialogue

import (
	"reflect"
	"testing"
)

func TestParsePatternExported(t *testing.T) {
	got, err := ParsePattern("set [an] alarm (for|at) {time} [a|b]")
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{{Word: "set"}, {Optional: []Node{{Word: "an"}}}, {Word: "alarm"},
		{Alts: [][]Node{{{Word: "for"}}, {{Word: "at"}}}}, {Slot: "time"},
		{Optional: []Node{{Alts: [][]Node{{{Word: "a"}}, {{Word: "b"}}}}}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"a (b", "a [b", "a {", "a }", "a ()", "{}"} {
		if _, err := ParsePattern(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if _, err := ParseGrammar([]string{"ok"}, map[string][]string{"x": {"(a"}}, nil); err == nil {
		t.Error("a bad slot alternative parsed")
	}
}
