package recomm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

// filmsTable makes a table of 12 films with numeric ids, a title, a year and a rating type, and
// returns the platform's client.
func filmsTable(t *testing.T) *client.Client { return filmsTableN(t, 12, 6) }

// filmsTableN is filmsTable with n films and users people.
func filmsTableN(t testing.TB, n, users int) *client.Client {
	c := platformTB(t)
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Recomm.CreateTable(ctx, client.NewTable{TableID: "films", Engines: client.Engines{client.SlotDefault: client.EngineISVD},
		Attributes: []client.Attribute{{AttributeID: "title", Type: client.TypeString}, {AttributeID: "year", Type: client.TypeInt, Indexed: true}}}))
	lo, hi := 1.0, 5.0
	must(c.Recomm.CreateInteraction(ctx, "films", client.Interaction{InteractionID: "rating", Type: client.InteractionContinuous, Weight: 1, MinValue: &lo, MaxValue: &hi}))
	for i := 1; i <= n; i++ {
		must(c.Recomm.CreateItem(ctx, "films", fmt.Sprint(i), map[string]any{"title": fmt.Sprintf("Film number %d", i), "year": 1990 + i}))
	}
	for u := 1; u <= users; u++ {
		must(c.Recomm.CreateUser(ctx, fmt.Sprintf("v%d", u), nil))
		for i := 1; i <= n; i++ {
			if (i+u)%3 != 0 {
				v := float64(1 + (i*u)%5)
				must(c.Recomm.AddRecord(ctx, "films", "rating", fmt.Sprintf("v%d", u), fmt.Sprint(i), client.NewRecord{Timestamp: int64(1000*u + i), Value: &v}))
			}
		}
	}
	return c
}

func TestItemsByTitleInNumericOrderSearchAndFilter(t *testing.T) {
	c := filmsTable(t)
	a, r := screenAs(t, c, "u_0000000000bb", 80, 24)
	press(t, a, "enter")
	v := a.View()
	if !strings.Contains(v, " 2  Film number 2") || strings.Index(v, " 2  Film number 2") > strings.Index(v, "10  Film number 10") {
		t.Fatalf("items are not titled in numeric order:\n%s", v)
	}
	press(t, a, "/")
	typeText(t, a, "number 1")
	press(t, a, "enter")
	if r.list.Len() != 4 { // 1, 10, 11, 12
		t.Fatalf("server-side search found %d:\n%s", r.list.Len(), a.View())
	}
	press(t, a, "esc")
	if r.list.Len() != 12 || r.search != "" {
		t.Fatalf("esc did not clear the search: %d", r.list.Len())
	}
	press(t, a, "f")
	typeText(t, a, "year=gt=2000")
	press(t, a, "enter")
	if r.list.Len() != 2 || !strings.Contains(a.View(), "Film number 12") {
		t.Fatalf("the RSQL filter: %d rows\n%s", r.list.Len(), a.View())
	}
	press(t, a, "esc")
	press(t, a, "G")
	press(t, a, "enter") // the detail over the whole width on a narrow terminal
	if v := a.View(); !strings.Contains(v, "year   2002") || !strings.Contains(v, "More like this") || strings.Contains(v, "{") {
		t.Fatalf("the detail is not a table:\n%s", v)
	}
	press(t, a, "esc")
	if r.detail {
		t.Fatal("esc did not close the detail")
	}
	press(t, a, "esc")
	if r.table != "" {
		t.Fatal("esc did not go back to the tables")
	}
}

func TestUserHistoryBesideRecommendationsAndCompare(t *testing.T) {
	c := filmsTable(t)
	a, r := screenAs(t, c, "u_0000000000bb", 120, 40)
	press(t, a, "enter")
	press(t, a, "t") // isvd training
	if j := r.jobs[len(r.jobs)-1]; !j.ended || j.failed {
		t.Fatalf("training: %+v", j.parts[0])
	}
	press(t, a, "tab") // Users
	press(t, a, "enter")
	v := a.View()
	if r.person == nil || r.person.user != "v1" || !strings.Contains(v, "History, newest first") || !strings.Contains(v, "Film number 12") {
		t.Fatalf("user view:\n%s", v)
	}
	hist := v[strings.Index(v, "History"):]
	if strings.Index(hist, "Film number 12") > strings.Index(hist, "Film number 11") {
		t.Fatalf("history is not newest first:\n%s", v)
	}
	press(t, a, "3")
	if !a.HasToast("You rate as yourself") {
		t.Fatalf("rating as another user: %q", a.Toast())
	}
	press(t, a, "esc")
	if r.person != nil || r.tab != tabUsers {
		t.Fatal("esc did not return to the users")
	}
	press(t, a, "tab")
	press(t, a, "tab") // Compare, for v1 opened last
	v = a.View()
	if !strings.Contains(v, "for user v1 · isvd vs popular") || !strings.Contains(v, "in common") {
		t.Fatalf("compare:\n%s", v)
	}
	press(t, a, "e")
	r.input.SetValue("")
	typeText(t, a, "isvd hybrid")
	press(t, a, "enter")
	if r.cmp.engines != [2]string{"isvd", "hybrid"} {
		t.Fatalf("engines: %v", r.cmp.engines)
	}
	press(t, a, "e")
	r.input.SetValue("")
	typeText(t, a, "isvd nosuch")
	press(t, a, "enter")
	if !a.HasToast(`"nosuch" is not an engine`) {
		t.Fatalf("a wrong engine: %q", a.Toast())
	}
}

