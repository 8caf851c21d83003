package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
)

// keysApp is a signed-in console on a fake platform that answers every
// screen, at 80x24.
func keysApp(t *testing.T) (*App, *uitest.FakePlatform) {
	f := uitest.NewFakePlatform(t)
	uitest.StorageFixture(f)
	uitest.ItemsFixture(f)
	uitest.RecommFixture(f)
	uitest.PlacesFixture(f)
	uitest.AnswerWith(f)
	f.JSON("GET /v2/storage/folder/list", 200, []string{"reports", "photos"})
	return newTestApp(t, testOptions(f.Client(t), true), 80, 24), f
}

var screenKeys = map[common.ScreenID]string{
	common.ScreenConsole: "alt+c", common.ScreenItems: "alt+i", common.ScreenStorage: "alt+s",
	common.ScreenSurveys: "alt+u", common.ScreenRecomm: "alt+r", common.ScreenPlaces: "alt+p",
}

func quits(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// cursorLine is the line of the view the cursor mark is on.
func cursorLine(v string) string {
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), ">") {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

func TestCtrlCQuitsOnEveryScreen(t *testing.T) {
	for id, k := range screenKeys {
		a, _ := keysApp(t)
		press(t, a, k)
		typeText(t, a, "/") // a filter or a field with the keys: ctrl+c still quits
		if _, cmd := a.Update(keyMsg("ctrl+c")); !quits(cmd) {
			t.Errorf("%s: ctrl+c did not quit", screenTitles[id])
		}
	}
	f := uitest.NewFakePlatform(t)
	a := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	typeText(t, a, "ann@")
	if _, cmd := a.Update(keyMsg("ctrl+c")); !quits(cmd) {
		t.Error("sign-in: ctrl+c did not quit")
	}
}

func TestQQuitsOnlyWhereNoFieldHasTheKeys(t *testing.T) {
	for id, k := range screenKeys {
		a, _ := keysApp(t)
		press(t, a, k)
		_, cmd := a.Update(keyMsg("q"))
		if id == common.ScreenConsole {
			if quits(cmd) || !strings.Contains(a.View(), "› q") {
				t.Errorf("console: q quit instead of being typed:\n%s", a.View())
			}
			continue
		}
		if !quits(cmd) {
			t.Errorf("%s: q did not quit", screenTitles[id])
		}
	}
	// A filter line has the keys: q is typed into it.
	a, _ := keysApp(t)
	press(t, a, "alt+s")
	press(t, a, "/")
	if _, cmd := a.Update(keyMsg("q")); quits(cmd) {
		t.Error("q quit while the filter had the keys")
	}
	f := uitest.NewFakePlatform(t)
	b := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	if _, cmd := b.Update(keyMsg("q")); quits(cmd) {
		t.Error("q quit on the sign-in form")
	}
}

func TestHelpOpensWithQuestionMarkWhenTheFieldIsEmptyAndF1Always(t *testing.T) {
	for id, k := range screenKeys {
		a, _ := keysApp(t)
		press(t, a, k)
		press(t, a, "?")
		if !a.fullHelp || !strings.Contains(a.View(), "esc or ? closes") {
			t.Errorf("%s: ? did not open the help:\n%s", screenTitles[id], a.View())
		}
		press(t, a, "esc")
		if a.fullHelp || a.active != id {
			t.Errorf("%s: esc did not close the help (active %v)", screenTitles[id], a.active)
		}
		press(t, a, "f1")
		if !a.fullHelp {
			t.Errorf("%s: f1 did not open the help", screenTitles[id])
		}
	}
	a, _ := keysApp(t)
	typeText(t, a, "why?")
	if a.fullHelp || a.screens[common.ScreenConsole].InputEmpty() {
		t.Fatalf("? in a question opened the help:\n%s", a.View())
	}
	press(t, a, "f1")
	if !a.fullHelp {
		t.Fatal("f1 did not open the help while typing")
	}
	f := uitest.NewFakePlatform(t)
	b := newTestApp(t, testOptions(f.Client(t), false), 80, 24)
	press(t, b, "?")
	if !b.fullHelp {
		t.Fatal("? on the empty sign-in form did not open the help")
	}
}

func TestEscClosesThenClearsThenGoesBack(t *testing.T) {
	a, _ := keysApp(t)
	press(t, a, "alt+s")
	// A dialog first.
	press(t, a, "x")
	if !strings.Contains(a.View(), "[y/N]") {
		t.Fatalf("no dialog:\n%s", a.View())
	}
	press(t, a, "esc")
	if strings.Contains(a.View(), "[y/N]") || a.active != common.ScreenStorage {
		t.Fatalf("esc did not close the dialog alone:\n%s", a.View())
	}
	// Then a filter.
	press(t, a, "/")
	typeText(t, a, "movies")
	press(t, a, "enter")
	if strings.Contains(a.View(), "readme.md") {
		t.Fatalf("filter not applied:\n%s", a.View())
	}
	press(t, a, "esc")
	if !strings.Contains(a.View(), "readme.md") || a.active != common.ScreenStorage {
		t.Fatalf("esc did not clear the filter alone:\n%s", a.View())
	}
	// Then up a folder, then back to the screen before.
	press(t, a, "enter") // the first row is a folder
	if !strings.Contains(a.View(), "/photos/") {
		t.Fatalf("folder not opened:\n%s", a.View())
	}
	press(t, a, "esc")
	if strings.Contains(a.View(), "/photos/") {
		t.Fatalf("esc did not go up a folder:\n%s", a.View())
	}
	press(t, a, "esc")
	if a.active != common.ScreenConsole {
		t.Fatalf("esc at the top of storage went to %v", a.active)
	}

	// Every other screen goes back the same way.
	for _, id := range []common.ScreenID{common.ScreenItems, common.ScreenSurveys, common.ScreenRecomm, common.ScreenPlaces} {
		press(t, a, "alt+s")
		press(t, a, screenKeys[id])
		press(t, a, "esc")
		if a.active != common.ScreenStorage {
			t.Errorf("esc on %s went to %v, not back to storage", screenTitles[id], a.active)
		}
	}
	// Inside: a survey, a table and the items detail close first.
	press(t, a, "alt+u")
	press(t, a, "enter")
	press(t, a, "esc")
	if a.active != common.ScreenSurveys || !strings.Contains(a.View(), "Cuisine") {
		t.Fatalf("esc in a survey did not go back to the list:\n%s", a.View())
	}
	press(t, a, "alt+r")
	press(t, a, "down")
	press(t, a, "enter")
	press(t, a, "esc")
	if a.active != common.ScreenRecomm || !strings.Contains(a.View(), "2 tables") {
		t.Fatalf("esc in a table did not go back to the tables:\n%s", a.View())
	}
	press(t, a, "alt+i")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "rating") {
		t.Fatalf("enter did not open the detail at 80 columns:\n%s", a.View())
	}
	press(t, a, "esc")
	if a.active != common.ScreenItems || strings.Contains(a.View(), "rating  7.8") {
		t.Fatalf("esc did not close the detail:\n%s", a.View())
	}
}

