package dialogue

import (
	"context"
	"math/rand/v2"
	"sort"
	"strings"
)

type musicTrack struct {
	Track
	title, artist, album, genre, mood string // folded
}

// Interests is what a Knowledge may also offer: the user's interest
// weights by category key ("music:jazz": 1), from the surveys. It lets
// "play something I like" follow the music survey.
type Interests interface {
	Interests(ctx context.Context, userID int64) map[string]float64
}

// playMusic picks a track by title, artist, album, genre, mood or the
// user's taste. A title, artist or playlist the library lacks is not
// answered "not found": the closest honest match plays (the genre or mood
// named in the words, else the user's taste) and the answer says it is a
// stand-in.
func (t *turn) playMusic(slots map[string]slotVal) reply {
	lib := t.e.music
	if len(lib) == 0 || t.e.cfg.MusicURL == nil {
		return t.reply("music_empty", nil)
	}
	genre := slots["genre"].text
	mood := slots["mood"].text
	song := strings.TrimSpace(fold(slots["song"].text))
	artist := strings.TrimSpace(fold(slots["artist"].text))
	if s, a := slots["song"], slots["artist"]; song != "" && artist != "" && len(findTracks(lib, song, artist)) == 0 &&
		s.end > s.start && a.end <= len(t.toks) && s.end <= a.start {
		// "pon Clair de Lune": the "de" inside a title read as "by".
		if whole := joinNorm(t.toks[s.start:a.end]); len(findTracks(lib, whole, "")) > 0 {
			song, artist = whole, ""
		}
	}
	if _, liked := slots["liked"]; liked {
		return t.playLiked(lib)
	}
	if song != "" && artist == "" && t.onlyAnySong(song) && len(exactTitles(lib, song, "")) == 0 {
		// "play another song", "play something else": any song, not one
		// with "another" in its title ("play another one" is Queen's).
		song = ""
		delete(slots, "song")
	}
	var pool []musicTrack
	asked := strings.TrimSpace(slots["song"].text)
	if asked == "" {
		asked = strings.TrimSpace(slots["artist"].text)
	}
	// "my running playlist": the library has no playlists, so whatever
	// plays is a stand-in, and the answer names the playlist asked for.
	playlist := false
	if s := slots["song"]; s.end > s.start && s.end < len(t.toks) && playlistWords[t.toks[s.end].norm] {
		from := s.start
		if from > 0 && possessives[t.toks[from-1].norm] {
			from--
		}
		asked, playlist = spanText(t.toks[from:s.end+1]), true
	}
	switch {
	case song != "" || artist != "":
		pool = findTracks(lib, song, artist)
		if len(pool) == 0 && artist == "" {
			// "play Miles Davis" reads like a title but names an artist;
			// "play Kind of Blue" names an album; "play chopin nocturne"
			// names both, and "play that lovely piece clair de lune" a
			// title after words of its own.
			if pool = findTracks(lib, "", song); len(pool) == 0 {
				if pool = findAlbum(lib, song); len(pool) == 0 {
					pool = findNamed(lib, strings.Fields(song))
				}
			}
		}
		if len(pool) == 0 && artist != "" && song != "" && !playlist {
			if v, ok := t.m.findSlot("genre", tokenize(song)); ok && v.start == 0 && v.end == len(tokenize(song)) {
				// "play jazz by miles davis": a kind of music, not a title
				// ("I don't have jazz" played Miles Davis's jazz)
				pool = filterTracks(findTracks(lib, "", artist), func(tr musicTrack) bool { return tr.genre == v.text })
			}
		}
		if len(pool) == 0 && artist != "" && song != "" && !playlist {
			// "claro de luna de debussy": a title the library lacks by an
			// artist it has plays that artist, saying so.
			if byArtist := findTracks(lib, "", artist); len(byArtist) > 0 {
				tr := byArtist[rand.IntN(len(byArtist))]
				return t.playing("music_standin", tr, map[string]phr{"what": same(asked), "kind": same(tr.Artist)})
			}
		}
		if len(pool) == 0 || playlist {
			return t.standIn(lib, asked, genre, mood, playlist)
		}
	case genre != "":
		t.topic("music:" + genre)
		pool = filterTracks(lib, func(tr musicTrack) bool { return tr.genre == genre })
		if len(pool) == 0 {
			return t.reply("music_genre_empty", map[string]phr{"genre": same(t.m.displayName("genre", genre))})
		}
	case mood != "":
		pool = filterTracks(lib, func(tr musicTrack) bool { return tr.mood == mood })
		if len(pool) == 0 {
			return t.standIn(lib, t.m.displayName("mood", mood), "", "", false)
		}
	default:
		pool = lib
	}
	tr := pool[rand.IntN(len(pool))]
	if song != "" && tr.Genre != "" {
		t.topic("music:" + strings.ToLower(tr.Genre))
	}
	return t.playing("music_playing", tr, nil)
}