func TestCatalogFormsCheckInPlace(t *testing.T) {
	c := platform(t)
	a, r := screenAs(t, c, "u_0000000000cc", 80, 24)
	press(t, a, "n")
	typeText(t, a, "my.films")
	if v := a.View(); !strings.Contains(v, `"." is not allowed in an id`) {
		t.Fatalf("the identifier rule is not shown in place:\n%s", v)
	}
	for range len("my.films") {
		press(t, a, "backspace")
	}
	typeText(t, a, "films")
	press(t, a, "tab")
	r.form.Fields[1].Value = ""
	press(t, a, "enter")
	if !a.HasToast("created table films") || r.list.Len() != 1 {
		t.Fatalf("table form: %q\n%s", a.Toast(), a.View())
	}
	press(t, a, "enter")
	press(t, a, "shift+tab")
	press(t, a, "shift+tab") // Attributes
	if r.tab != tabAttributes {
		t.Fatalf("tab %v", r.tab)
	}
	press(t, a, "n")
	typeText(t, a, "name")
	press(t, a, "tab")
	for range len("string") {
		press(t, a, "backspace")
	}
	typeText(t, a, "text")
	if !strings.Contains(a.View(), "one of string, int") {
		t.Fatalf("the type rule is not shown:\n%s", a.View())
	}
	for range 4 {
		press(t, a, "backspace")
	}
	typeText(t, a, "string")
	a.Press(t, "enter", "enter", "enter")
	if !a.HasToast("added attribute name") || !strings.Contains(a.View(), "names the items") {
		t.Fatalf("attribute form: %q\n%s", a.Toast(), a.View())
	}
	for r.list.Current().Key != "name" {
		press(t, a, "j")
	}
	press(t, a, "d")
	if !a.HasToast("now named by name") {
		t.Fatalf("d: %q", a.Toast())
	}
	press(t, a, "tab") // Interactions
	press(t, a, "n")
	typeText(t, a, "stars")
	a.Press(t, "enter", "enter", "enter")
	typeText(t, a, "5")
	press(t, a, "enter")
	typeText(t, a, "1")
	if !strings.Contains(a.View(), "min must be below max") {
		t.Fatalf("bounds not checked in place:\n%s", a.View())
	}
	press(t, a, "enter") // refused: stays open on the problem
	if r.form == nil {
		t.Fatal("the form was sent with a problem")
	}
	if r.form.Focused() != 3 {
		t.Fatalf("the refused form is not on its first problem: field %d", r.form.Focused())
	}
	press(t, a, "backspace")
	typeText(t, a, "0")
	a.Press(t, "enter", "enter")
	if !a.HasToast("added interaction type stars") || !strings.Contains(a.View(), "continuous") {
		t.Fatalf("interaction form: %q\n%s", a.Toast(), a.View())
	}
	press(t, a, "n")
	press(t, a, "esc")
	if r.form != nil {
		t.Fatal("esc did not cancel the form")
	}
}

