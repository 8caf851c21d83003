package dialogue

import "testing"

// A long figure read aloud is its value; without a scale word it is left
// to parseNumber, and what follows the figure is not taken.
func TestParseCardinal(t *testing.T) {
	ms, err := loadModels()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		lang, text string
		value, n   int
	}{
		{"en", "five billion five hundred fifty one million two hundred thirty four thousand five hundred sixty seven", 5551234567, 16},
		{"en", "one thousand seven hundred hours", 1700, 4},
		{"en", "two thousand", 2000, 2},
		{"en", "one thousand and five minutes", 1005, 4},
		{"en", "three million", 3000000, 2},
		{"en", "thousand islands", 1000, 1},
		{"en", "seventeen hundred", 0, 0},
		{"en", "five five five", 0, 0},
		{"en", "billion", 1000000000, 1},
		{"es", "mil setecientos", 1700, 2},
		{"es", "dos mil millones", 2000000000, 3},
		{"es", "seiscientos millones", 600000000, 2},
		{"es", "cinco millones doscientos tres", 5000203, 4},
		{"es", "doscientos", 0, 0},
	} {
		v, n := ms[c.lang].parseCardinal(tokenize(c.text))
		if v != c.value || n != c.n {
			t.Errorf("%s %q: got %d over %d tokens, want %d over %d", c.lang, c.text, v, n, c.value, c.n)
		}
	}
}
