// Package recommimport turns data sets kept on disk into the files the recommendation service
// imports: the MovieLens layout (movies, ratings, optional tags) as hark recomm import movielens
// and the Recommendations screen both read it. Everything streams: only the user ids and the tags
// are held in memory.
package recommimport

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/harkhq/hark/client"
)

// The MovieLens layout as GroupLens ships it (and as ../shared/data/movielens-small has it, with a
// separate year column).
const (
	MoviesFile  = "movies.csv"
	RatingsFile = "ratings.csv"
	TagsFile    = "tags.csv"
	// Rating is the interaction type the ratings become.
	Rating = "rating"
	// maxTagsPerMovie bounds the tags attribute of one movie.
	maxTagsPerMovie = 50
)

// mlYear finds the year GroupLens appends to titles: "Toy Story (1995)", "Babylon 5 (1994-1998)".
var mlYear = regexp.MustCompile(`^(.*?)\s*\((\d{4})(?:[-–]\d{4})?\)\s*$`)

// MovieLens is a checked MovieLens directory: its files and the positions of their columns.
type MovieLens struct {
	dir                             string
	movieID, title, year, genres    int // year -1 when the titles carry it
	userID, ratingMovie, rating, ts int
	tags                            map[string][]string // movieId → tags; nil without tags.csv
	firstUser                       string
}

// Step is one generated file and what it is imported as; users and items come before the
// ratings that name them.
type Step struct {
	Kind client.ImportKind
	Name string
	Fill func(w *csv.Writer) error
}

// Steps are the three files of a MovieLens import, in the order they must be imported.
func (ml *MovieLens) Steps() []Step {
	return []Step{
		{client.ImportUsers, "movielens-users.csv", ml.writeUsers},
		{client.ImportItems, "movielens-movies.csv", ml.writeMovies},
		{client.ImportInteractions, "movielens-ratings.csv", ml.writeRatings},
	}
}

// HasTags tells whether the directory has tags.csv.
func (ml *MovieLens) HasTags() bool { return ml.tags != nil }

// FirstUser is the smallest user id, known once the users file was generated.
func (ml *MovieLens) FirstUser() string { return ml.firstUser }

// Open checks a MovieLens directory: its files and their columns; a missing file is named with
// what the directory has instead.
func Open(dir string) (*MovieLens, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: a MovieLens directory holds %s, %s and optionally %s", dir, MoviesFile, RatingsFile, TagsFile)
	}
	for _, f := range []string{MoviesFile, RatingsFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			entries, _ := os.ReadDir(dir)
			var names []string
			for _, en := range entries {
				names = append(names, en.Name())
			}
			have := "nothing"
			switch {
			case len(names) > 12:
				have = strings.Join(names[:12], ", ") + fmt.Sprintf(" and %d more", len(names)-12)
			case len(names) > 0:
				have = strings.Join(names, ", ")
			}
			return nil, fmt.Errorf("%s has no %s (it has %s); a MovieLens directory holds %s, %s and optionally %s", dir, f, have, MoviesFile, RatingsFile, TagsFile)
		}
	}
	ml := &MovieLens{dir: dir}
	cols, err := csvHeader(filepath.Join(dir, MoviesFile), "movieId", "title", "genres")
	if err != nil {
		return nil, err
	}
	ml.movieID, ml.title, ml.genres, ml.year = cols["movieId"], cols["title"], cols["genres"], -1
	if i, ok := cols["year"]; ok {
		ml.year = i
	}
	if cols, err = csvHeader(filepath.Join(dir, RatingsFile), "userId", "movieId", "rating", "timestamp"); err != nil {
		return nil, err
	}
	ml.userID, ml.ratingMovie, ml.rating, ml.ts = cols["userId"], cols["movieId"], cols["rating"], cols["timestamp"]
	if _, err := os.Stat(filepath.Join(dir, TagsFile)); err == nil {
		if err := ml.readTags(); err != nil {
			return nil, err
		}
	}
	return ml, nil
}

// csvHeader reads a CSV file's header and checks that it has the wanted columns.
func csvHeader(path string, want ...string) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	header, err := csv.NewReader(f).Read()
	if err != nil {
		return nil, fmt.Errorf("%s: no CSV header: %v", path, err)
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.TrimPrefix(strings.TrimSpace(h), "\ufeff")] = i
	}
	for _, w := range want {
		if _, ok := cols[w]; !ok {
			return nil, fmt.Errorf("%s has no %s column (its columns: %s; wanted: %s)", path, w, strings.Join(header, ", "), strings.Join(want, ", "))
		}
	}
	return cols, nil
}

// eachRow streams the rows of a CSV file after its header; line is the row's line number.
func eachRow(path string, fn func(line int, rec []string) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	if _, err := cr.Read(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		if err := fn(line, rec); err != nil {
			return err
		}
	}
}

func field(rec []string, i int) string {
	if i < 0 || i >= len(rec) {
		return ""
	}
	return strings.TrimSpace(rec[i])
}

func (ml *MovieLens) readTags() error {
	path := filepath.Join(ml.dir, TagsFile)
	cols, err := csvHeader(path, "movieId", "tag")
	if err != nil {
		return err
	}
	ml.tags = map[string][]string{}
	return eachRow(path, func(_ int, rec []string) error {
		movie, tag := field(rec, cols["movieId"]), strings.ToLower(field(rec, cols["tag"]))
		// a set is one cell with comma-separated members: a comma inside a tag would split it
		tag = strings.Join(strings.Fields(strings.ReplaceAll(tag, ",", " ")), " ")
		if movie != "" && tag != "" && len(ml.tags[movie]) < maxTagsPerMovie && !slices.Contains(ml.tags[movie], tag) {
			ml.tags[movie] = append(ml.tags[movie], tag)
		}
		return nil
	})
}