func TestImportAFileWithTrueCounts(t *testing.T) {
	c := filmsTable(t)
	dir := t.TempDir()
	csv := "itemId,title,year\n100,Film number 100,2020\n101,Film number 101,2021\n1,Again,2000\n"
	if err := os.WriteFile(filepath.Join(dir, "more-films.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	a, r := screenAs(t, c, "u_0000000000dd", 120, 40)
	press(t, a, "enter")
	press(t, a, "i")
	press(t, a, "tab")
	typeText(t, a, filepath.Join(dir, "more"))
	press(t, a, "tab") // completes the path
	if got := r.form.Values()[1]; got != filepath.Join(dir, "more-films.csv") {
		t.Fatalf("completion: %q", got)
	}
	press(t, a, "enter")
	j := r.jobs[len(r.jobs)-1]
	if !j.ended || !strings.Contains(j.summary, "2 items added, 1 not added") {
		t.Fatalf("import summary: %+v %s\n%s", j, j.summary, a.View())
	}
	if !strings.Contains(a.View(), "import of more-films.csv: 2 items added") {
		t.Fatalf("the counts are not on screen:\n%s", a.View())
	}
}

func TestImportMovieLensFromADirectory(t *testing.T) {
	c := platform(t)
	dir := t.TempDir()
	files := map[string]string{
		"movies.csv":  "movieId,title,genres\n1,Toy Story (1995),Adventure|Animation\n2,Heat (1995),Action|Crime\n3,Up (2009),Animation\n",
		"ratings.csv": "userId,movieId,rating,timestamp\n1,1,4.0,964982703\n1,2,3.5,964981247\n2,1,5.0,964982224\n2,3,4.5,964983815\n3,2,2.0,964982931\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, r := screenAs(t, c, "u_0000000000ee", 120, 40)
	press(t, a, "m")
	typeText(t, a, dir+"/mov")
	press(t, a, "tab")
	if r.input.Value() != dir+"/movies.csv" {
		t.Fatalf("completion: %q", r.input.Value())
	}
	r.input.SetValue(dir)
	press(t, a, "enter")
	j := r.jobs[len(r.jobs)-1]
	if !j.ended || j.failed || !strings.Contains(j.summary, "3 users added; 3 movies added; 5 ratings added; movies trained") {
		t.Fatalf("MovieLens: %s", j.summary)
	}
	press(t, a, "enter")
	if v := a.View(); !strings.Contains(v, "1  Toy Story") || !strings.Contains(v, "year    1995") {
		t.Fatalf("MovieLens items:\n%s", v)
	}
	press(t, a, "m")
	press(t, a, "esc")
	press(t, a, "esc")
	press(t, a, "m")
	typeText(t, a, t.TempDir())
	press(t, a, "enter")
	if !a.HasToast("has no movies.csv") {
		t.Fatalf("a directory without MovieLens: %q", a.Toast())
	}
}

func TestRefreshShowsWhatChangedElsewhere(t *testing.T) {
	c := filmsTable(t)
	a, r := screenAs(t, c, "u_0000000000ff", 80, 24)
	press(t, a, "enter")
	if err := c.Recomm.CreateItem(context.Background(), "films", "13", map[string]any{"title": "Film number 13"}); err != nil {
		t.Fatal(err)
	}
	if r.list.Len() != 12 {
		t.Fatalf("%d rows before r", r.list.Len())
	}
	press(t, a, "r")
	if r.list.Len() != 13 || !strings.Contains(a.View(), "13  Film number 13") {
		t.Fatalf("r did not reload:\n%s", a.View())
	}
	press(t, a, "tab")
	press(t, a, "tab") // For you, on an isvd never trained
	if !strings.Contains(a.View(), "no trained model yet: press t to train it") || !strings.Contains(a.View(), "isvd learns each rating at once") {
		t.Fatalf("For you does not say what to do:\n%s", a.View())
	}
	press(t, a, "t")
	if !strings.Contains(a.View(), "You have no ratings in this table yet") {
		t.Fatalf("after training, For you does not ask for ratings:\n%s", a.View())
	}
}

func TestImportShowsTheUploadAndRefusesAMissingFile(t *testing.T) {
	c := filmsTable(t)
	a, r := screenAs(t, c, "u_0000000000ab", 80, 24)
	j := &job{label: "import of big.csv", upload: &uploadProgress{}}
	j.upload.total.Store(4096)
	j.upload.done.Store(1024)
	r.jobs = append(r.jobs, j)
	if v := a.View(); !strings.Contains(v, "import of big.csv uploading [###.........] 1 KiB of 4 KiB") {
		t.Fatalf("the upload's progress is not shown:\n%s", v)
	}
	r.jobs = nil
	press(t, a, "enter")
	press(t, a, "i")
	press(t, a, "tab")
	typeText(t, a, filepath.Join(t.TempDir(), "nothing-here.csv"))
	press(t, a, "enter")
	if !a.HasToast("import of nothing-here.csv failed") || !strings.Contains(a.Toast(), "no such file") {
		t.Fatalf("a missing file: %q", a.Toast())
	}
}
