package main

import (
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
	"time"

	"github.com/harkhq/hark/client"
)

// The MovieLens layout as GroupLens ships it (and as ../shared/data/movielens-small has it, with a
// separate year column).
const (
	mlMovies  = "movies.csv"
	mlRatings = "ratings.csv"
	mlTags    = "tags.csv"
	mlRating  = "rating" // the interaction type the ratings become
	// maxTagsPerMovie bounds the tags attribute of one movie.
	maxTagsPerMovie = 50
)

// mlYear finds the year GroupLens appends to titles: "Toy Story (1995)", "Babylon 5 (1994-1998)".
var mlYear = regexp.MustCompile(`^(.*?)\s*\((\d{4})(?:[-–]\d{4})?\)\s*$`)

// movieLensSummary is the --json answer of import movielens.
type movieLensSummary struct {
	TableID  string           `json:"tableId"`
	Created  bool             `json:"created"`
	Imports  []importOutcome  `json:"imports"`
	Training *client.TrainJob `json:"training,omitempty"`
	Seconds  float64          `json:"seconds"`
}

func cmdRecommImportMovieLens(e *recommEnv, args []string) error {
	sf := newSubFlags(e, "import movielens")
	table := sf.String("table", "", "the table to load (created when missing)")
	train := sf.String("train", client.EngineHybrid, `the engine to train once loaded ("" for none)`)
	wait := sf.Bool("wait", false, "wait until the imports and the training end")
	pos, err := sf.parse(e, args, 1)
	if err != nil {
		return finish(err)
	}
	if *table == "" {
		return sf.usageError(e, "--table is required")
	}
	start := time.Now()
	dir := pos[0]
	ml, err := openMovieLens(dir)
	if err != nil {
		return err
	}
	verbose := !*sf.json
	sum := movieLensSummary{TableID: *table}
	if sum.Created, err = e.movieLensTable(*table, ml.tags != nil); err != nil {
		return err
	}
	if verbose && sum.Created {
		fmt.Fprintf(e.stdout, "table %s created with attributes title, year, genres%s and interaction %s\n", *table,
			map[bool]string{true: ", tags", false: ""}[ml.tags != nil], mlRating)
	}
	// jobs of a workspace start in the order they were accepted: users and items before the ratings
	// that name them, the training last
	steps := []struct {
		kind client.ImportKind
		name string
		fill func(w *csv.Writer) error
	}{
		{client.ImportUsers, "movielens-users.csv", ml.writeUsers},
		{client.ImportItems, "movielens-movies.csv", ml.writeMovies},
		{client.ImportInteractions, "movielens-ratings.csv", ml.writeRatings},
	}
	for _, s := range steps {
		if err := e.uploadGenerated(s.name, s.fill, verbose); err != nil {
			return err
		}
		o, err := e.startImport(s.kind, *table, "storage://"+importFolder+"/"+s.name, client.FormatCSV)
		if err != nil {
			return err
		}
		sum.Imports = append(sum.Imports, o)
	}
	var trainJob client.TrainJob
	if *train != "" {
		if trainJob, err = e.r.Train(e.ctx, *table, client.TrainRequest{Engine: *train}); err != nil {
			return err
		}
		sum.Training = &trainJob
	}
	if *wait {
		for i := range sum.Imports {
			o := &sum.Imports[i]
			if err := e.waitImport(steps[i].kind, o); err != nil {
				return err
			}
			if verbose {
				o.print(e.stdout)
			}
		}
		if *train != "" {
			if trainJob, err = e.r.WaitTraining(e.ctx, *table, trainJob.RequestID, 100*time.Millisecond, nil); err != nil {
				return err
			}
			sum.Training = &trainJob
			if verbose {
				fmt.Fprintf(e.stdout, "training %s: %s%s\n", *train, trainJob.Status, suffix(trainJob.Message))
			}
		}
	} else if verbose {
		for _, o := range sum.Imports {
			fmt.Fprintf(e.stdout, "%s import %s %s\n", o.Kind, o.RequestID, o.Status)
		}
		if *train != "" {
			fmt.Fprintf(e.stdout, "training %s %s %s\n", *train, trainJob.RequestID, trainJob.Status)
		}
	}
	sum.Seconds = time.Since(start).Seconds()
	if *sf.json {
		if err := recommJSON(e.stdout, sum); err != nil {
			return err
		}
	} else if *wait {
		fmt.Fprintf(e.stdout, "done in %.1fs; try: hark recomm recommend --table %s --user %s\n", sum.Seconds, *table, ml.firstUser)
	}
	// users that exist already (a second table from the same data) are not a failure
	if err := importExit(sum.Imports[1:]...); err != nil {
		return err
	}
	if *wait && *train != "" && trainJob.Status != client.StatusCompleted && trainJob.Status != client.StatusCompletedWithErrors {
		return fmt.Errorf("training ended %s%s", trainJob.Status, suffix(trainJob.Message))
	}
	return nil
}

