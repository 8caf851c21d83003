package components

import (
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
	"strings"
	"testing"
)

func bigList(n int) RowList {
	l := NewRowList(&common.Context{Theme: common.NewTheme(true), Options: common.Options{StaticCursor: true}})
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = Row{Key: fmt.Sprint(i), Text: fmt.Sprintf("row %05d %s", i, strings.Repeat("x", i%40))}
	}
	l.SetRows(rows)
	l.SetSize(80, 20)
	return l
}

func TestRowListWindowAndEnd(t *testing.T) {
	l := bigList(10000)
	if got := strings.Count(l.View(), "\n") + 1; got != 20 {
		t.Fatalf("drew %d lines for a 20-line window", got)
	}
	if l.AtEnd() {
		t.Fatal("at the end at the start")
	}
	l.Update(uitest.KeyMsg("end"))
	if !l.AtEnd() || !strings.Contains(l.View(), "row 09999") {
		t.Fatal("end does not reach the last row")
	}
	// Paging appends and keeps the cursor where it was.
	l.AppendRows([]Row{{Key: "extra", Text: "row extra"}})
	if l.Current().Key != "9999" || l.AtEnd() != true {
		t.Fatalf("cursor moved on append: %v", l.Current())
	}
	l.Update(uitest.KeyMsg("pgdown"))
	if l.Current().Key != "extra" {
		t.Fatalf("pgdown did not reach the appended row: %v", l.Current())
	}
	// The filter narrows; esc clears it.
	l.Update(uitest.KeyMsg("/"))
	for _, r := range "09998" {
		l.Update(uitest.KeyMsg(string(r)))
	}
	l.Update(uitest.KeyMsg("enter"))
	if len(l.visible) != 1 || l.Current().Key != "9998" {
		t.Fatalf("filter left %d rows", len(l.visible))
	}
	l.Update(uitest.KeyMsg("esc"))
	if len(l.visible) != 10001 {
		t.Fatal("esc did not clear the filter")
	}
}

func TestRowListSelectionSurvivesRefresh(t *testing.T) {
	// The storage service answers whole listings; the list still draws
	// only its window, and selection survives a refresh.
	l := bigList(50)
	l.Update(uitest.KeyMsg(" "))
	l.SetRows(l.rows[:10])
	if !l.selected["0"] {
		t.Fatal("selection lost on refresh")
	}
	l.SetRows(l.rows[1:5])
	if l.selected["0"] {
		t.Fatal("selection of a vanished row kept")
	}
}

func BenchmarkRowListView10k(b *testing.B) {
	l := bigList(10000)
	l.SetSize(120, 38)
	l.Update(uitest.KeyMsg("end"))
	b.ReportAllocs()
	for b.Loop() {
		_ = l.View()
	}
}

func BenchmarkRowListFilter10k(b *testing.B) {
	l := bigList(10000)
	b.ReportAllocs()
	for b.Loop() {
		l.filter.SetValue("row 0")
		l.applyFilter()
	}
}

// BenchmarkRowListView100 is the baseline of BenchmarkRowListView10k: a
// windowed list should cost the same whatever its length.
func BenchmarkRowListView100(b *testing.B) {
	l := bigList(100)
	l.SetSize(120, 38)
	l.Update(uitest.KeyMsg("end"))
	b.ReportAllocs()
	for b.Loop() {
		_ = l.View()
	}
}

func TestMain(m *testing.M) { uitest.Main(m) }
