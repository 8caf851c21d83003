package recomm

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRatingToRecommendations is a rating pressed on the For you tab until the screen shows
// the recommendations that follow it, through a real in-process platform: a table of 300 films
// and 20 people on isvd, which folds each rating into its model at once. Each iteration rates the
// first recommendation (which then leaves the list); ns/op is the latency a person sees.
func BenchmarkRatingToRecommendations(b *testing.B) {
	c := filmsTableN(b, 300, 20)
	a, r := screenAsTB(b, c, "u_00000000b000", 120, 40)
	press(b, a, "enter")
	press(b, a, "t") // isvd trained on everyone
	press(b, a, "5")
	press(b, a, "tab")
	press(b, a, "tab")
	if r.person == nil || r.person.recs.Len() == 0 {
		b.Fatalf("no recommendations to rate:\n%s", a.View())
	}
	keys := []string{"4", "3", "5", "2"}
	n, people := 0, 0
	for b.Loop() {
		if r.person.recs.Len() < 10 {
			// a fresh person, so that there is always something left to rate
			b.StopTimer()
			people++
			r.ctx.Session.Username = fmt.Sprintf("u_00000000b%03d", people)
			press(b, a, "shift+tab")
			press(b, a, "shift+tab") // Items
			press(b, a, "5")
			press(b, a, "tab")
			press(b, a, "tab")
			b.StartTimer()
		}
		before := strings.Join(recKeys(r), ",")
		press(b, a, keys[n%len(keys)])
		n++
		if strings.Join(recKeys(r), ",") == before {
			b.Fatalf("the recommendations did not change:\n%s", a.View())
		}
	}
}
