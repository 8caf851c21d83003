package dialogue

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

func TestZZProbe(t *testing.T) {
	f := os.Getenv("HARK_PROBE")
	if f == "" {
		t.Skip()
	}
	h := newHarness(t)
	fh, _ := os.Open(f)
	sc := bufio.NewScanner(fh)
	var ref int64
	for sc.Scan() {
		q := sc.Text()
		cont := strings.HasPrefix(q, "+")
		q = strings.TrimPrefix(q, "+")
		lang := "en"
		if strings.HasPrefix(q, "es:") {
			lang, q = "es", strings.TrimPrefix(q, "es:")
		}
		if !cont {
			ref = 0
		}
		r := h.ask(lang, q, ref)
		ref = r.Context.Ref
		if cont {
			q = "  + " + q
		}
		a, d := actionJSON(t, r)
		t.Logf("%-60s | %s | %s %s", q, r.Responses.Text, a, d)
	}
}
