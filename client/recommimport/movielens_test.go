package recommimport

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func generate(t *testing.T, fill func(*csv.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := fill(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	return b.String()
}

// GroupLens's layout (year in the title, a byte-order mark, CRLF lines, tags) becomes the
// contract's files: titles without the year, genres as a list, tags as a set, milliseconds.
func TestMovieLensBecomesImportFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		MoviesFile:  "\ufeffmovieId,title,genres\r\n1,Toy Story (1995),Adventure|Animation\r\n2,\"Babylon 5 (1994-1998)\",(no genres listed)\r\n",
		RatingsFile: "userId,movieId,rating,timestamp\n10,1,4.0,964982703\n9,2,3.5,964981247\n",
		TagsFile:    "userId,movieId,tag,timestamp\n10,1,Pixar,1\n9,1,\"toys, fun\",2\n10,1,pixar,3\n",
	})
	ml, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	steps := ml.Steps()
	if users := generate(t, steps[0].Fill); users != "userId\n9\n10\n" || ml.FirstUser() != "9" {
		t.Fatalf("users: %q (first %q)", users, ml.FirstUser())
	}
	want := "itemId,title,year,genres,tags\n1,Toy Story,1995,\"Adventure,Animation\",\"pixar,toys fun\"\n2,Babylon 5,1994,,\n"
	if movies := generate(t, steps[1].Fill); movies != want {
		t.Fatalf("movies:\n%s\nwant:\n%s", movies, want)
	}
	if ratings := generate(t, steps[2].Fill); !strings.Contains(ratings, "10,1,964982703000,rating,4.0") {
		t.Fatalf("ratings: %q", ratings)
	}
}

func TestMovieLensDirectoryProblemsAreNamed(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{MoviesFile: "movieId,title,genres\n", "notes.txt": ""})
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "has no ratings.csv (it has movies.csv, notes.txt)") {
		t.Fatalf("missing ratings: %v", err)
	}
	write(t, dir, map[string]string{RatingsFile: "user,movie\n"})
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "has no userId column") {
		t.Fatalf("wrong columns: %v", err)
	}
	if _, err := Open(filepath.Join(dir, MoviesFile)); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Fatalf("a file: %v", err)
	}
}
