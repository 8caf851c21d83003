package evaluate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/harkhq/hark/server/recomm/engines"
)

// MovieLensDir is the shared copy of MovieLens latest-small, relative to the repository root.
const MovieLensDir = "../shared/data/movielens-small"

// LoadMovieLens reads movies.csv and ratings.csv from dir into a Dataset: every rating is a positive
// "rating" interaction with weight 1 and the star rating as value; genres become the categoryList
// attribute "genres", the year the numeric attribute "year", and the title the text attribute "title".
func LoadMovieLens(dir string) (*engines.Dataset, error) {
	movies, err := readCSV(filepath.Join(dir, "movies.csv"), 4)
	if err != nil {
		return nil, err
	}
	ratings, err := readCSV(filepath.Join(dir, "ratings.csv"), 4)
	if err != nil {
		return nil, err
	}
	itemIndex := map[string]int32{}
	var itemIDs []string
	for _, r := range movies {
		if _, dup := itemIndex[r[0]]; dup {
			return nil, fmt.Errorf("movies.csv: duplicate movieId %s", r[0])
		}
		itemIndex[r[0]] = int32(len(itemIDs))
		itemIDs = append(itemIDs, r[0])
	}
	userIndex := map[string]int32{}
	var userIDs []string
	for _, r := range ratings {
		if _, ok := userIndex[r[0]]; !ok {
			userIndex[r[0]] = int32(len(userIDs))
			userIDs = append(userIDs, r[0])
		}
	}
	ds := engines.NewDataset(userIDs, itemIDs)
	for i, r := range movies {
		ds.SetItemText("title", int32(i), r[1])
		if y, err := strconv.ParseFloat(r[2], 64); err == nil {
			ds.SetItemNumber("year", int32(i), y)
		}
		for _, g := range strings.Split(r[3], "|") {
			if g != "" && g != "(no genres listed)" {
				ds.AddItemTokens("genres", int32(i), g)
			}
		}
	}
	ds.Interactions = make([]engines.Interaction, 0, len(ratings))
	for line, r := range ratings {
		item, ok := itemIndex[r[1]]
		if !ok {
			return nil, fmt.Errorf("ratings.csv line %d: unknown movieId %s", line+2, r[1])
		}
		value, err1 := strconv.ParseFloat(r[2], 64)
		ts, err2 := strconv.ParseInt(r[3], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("ratings.csv line %d: %w", line+2, err)
		}
		ds.Add(userIndex[r[0]], item, value, 1, true, ts*1000, "rating")
	}
	return ds, nil
}

// MostInteracted keeps the n items of ds with the most interactions (ties by index) and the
// interactions on them, with the items' attributes: a denser catalog of the same kind, for evaluating
// how a search adapts to density (MovieLens latest-small at its 1,682 most rated movies has the
// shape of the older 100k release, about 7 % of the user-item pairs rated, against 1.7 %).
func MostInteracted(ds *engines.Dataset, n int) *engines.Dataset {
	count := make([]int, len(ds.ItemIDs))
	for _, in := range ds.Interactions {
		count[in.Item]++
	}
	order := make([]int32, len(count))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(a, b int) bool { return count[order[a]] > count[order[b]] })
	order = order[:min(n, len(order))]
	newIdx := make([]int32, len(ds.ItemIDs))
	for i := range newIdx {
		newIdx[i] = -1
	}
	ids := make([]string, len(order))
	for k, i := range order {
		newIdx[i] = int32(k)
		ids[k] = ds.ItemIDs[i]
	}
	out := engines.NewDataset(ds.UserIDs, ids)
	a := &ds.ItemAttrs
	for k, i := range order {
		for name, col := range a.Tokens {
			out.AddItemTokens(name, int32(k), col[i]...)
		}
		for name, col := range a.Text {
			out.SetItemText(name, int32(k), col[i])
		}
		for name, col := range a.Numeric {
			out.SetItemNumber(name, int32(k), col[i])
		}
	}
	for _, in := range ds.Interactions {
		if k := newIdx[in.Item]; k >= 0 {
			in.Item = k
			out.Interactions = append(out.Interactions, in)
		}
	}
	return out
}

// readCSV reads a CSV file with a header row and the given number of columns.
func readCSV(path string, cols int) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = cols
	r.ReuseRecord = false
	if _, err := r.Read(); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	var rows [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		rows = append(rows, rec)
	}
}
