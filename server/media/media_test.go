package media

import (
	"bytes"
	"crypto/sha256"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/hajimehoshi/go-mp3"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/speech/mp3enc"
)

// genres are the catalogue's genres, each with its own renderer.
var genres = []string{Rock, Jazz, Classical, Pop, Electronic, Ambient, Country, Blues, Reggae}

func TestCatalogue(t *testing.T) {
	slug := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	moods := map[string]bool{Energetic: true, Upbeat: true, Relaxed: true, Calm: true, Sad: true, Focused: true}
	ids := map[string]bool{}
	perGenre := map[string]int{}
	perArtist := map[string]map[string]int{} // genre, artist: tracks
	for _, tr := range Tracks() {
		if !slug.MatchString(tr.ID) {
			t.Errorf("id %q is not a lowercase identifier", tr.ID)
		}
		if ids[tr.ID] {
			t.Errorf("duplicate id %q", tr.ID)
		}
		ids[tr.ID] = true
		if tr.Title == "" || tr.Artist == "" {
			t.Errorf("%q lacks title or artist", tr.ID)
		}
		if !moods[tr.Mood] {
			t.Errorf("%q: mood %q is not one of the Mood constants", tr.ID, tr.Mood)
		}
		perGenre[tr.Genre]++
		if perArtist[tr.Genre] == nil {
			perArtist[tr.Genre] = map[string]int{}
		}
		perArtist[tr.Genre][tr.Artist]++
		if got, ok := Lookup(tr.ID); !ok || got != tr {
			t.Errorf("Lookup(%q) = %+v, %v", tr.ID, got, ok)
		}
	}
	for _, g := range genres {
		if perGenre[g] < 3 || len(ByGenre(g)) != perGenre[g] {
			t.Errorf("genre %s: %d tracks, want at least 3", g, perGenre[g])
		}
		// "more by this artist" has an answer in every genre
		most := 0
		for _, n := range perArtist[g] {
			most = max(most, n)
		}
		if most < 2 {
			t.Errorf("genre %s: no artist with two tracks", g)
		}
		// a genre without its renderer would sound like the fallback
		if renderers[g] == nil {
			t.Errorf("genre %s has no renderer", g)
		}
	}
	if len(perGenre) != len(genres) || len(renderers) != len(genres) {
		t.Errorf("%d genres in the catalogue, %d renderers, want %d", len(perGenre), len(renderers), len(genres))
	}
	if _, ok := Lookup("../etc/passwd"); ok {
		t.Error("path accepted as id")
	}
}

func TestMusicRendersCachesAndDecodes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	lib, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := "jazz_blue_corner"
	// Concurrent first requests render once and agree.
	var wg sync.WaitGroup
	results := make([][]byte, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = lib.Music(id)
		}()
	}
	wg.Wait()
	for i := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(results[i], results[0]) {
			t.Fatal("concurrent requests got different audio")
		}
	}
	data := results[0]
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("cache holds %d files, want 1", len(entries))
	}
	frames, err := mp3enc.Frames(data)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range frames {
		if f.Version != "MPEG-2" || f.SampleRate != SampleRate || f.Bitrate != Bitrate || !f.Mono {
			t.Fatalf("frame %d: %+v", i, f)
		}
	}
	dec, err := mp3.NewDecoder(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	pcm, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	d := time.Duration(len(pcm)/4) * time.Second / SampleRate
	if d < 20*time.Second || d > 30*time.Second {
		t.Fatalf("decoded %v", d)
	}

	// The cached file is served as is: overwrite it and see it come back.
	path, err := lib.File(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("cached"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := lib.Music(id); string(got) != "cached" {
		t.Fatal("cache not used")
	}
	// A removed cache file is rendered again, identically: rendering is
	// deterministic.
	os.Remove(path)
	again, err := lib.Music(id)
	if err != nil || !bytes.Equal(again, data) {
		t.Fatalf("re-render differs (%v)", err)
	}
}

// TestEveryTrack renders the whole catalogue through the library and
// checks each MP3: frame headers, decoding, length, and that no two
// tracks are alike.
func TestEveryTrack(t *testing.T) {
	lib, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[32]byte]string{}
	tracks := Tracks()
	if raceEnabled {
		tracks = nil
		for _, g := range genres {
			tracks = append(tracks, ByGenre(g)[0])
		}
	}
	for _, tr := range tracks {
		data, err := lib.Music(tr.ID)
		if err != nil {
			t.Fatal(err)
		}
		frames, err := mp3enc.Frames(data)
		if err != nil {
			t.Fatalf("%s: %v", tr.ID, err)
		}
		for i, f := range frames {
			if f.Version != "MPEG-2" || f.SampleRate != SampleRate || f.Bitrate != Bitrate || !f.Mono {
				t.Fatalf("%s frame %d: %+v", tr.ID, i, f)
			}
		}
		dec, err := mp3.NewDecoder(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("%s: %v", tr.ID, err)
		}
		raw, err := io.ReadAll(dec)
		if err != nil {
			t.Fatalf("%s: %v", tr.ID, err)
		}
		pcm := make([]int16, len(raw)/4) // go-mp3 gives stereo; take the left channel
		for i := range pcm {
			pcm[i] = int16(uint16(raw[4*i]) | uint16(raw[4*i+1])<<8)
		}
		if d := float64(len(pcm)) / SampleRate; d < 20 || d > 30 {
			t.Errorf("%s: %.1f s", tr.ID, d)
		}
		// Music throughout: every 2 s window before the 2 s fade-out has
		// an RMS above -30 dBFS (the catalogue's quietest is about -17).
		const window = 2 * SampleRate
		for start := 0; start+window <= len(pcm)-2*SampleRate; start += window {
			var sum float64
			for _, v := range pcm[start : start+window] {
				sum += float64(v) * float64(v)
			}
			if rms := math.Sqrt(sum / window); rms < 1036 {
				t.Errorf("%s: RMS %.0f at %d s", tr.ID, rms, start/SampleRate)
			}
		}
		sum := sha256.Sum256(data)
		if other, ok := seen[sum]; ok {
			t.Errorf("%s is the same as %s", tr.ID, other)
		}
		seen[sum] = tr.ID
	}
}

func TestBadRequests(t *testing.T) {
	lib, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"", "nope", "../../etc/passwd", "ROCK_MIDNIGHT_HIGHWAY"} {
		_, err := lib.Music(id)
		if e, ok := apierr.As(err); !ok || e.Status != 404 {
			t.Errorf("%q: %v, want 404", id, err)
		}
	}
	if _, err := New(""); err == nil {
		t.Error("empty cache dir accepted")
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := New(filepath.Join(file, "sub")); err == nil {
		t.Error("cache dir under a file accepted")
	}
}

func BenchmarkRenderAndEncode(b *testing.B) {
	tr, _ := Lookup("electronic_neon_pulse")
	for b.Loop() {
		if _, err := mp3enc.Encode(render(tr), SampleRate, Bitrate); err != nil {
			b.Fatal(err)
		}
	}
}