func (t *turn) playing(key string, tr musicTrack, vals map[string]phr) reply {
	if vals == nil {
		vals = map[string]phr{}
	}
	vals["title"], vals["artist"] = same(tr.Title), same(tr.Artist)
	r := t.reply(key, vals)
	r.actions = act("PLAY_MUSIC", MusicData{URL: t.e.cfg.MusicURL(tr.ID), Title: tr.Title, Artist: tr.Artist})
	return r
}

// standIn plays the closest match for music the library does not have:
// a genre or mood said around the name ("my running playlist"), else what
// the user likes, else anything; the answer names what is missing.
func (t *turn) standIn(lib []musicTrack, asked, genre, mood string, ownUp bool) reply {
	toks := tokenize(asked)
	covered, after := 0, 0
	if genre == "" {
		if v, ok := t.m.findSlot("genre", toks); ok {
			genre, covered, after = v.text, v.end-v.start, v.end
		}
	}
	if mood == "" && genre == "" {
		if v, ok := t.m.findSlot("mood", toks); ok {
			mood, covered, after = v.text, v.end-v.start, v.end
		}
	}
	if covered > 0 {
		// "classical music for the baby", "rock music in the shop": who or
		// where it is for, said after the kind, is not part of it, nor is
		// what the speaker goes on to say.
		toks = toks[:forWhom(toks, after)]
	}
	// "play some relaxing music" only names a genre: no stand-in to own up to.
	named := covered > 0
	for _, tok := range toks {
		// ("something relaxing": "something" stands for the music)
		if !t.m.fillers[tok.norm] && !musicWords[tok.norm] && tok.norm != "something" && tok.norm != "algo" {
			covered--
		}
	}
	named = named && covered >= 0 && !ownUp
	kind := ""
	var pool []musicTrack
	switch {
	case genre != "":
		pool = filterTracks(lib, func(tr musicTrack) bool { return tr.genre == genre })
		kind = t.m.displayName("genre", genre)
	case mood != "":
		pool = filterTracks(lib, func(tr musicTrack) bool { return tr.mood == mood })
		kind = t.m.displayName("mood", mood)
	}
	if len(pool) == 0 {
		if g := t.likedGenre(); g != "" {
			pool = filterTracks(lib, func(tr musicTrack) bool { return tr.genre == g })
			kind = t.m.displayName("genre", g)
		}
	}
	if len(pool) == 0 {
		pool, kind = lib, ""
	}
	tr := pool[rand.IntN(len(pool))]
	key := "music_standin"
	switch {
	case named && kind != "":
		key = "music_playing"
	case kind == "":
		key = "music_standin_any"
	}
	return t.playing(key, tr, map[string]phr{"what": same(asked), "kind": same(kind)})
}

// forWhom gives where, from toks[from:], a closing phrase of whom or where
// the music is for starts ("for the baby", "in my office", "para el bebé"),
// or a statement of the speaker's run on from the request ("jazz my
// friends are coming over"); len(toks) when there is none.
func forWhom(toks []token, from int) int {
	for i := from; i+2 < len(toks); i++ {
		if audiencePreps[toks[i].norm] && (articles[toks[i+1].norm] || possessives[toks[i+1].norm]) || statementAt(toks[i:]) {
			return i
		}
	}
	return len(toks)
}

var audiencePreps = map[string]bool{"for": true, "in": true, "at": true, "para": true, "en": true}

// playLiked plays the genre the user likes most in the music survey.
func (t *turn) playLiked(lib []musicTrack) reply {
	if g := t.likedGenre(); g != "" {
		if pool := filterTracks(lib, func(tr musicTrack) bool { return tr.genre == g }); len(pool) > 0 {
			return t.playing("music_liked", pool[rand.IntN(len(pool))], map[string]phr{"genre": same(t.m.displayName("genre", g))})
		}
	}
	return t.playing("music_liked_unknown", lib[rand.IntN(len(lib))], nil)
}

