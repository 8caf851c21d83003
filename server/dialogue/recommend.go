package dialogue

import (
	"errors"
	"strings"
)

// maxPicks is how many films a recommendation answer names.
const maxPicks = 5

// recommendMovies answers "recommend me a movie" from the recommendation
// service, saying what the choice rests on: the person's ratings, their
// movie-survey genres, or what is popular. Showtimes are a different
// question ("what's playing").
func (t *turn) recommendMovies() reply {
	if t.dry {
		return reply{}
	}
	picks, err := t.e.cfg.Recommendations.Movies(t.ctx, t.asker(), maxPicks)
	if err == nil && len(picks.Titles) == 0 {
		err = ErrNoData
	}
	if err != nil {
		if !isNoData(err) && !errors.Is(err, t.ctx.Err()) {
			t.logf("recommend_movies: %v", err)
			return t.reply("info_failed", nil)
		}
		return t.reply("no_recomm_catalog", nil)
	}
	key := "recommend_movies_popular"
	vars := map[string]phr{}
	switch picks.Basis {
	case "ratings":
		key = "recommend_movies_ratings"
	case "interests":
		key = "recommend_movies_interests"
		names := make([]string, len(picks.Genres))
		for i, g := range picks.Genres {
			names[i] = t.m.displayName("moviegenre", g)
		}
		vars["genres"] = same(t.listPhr(names))
	}
	r := t.reply(key, vars)
	listed(&r, picks.Titles, strings.TrimSpace, strings.TrimSpace)
	return r
}