func TestShiftTabGoesBackATab(t *testing.T) {
	a, _ := keysApp(t)
	press(t, a, "shift+tab")
	if a.active != common.ScreenPlaces {
		t.Fatalf("shift+tab on the console went to %v", a.active)
	}
	press(t, a, "tab")
	if a.active != common.ScreenConsole {
		t.Fatalf("tab on places went to %v", a.active)
	}
	press(t, a, "alt+s")
	press(t, a, "shift+tab")
	if a.active != common.ScreenItems {
		t.Fatalf("shift+tab on storage went to %v", a.active)
	}
	// Items has its own tabs, the domains: shift+tab goes back one of them.
	press(t, a, "shift+tab")
	if a.active != common.ScreenItems || !strings.Contains(a.View(), "‹ TV ›") {
		t.Fatalf("shift+tab on items did not go back a domain:\n%s", a.View())
	}
	press(t, a, "alt+u")
	press(t, a, "shift+tab")
	if a.active != common.ScreenStorage {
		t.Fatalf("shift+tab on surveys went to %v", a.active)
	}
}

func TestJKgGMoveInEveryList(t *testing.T) {
	for _, id := range []common.ScreenID{common.ScreenItems, common.ScreenStorage, common.ScreenSurveys, common.ScreenRecomm, common.ScreenPlaces} {
		a, _ := keysApp(t)
		press(t, a, screenKeys[id])
		first := cursorLine(a.View())
		press(t, a, "j")
		second := cursorLine(a.View())
		press(t, a, "k")
		back := cursorLine(a.View())
		press(t, a, "G")
		last := cursorLine(a.View())
		press(t, a, "g")
		top := cursorLine(a.View())
		if first == "" || second == first || back != first || last == first || top != first {
			t.Errorf("%s: j/k/G/g moved %q → %q → %q, G %q, g %q", screenTitles[id], first, second, back, last, top)
		}
	}
}