// likedGenre is the music genre of the user's highest survey weight
// that the library has, or "".
func (t *turn) likedGenre() string {
	in, ok := t.e.cfg.Knowledge.(Interests)
	if !ok || t.req.UserID == 0 {
		return ""
	}
	type liked struct {
		genre string
		w     float64
	}
	var ls []liked
	for key, w := range in.Interests(t.ctx, t.req.UserID) {
		if g, ok := strings.CutPrefix(key, "music:"); ok && w > 0 {
			ls = append(ls, liked{g, w})
		}
	}
	sort.Slice(ls, func(i, j int) bool { return ls[i].w > ls[j].w || ls[i].w == ls[j].w && ls[i].genre < ls[j].genre })
	for _, l := range ls {
		for _, tr := range t.e.music {
			if tr.genre == l.genre {
				return l.genre
			}
		}
	}
	return ""
}

// playlistWords follow a playlist's name.
var playlistWords = map[string]bool{"playlist": true, "mix": true, "lista": true}

// musicWords say "music" without saying which.
var musicWords = map[string]bool{"music": true, "song": true, "songs": true, "tunes": true, "track": true, "tracks": true,
	"musica": true, "cancion": true, "canciones": true, "tema": true, "temas": true}

func filterTracks(lib []musicTrack, keep func(musicTrack) bool) []musicTrack {
	var out []musicTrack
	for _, tr := range lib {
		if keep(tr) {
			out = append(out, tr)
		}
	}
	return out
}

func findAlbum(lib []musicTrack, album string) []musicTrack {
	return filterTracks(lib, func(tr musicTrack) bool { return tr.album != "" && tr.album == album })
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

// findNamed finds the tracks that words name when they are more than a
// title: an artist and a title in either order ("chopin nocturne",
// "summer nights pop stars"), or a title after words of the speaker's
// own ("that lovely piece clair de lune"). A title must be named whole,
// an artist by whole words of its name, so a stray word names nothing.
func findNamed(lib []musicTrack, words []string) []musicTrack {
	for k := 1; k < len(words); k++ {
		head, tail := strings.Join(words[:k], " "), strings.Join(words[k:], " ")
		if pool := exactTitles(lib, tail, head); len(pool) > 0 {
			return pool
		}
		if pool := exactTitles(lib, head, tail); len(pool) > 0 {
			return pool
		}
	}
	for k := 1; k < len(words); k++ {
		if pool := exactTitles(lib, strings.Join(words[k:], " "), ""); len(pool) > 0 {
			return pool
		}
	}
	return nil
}

// anySong are the words that ask for a song without naming one, beside
// the articles and describers ("another song", "something else").
var anySong = map[string]bool{"song": true, "songs": true, "track": true, "tune": true, "music": true, "something": true,
	"anything": true, "else": true, "one": true, "cancion": true, "tema": true, "musica": true, "algo": true, "mas": true}

// onlyAnySong reports whether the folded words of a song slot ask for a
// song without naming one.
func (t *turn) onlyAnySong(song string) bool {
	for _, w := range strings.Fields(song) {
		if !anySong[w] && !articles[w] && !t.m.describers[w] {
			return false
		}
	}
	return true
}

// exactTitles are the tracks titled exactly title by an artist whose name
// holds every word of artist ("" for any).
func exactTitles(lib []musicTrack, title, artist string) []musicTrack {
	return filterTracks(lib, func(tr musicTrack) bool {
		return strings.TrimSpace(tr.title) == title && (artist == "" || containsWords(tr.artist, artist))
	})
}

// bareMusic reads a query that is nothing but music the library has
// ("bohemian rhapsody", "summer nights pop stars", "miles davis"): people
// name what they want to hear without asking for it. Only whole titles and
// whole artist names count, so no other request turns into music.
func (t *turn) bareMusic() (match, bool) {
	var words []string
	for _, tok := range t.toks {
		if !t.m.fillers[tok.norm] && !musicWords[tok.norm] {
			words = append(words, fold(tok.orig))
		}
	}
	if len(words) == 0 || len(t.e.music) == 0 {
		return match{}, false
	}
	whole := strings.Join(words, " ")
	found := exactTitles(t.e.music, whole, "")
	if len(found) == 0 {
		found = findNamed(t.e.music, words)
	}
	if len(found) == 0 {
		found = filterTracks(t.e.music, func(tr musicTrack) bool { return strings.TrimSpace(tr.artist) == whole })
	}
	if len(found) == 0 {
		return match{}, false
	}
	return match{intent: "PLAY_MUSIC", rule: "music the library has", slots: map[string]slotVal{"song": {text: whole, start: 0, end: len(t.toks)}}}, true
}
