package dialogue

import (
	"math/rand/v2"
	"strings"
)

type musicTrack struct {
	Track
	title, artist, genre string // folded
}

// playMusic picks a track by title, artist or genre, or any track.
func (t *turn) playMusic(slots map[string]slotVal) reply {
	lib := t.e.music
	if len(lib) == 0 || t.e.cfg.MusicURL == nil {
		return t.reply("music_empty", nil)
	}
	var pool []musicTrack
	genre := slots["genre"].text
	song := strings.TrimSpace(fold(slots["song"].text))
	artist := strings.TrimSpace(fold(slots["artist"].text))
	if genre == "" && (song != "" || artist != "") && len(findTracks(lib, song, artist)) == 0 {
		// "play some relaxing music" read as a title: a genre named inside
		// the words is the better reading.
		if v, ok := t.m.findSlot("genre", tokenize(song+" "+artist)); ok {
			genre, song, artist = v.text, "", ""
		}
	}
	if s, a := slots["song"], slots["artist"]; song != "" && artist != "" && len(findTracks(lib, song, artist)) == 0 &&
		s.end > s.start && a.end <= len(t.toks) && s.end <= a.start {
		// "pon Clair de Lune": the "de" inside a title read as "by".
		if whole := joinNorm(t.toks[s.start:a.end]); len(findTracks(lib, whole, "")) > 0 {
			song, artist = whole, ""
		}
	}
	switch {
	case song != "":
		pool = findTracks(lib, song, artist)
		if len(pool) == 0 && artist == "" {
			// "play Miles Davis" reads like a title but names an artist.
			pool = findTracks(lib, "", song)
		}
		if len(pool) == 0 {
			return t.reply("music_not_found", map[string]phr{"what": same(slots["song"].text)})
		}
	case artist != "":
		pool = findTracks(lib, "", artist)
		if len(pool) == 0 {
			return t.reply("music_not_found", map[string]phr{"what": same(slots["artist"].text)})
		}
	case genre != "":
		t.topic("music:" + genre)
		for _, tr := range lib {
			if tr.genre == genre {
				pool = append(pool, tr)
			}
		}
		if len(pool) == 0 {
			return t.reply("music_genre_empty", map[string]phr{"genre": same(t.m.displayName("genre", genre))})
		}
	default:
		pool = lib
	}
	tr := pool[rand.IntN(len(pool))]
	if song != "" && tr.Genre != "" {
		t.topic("music:" + strings.ToLower(tr.Genre))
	}
	r := t.reply("music_playing", map[string]phr{"title": same(tr.Title), "artist": same(tr.Artist)})
	r.actions = act("PLAY_MUSIC", MusicData{URL: t.e.cfg.MusicURL(tr.ID), Title: tr.Title, Artist: tr.Artist})
	return r
}

// findTracks matches a spoken title and/or artist against the library:
// exact title first, then titles that contain every spoken word.
func findTracks(lib []musicTrack, title, artist string) []musicTrack {
	var exact, partial []musicTrack
	for _, tr := range lib {
		if artist != "" && !containsWords(tr.artist, artist) {
			continue
		}
		switch {
		case title == "":
			exact = append(exact, tr)
		case strings.Trim(tr.title, " ") == title:
			exact = append(exact, tr)
		case containsWords(tr.title, title):
			partial = append(partial, tr)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return partial
}

// containsWords reports whether every word of want occurs in have.
func containsWords(have, want string) bool {
	words := strings.Fields(have)
	for _, w := range strings.Fields(want) {
		if !containsWord(words, strings.Trim(w, ".,!?'")) {
			return false
		}
	}
	return want != ""
}
