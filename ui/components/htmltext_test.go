package components

import (
	"strings"
	"testing"
)

func FuzzHTMLText(f *testing.F) {
	for _, s := range []string{"<p>a</p>", "<ul><li>x<li>y</ul>", "a < b", "<b", "&amp;&lt;", "<br/>\x1b[31m", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := HTMLText(s)
		if strings.ContainsAny(out, "\x1b\x07\r") {
			t.Fatalf("control characters in %q", out)
		}
	})
}