// Keys that arrive in one read ("jj" from a held key or a script) reach the
// app as one message; they act as the same keys pressed one by one, and a
// bracketed paste of the same runes is not taken for keys.
func TestRunesOfOneReadActAsSeparateKeys(t *testing.T) {
	one, _ := keysApp(t)
	press(t, one, "alt+i")
	press(t, one, "j")
	press(t, one, "j")
	want := cursorLine(one.View())

	a, _ := keysApp(t)
	press(t, a, "alt+i")
	first := cursorLine(a.View())
	drive(t, a, func() tea.Msg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")} })
	if got := cursorLine(a.View()); got != want || got == first {
		t.Fatalf("\"jj\" in one read moved the cursor from %q to %q; pressed apart they reach %q", first, got, want)
	}
	if _, cmd := a.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("qq"), Paste: true}); quits(cmd) {
		t.Fatal("a pasted \"qq\" quit the console")
	}
}

func TestTabBarNamesEveryScreenAtEveryWidth(t *testing.T) {
	a, _ := keysApp(t)
	for _, w := range []int{200, 120, 100, 80, 60} {
		a.Update(tea.WindowSizeMsg{Width: w, Height: 24})
		bar := strings.Split(a.View(), "\n")[0]
		if common.CellWidth(bar) > w {
			t.Errorf("at %d columns the bar is %d wide: %q", w, common.CellWidth(bar), bar)
		}
		for _, tb := range a.tabs() {
			letter := strings.TrimPrefix(tb.key.Help().Key, "alt+")
			if !strings.Contains(bar, letter+" "+tb.short[:4]) && !strings.Contains(bar, letter+":"+tb.short[:4]) {
				t.Errorf("at %d columns %s (%s) is missing: %q", w, tb.name, letter, bar)
			}
		}
		if !strings.Contains(bar, "alt+") {
			t.Errorf("at %d columns the bar does not say which modifier: %q", w, bar)
		}
	}
}

// Nothing overflows at the sizes people use, and the console keeps its
// input line in sight.
func TestLayoutFitsAt60x20And80x24And200x60(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}, {200, 60}} {
		w, h := size[0], size[1]
		a, _ := keysApp(t)
		a.Update(tea.WindowSizeMsg{Width: w, Height: h})
		typeText(t, a, "a question long enough to wrap around twice at least, with more words")
		press(t, a, "enter")
		for _, k := range []string{"alt+c", "alt+i", "tab", "alt+s", "alt+u", "alt+r", "alt+p", "f1"} {
			press(t, a, k)
			lines := strings.Split(a.View(), "\n")
			if len(lines) != h {
				t.Errorf("%dx%d after %s: %d lines", w, h, k, len(lines))
			}
			for _, l := range lines {
				if cw := common.CellWidth(l); cw > w {
					t.Errorf("%dx%d after %s: a line of %d cells: %q", w, h, k, cw, l)
					break
				}
			}
			if k == "alt+c" && !strings.Contains(a.View(), "› ") {
				t.Errorf("%dx%d: the console's input line is hidden:\n%s", w, h, a.View())
			}
		}
	}
}

// The full help of every screen fits 80x24: every key is on one of its
// pages, nothing is cut.
func TestFullHelpFits80x24OnEveryScreen(t *testing.T) {
	for id, k := range screenKeys {
		a, _ := keysApp(t)
		press(t, a, k)
		press(t, a, "f1")
		var seen strings.Builder
		for page := 0; page < 5; page++ {
			v := a.View()
			lines := strings.Split(v, "\n")
			if len(lines) != 24 {
				t.Errorf("%s help page %d: %d lines", screenTitles[id], page, len(lines))
			}
			for _, l := range lines[1 : len(lines)-2] {
				if common.CellWidth(l) > 80 || strings.Contains(l, "…") {
					t.Errorf("%s help: a line cut or too wide: %q", screenTitles[id], l)
				}
			}
			seen.WriteString(v)
			press(t, a, "pgdown")
		}
		for _, g := range a.helpGroups() {
			for _, b := range g {
				if b.Help().Desc != "" && !strings.Contains(seen.String(), b.Help().Desc) {
					t.Errorf("%s help: %q (%s) on no page", screenTitles[id], b.Help().Desc, b.Help().Key)
				}
			}
		}
	}
}
