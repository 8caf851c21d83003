package ident

import (
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	good := []string{"user-1", "Ana María", "a_b", "x"}
	for _, id := range good {
		if err := Check("id", id, 64); err != nil {
			t.Errorf("Check(%q) = %v, want nil", id, err)
		}
	}
	bad := []string{"", "a.b", "a/b", `a\b`, "a$b", "a<b", "a>b", "a:b", `a"b`, "a#b", "a%b", "a&b", "a*b", "a?b", "a|b", "a{b", "a}b",
		"a\x00b", "a\nb", "\xff", strings.Repeat("x", 65)}
	for _, id := range bad {
		if err := Check("id", id, 64); err == nil {
			t.Errorf("Check(%q) = nil, want an error", id)
		}
	}
}