func (ml *MovieLens) writeUsers(w *csv.Writer) error {
	w.Write([]string{"userId"})
	seen := map[string]bool{}
	var ids []string
	err := eachRow(filepath.Join(ml.dir, RatingsFile), func(_ int, rec []string) error {
		if u := field(rec, ml.userID); u != "" && !seen[u] {
			seen[u] = true
			ids = append(ids, u)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.SliceStable(ids, func(a, b int) bool { return len(ids[a]) < len(ids[b]) || len(ids[a]) == len(ids[b]) && ids[a] < ids[b] })
	if len(ids) > 0 {
		ml.firstUser = ids[0]
	}
	for _, id := range ids {
		w.Write([]string{id})
	}
	return nil
}

func (ml *MovieLens) writeMovies(w *csv.Writer) error {
	header := []string{"itemId", "title", "year", "genres"}
	if ml.tags != nil {
		header = append(header, "tags")
	}
	w.Write(header)
	return eachRow(filepath.Join(ml.dir, MoviesFile), func(_ int, rec []string) error {
		title, year := field(rec, ml.title), field(rec, ml.year)
		if m := mlYear.FindStringSubmatch(title); m != nil {
			title = m[1]
			if year == "" {
				year = m[2]
			}
		}
		var genres []string
		for _, g := range strings.Split(field(rec, ml.genres), "|") {
			if g = strings.TrimSpace(g); g != "" && g != "(no genres listed)" {
				genres = append(genres, strings.ReplaceAll(g, ",", " "))
			}
		}
		row := []string{field(rec, ml.movieID), title, year, strings.Join(genres, ",")}
		if ml.tags != nil {
			row = append(row, strings.Join(ml.tags[row[0]], ","))
		}
		return w.Write(row)
	})
}

// writeRatings turns ratings (timestamps in seconds) into interaction rows (milliseconds).
func (ml *MovieLens) writeRatings(w *csv.Writer) error {
	w.Write([]string{"userId", "itemId", "timestamp", "interactionName", "value"})
	return eachRow(filepath.Join(ml.dir, RatingsFile), func(_ int, rec []string) error {
		ts := field(rec, ml.ts)
		if s, err := strconv.ParseInt(ts, 10, 64); err == nil {
			ts = strconv.FormatInt(s*1000, 10)
		}
		return w.Write([]string{field(rec, ml.userID), field(rec, ml.ratingMovie), ts, Rating, field(rec, ml.rating)})
	})
}

// Generate streams the CSV fill writes through a pipe: nothing is held whole in memory. The
// reader ends with fill's error, if any; Close it to stop fill early.
func Generate(fill func(w *csv.Writer) error) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		w := csv.NewWriter(pw)
		err := fill(w)
		w.Flush()
		if err == nil {
			err = w.Error()
		}
		pw.CloseWithError(err)
	}()
	return readCloser{pr}
}

type readCloser struct{ *io.PipeReader }

func (r readCloser) Close() error { return r.CloseWithError(errors.New("upload ended")) }

// EnsureTable makes sure the table has the MovieLens attributes and the rating interaction,
// creating what is missing; it reports whether the table was created.
func EnsureTable(ctx context.Context, rc *client.RecommService, table string, tags bool) (bool, error) {
	want := []client.Attribute{
		{AttributeID: "title", Type: client.TypeString},
		{AttributeID: "year", Type: client.TypeInt, Indexed: true},
		{AttributeID: "genres", Type: client.TypeCategoryList},
	}
	if tags {
		want = append(want, client.Attribute{AttributeID: "tags", Type: client.TypeSet})
	}
	lo, hi := 0.5, 5.0
	rating := client.Interaction{InteractionID: Rating, Weight: 1, Type: client.InteractionContinuous, MinValue: &lo, MaxValue: &hi}
	_, err := rc.Table(ctx, table, false)
	if client.IsNotFound(err) {
		if err := rc.CreateTable(ctx, client.NewTable{TableID: table, Engines: client.Engines{client.SlotDefault: client.EngineHybrid},
			Attributes: want}); err != nil {
			return false, err
		}
		return true, rc.CreateInteraction(ctx, table, rating)
	}
	if err != nil {
		return false, err
	}
	have, err := rc.Attributes(ctx, table)
	if err != nil {
		return false, err
	}
	var missing []client.Attribute
	for _, a := range want {
		i := slices.IndexFunc(have, func(h client.Attribute) bool { return h.AttributeID == a.AttributeID })
		switch {
		case i < 0:
			missing = append(missing, a)
		case have[i].Type != a.Type:
			return false, fmt.Errorf("table %s has %s as %s, MovieLens needs %s (its attributes: %s)", table, a.AttributeID, have[i].Type, a.Type, AttributeNames(have))
		}
	}
	if len(missing) > 0 {
		if err := rc.AddAttributes(ctx, table, missing...); err != nil {
			return false, err
		}
	}
	if _, err := rc.Interaction(ctx, table, Rating); client.IsNotFound(err) {
		return false, rc.CreateInteraction(ctx, table, rating)
	} else if err != nil {
		return false, err
	}
	return false, nil
}

// AttributeNames lists attribute ids, sorted, for messages.
func AttributeNames(attrs []client.Attribute) string {
	ids := make([]string, len(attrs))
	for i, a := range attrs {
		ids[i] = a.AttributeID
	}
	sort.Strings(ids)
	return strings.Join(ids, ", ")
}