// movieLens is a checked MovieLens directory: its files and the positions of their columns.
type movieLens struct {
	dir                             string
	movieID, title, year, genres    int // year -1 when the titles carry it
	userID, ratingMovie, rating, ts int
	tags                            map[string][]string // movieId → tags; nil without tags.csv
	firstUser                       string
}

func openMovieLens(dir string) (*movieLens, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: a MovieLens directory holds %s, %s and optionally %s", dir, mlMovies, mlRatings, mlTags)
	}
	for _, f := range []string{mlMovies, mlRatings} {
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
			return nil, fmt.Errorf("%s has no %s (it has %s); a MovieLens directory holds %s, %s and optionally %s", dir, f, have, mlMovies, mlRatings, mlTags)
		}
	}
	ml := &movieLens{dir: dir}
	cols, err := csvHeader(filepath.Join(dir, mlMovies), "movieId", "title", "genres")
	if err != nil {
		return nil, err
	}
	ml.movieID, ml.title, ml.genres, ml.year = cols["movieId"], cols["title"], cols["genres"], -1
	if i, ok := cols["year"]; ok {
		ml.year = i
	}
	if cols, err = csvHeader(filepath.Join(dir, mlRatings), "userId", "movieId", "rating", "timestamp"); err != nil {
		return nil, err
	}
	ml.userID, ml.ratingMovie, ml.rating, ml.ts = cols["userId"], cols["movieId"], cols["rating"], cols["timestamp"]
	if _, err := os.Stat(filepath.Join(dir, mlTags)); err == nil {
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

func (ml *movieLens) readTags() error {
	path := filepath.Join(ml.dir, mlTags)
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

func (ml *movieLens) writeUsers(w *csv.Writer) error {
	w.Write([]string{"userId"})
	seen := map[string]bool{}
	var ids []string
	err := eachRow(filepath.Join(ml.dir, mlRatings), func(_ int, rec []string) error {
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

func (ml *movieLens) writeMovies(w *csv.Writer) error {
	header := []string{"itemId", "title", "year", "genres"}
	if ml.tags != nil {
		header = append(header, "tags")
	}
	w.Write(header)
	return eachRow(filepath.Join(ml.dir, mlMovies), func(_ int, rec []string) error {
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
func (ml *movieLens) writeRatings(w *csv.Writer) error {
	w.Write([]string{"userId", "itemId", "timestamp", "interactionName", "value"})
	return eachRow(filepath.Join(ml.dir, mlRatings), func(_ int, rec []string) error {
		ts := field(rec, ml.ts)
		if s, err := strconv.ParseInt(ts, 10, 64); err == nil {
			ts = strconv.FormatInt(s*1000, 10)
		}
		return w.Write([]string{field(rec, ml.userID), field(rec, ml.ratingMovie), ts, mlRating, field(rec, ml.rating)})
	})
}

// uploadGenerated streams a CSV written by fill to the import folder, through a pipe: nothing is
// held whole in memory.
func (e *recommEnv) uploadGenerated(name string, fill func(w *csv.Writer) error, verbose bool) error {
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
	err := e.upload(name, pr, -1, verbose)
	pr.CloseWithError(errors.New("upload ended"))
	return err
}

// movieLensTable makes sure the table has the MovieLens attributes and the rating interaction,
// creating what is missing; it reports whether the table was created.
func (e *recommEnv) movieLensTable(table string, tags bool) (bool, error) {
	want := []client.Attribute{
		{AttributeID: "title", Type: client.TypeString},
		{AttributeID: "year", Type: client.TypeInt, Indexed: true},
		{AttributeID: "genres", Type: client.TypeCategoryList},
	}
	if tags {
		want = append(want, client.Attribute{AttributeID: "tags", Type: client.TypeSet})
	}
	rating := client.Interaction{InteractionID: mlRating, Weight: 1, Type: client.InteractionContinuous,
		MinValue: ptrTo(0.5), MaxValue: ptrTo(5.0)}
	_, err := e.r.Table(e.ctx, table, false)
	if isNotFound(err) {
		if err := e.r.CreateTable(e.ctx, client.NewTable{TableID: table, Engines: client.Engines{client.SlotDefault: client.EngineHybrid},
			Attributes: want}); err != nil {
			return false, err
		}
		return true, e.r.CreateInteraction(e.ctx, table, rating)
	}
	if err != nil {
		return false, err
	}
	have, err := e.r.Attributes(e.ctx, table)
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
			return false, fmt.Errorf("table %s has %s as %s, MovieLens needs %s (its attributes: %s)", table, a.AttributeID, have[i].Type, a.Type, attributeNames(have))
		}
	}
	if len(missing) > 0 {
		if err := e.r.AddAttributes(e.ctx, table, missing...); err != nil {
			return false, err
		}
	}
	if _, err := e.r.Interaction(e.ctx, table, mlRating); isNotFound(err) {
		return false, e.r.CreateInteraction(e.ctx, table, rating)
	} else if err != nil {
		return false, err
	}
	return false, nil
}

func ptrTo[T any](v T) *T { return &v }
