package knowledge

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/recommend"
)

// Films answers "recommend me a movie" from the workspace's recommendation
// catalog: from the person's own ratings when they have some, else from the
// genres of their movie survey, else from what is most watched there. The
// person is the catalog user named by their platform username, as the
// Recommendations screen rates them.
type Films struct {
	Catalog     *catalog.Catalog
	Recommender *recommend.Recommender
	// Username is the platform username of a user id.
	Username func(ctx context.Context, userID int64) (string, error)
	// Users gives the survey interests ("movie:comedy" keys).
	Users User
}

var _ dialogue.Recommendations = (*Films)(nil)

// genreAttributes are the item attributes a film table keeps its genres in.
var genreAttributes = []string{"genres", "genre"}

// Movies picks n films for the asker.
func (f *Films) Movies(ctx context.Context, a dialogue.Asker, n int) (dialogue.Picks, error) {
	table, err := f.filmTable(ctx, a.Workspace)
	if err != nil {
		return dialogue.Picks{}, err
	}
	if name, err := f.Username(ctx, a.UserID); err == nil && name != "" {
		if ids, err := f.fromRatings(ctx, a.Workspace, table, name, n); err != nil {
			return dialogue.Picks{}, err
		} else if len(ids) > 0 {
			return f.picks(ctx, a.Workspace, table, ids, "ratings", nil)
		}
	}
	if genres := f.movieInterests(ctx, a.UserID); len(genres) > 0 {
		if attr, ok := f.genreAttribute(ctx, a.Workspace, table); ok {
			items, err := f.Catalog.List(ctx, a.Workspace, table, catalog.ListQuery{
				Filter: fmt.Sprintf("%s=in=(%s)", attr, strings.Join(genres, ",")), Limit: 200})
			if err != nil {
				return dialogue.Picks{}, err
			}
			if ids := f.mostWatched(ctx, a.Workspace, table, items, n); len(ids) > 0 {
				return f.picks(ctx, a.Workspace, table, ids, "interests", genres)
			}
		}
	}
	items, err := f.Catalog.List(ctx, a.Workspace, table, catalog.ListQuery{Limit: 1000})
	if err != nil {
		return dialogue.Picks{}, err
	}
	return f.picks(ctx, a.Workspace, table, f.mostWatched(ctx, a.Workspace, table, items, n), "popular", nil)
}

// filmTable is the workspace's first table named for films (movies, films,
// sandbox-movies ...); without one there is nothing to recommend from.
func (f *Films) filmTable(ctx context.Context, ws int64) (string, error) {
	ids, err := f.Catalog.Tables(ctx, ws)
	if err != nil {
		return "", err
	}
	slices.Sort(ids)
	for _, id := range ids {
		low := strings.ToLower(id)
		if strings.Contains(low, "movie") || strings.Contains(low, "film") {
			return id, nil
		}
	}
	return "", fmt.Errorf("%w: no film table in the workspace", dialogue.ErrNoData)
}

// fromRatings asks the table's items-to-user engine, but only for a person
// who has rated something: recommendations "from your ratings" must rest
// on ratings.
func (f *Films) fromRatings(ctx context.Context, ws int64, table, user string, n int) ([]string, error) {
	history, err := f.Catalog.History(ctx, ws, table, catalog.Users, user)
	if err != nil || len(history) == 0 {
		return nil, err
	}
	res, err := f.Recommender.Recommend(ctx, ws, table, recommend.Query{Slot: catalog.SlotItemsToUser, SubjectID: user, Limit: n})
	if err != nil {
		// no trained model yet, or the engine cannot place this user: the next basis answers
		return nil, nil
	}
	ids := make([]string, len(res))
	for i, r := range res {
		ids[i] = r.ID
	}
	return ids, nil
}

// movieInterests are the genres of the movie survey the user chose, the
// strongest first.
func (f *Films) movieInterests(ctx context.Context, userID int64) []string {
	if f.Users == nil || userID == 0 {
		return nil
	}
	profile, err := f.Users.Profile(ctx, userID)
	if err != nil {
		return nil
	}
	type interest struct {
		genre  string
		weight float64
	}
	var all []interest
	for key, w := range profile {
		if g, ok := strings.CutPrefix(key, "movie:"); ok && w > 0 {
			all = append(all, interest{g, w})
		}
	}
	slices.SortFunc(all, func(a, b interest) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), strings.Compare(a.genre, b.genre))
	})
	genres := make([]string, 0, 3)
	for _, i := range all[:min(3, len(all))] {
		genres = append(genres, i.genre)
	}
	return genres
}

func (f *Films) genreAttribute(ctx context.Context, ws int64, table string) (string, bool) {
	attrs, err := f.Catalog.Attributes(ctx, ws, table)
	if err != nil {
		return "", false
	}
	for _, want := range genreAttributes {
		for _, a := range attrs {
			if strings.EqualFold(a.ID, want) {
				return a.ID, true
			}
		}
	}
	return "", false
}

// mostWatched orders items by how many interactions they have, then by id.
func (f *Films) mostWatched(ctx context.Context, ws int64, table string, items []catalog.Entity, n int) []string {
	counts, _, err := f.Catalog.Popularity(ctx, ws, table)
	if err != nil {
		counts = nil
	}
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(counts[b], counts[a]) })
	return ids[:min(n, len(ids))]
}

// picks names the items by the table's display attribute.
func (f *Films) picks(ctx context.Context, ws int64, table string, ids []string, basis string, genres []string) (dialogue.Picks, error) {
	attr, err := f.Catalog.DisplayAttribute(ctx, ws, table)
	if err != nil {
		return dialogue.Picks{}, err
	}
	p := dialogue.Picks{Basis: basis, Genres: genres}
	for _, id := range ids {
		title := id
		if e, err := f.Catalog.Entity(ctx, ws, table, id); err == nil {
			if s, ok := e.Values[attr].(string); ok && s != "" {
				title = s
			}
		}
		p.Titles = append(p.Titles, title)
	}
	return p, nil
}
