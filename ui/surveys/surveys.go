package surveys

import (
	"context"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

type surveysKeys struct {
	Open, Back, Toggle, Save, Refresh key.Binding
}

// surveys lists the interest surveys; inside one, items toggle and save,
// and each shows its weight (the interest strength the server keeps).
type Model struct {
	ctx     *common.Context
	keys    surveysKeys
	list    components.RowList
	entries []client.SurveyEntry
	open    *client.Survey
	chosen  map[int]bool // the selection being edited
	dirty   bool
	loading bool
	loaded  bool
	errText string
	width   int
	height  int
}

func New(pc *common.Context) *Model {
	return &Model{ctx: pc, list: components.NewRowList(pc), keys: surveysKeys{
		Open:    common.Keys.Open,
		Back:    key.NewBinding(key.WithKeys("backspace", "left", "h", "esc"), key.WithHelp("esc/⌫", "back to the list")),
		Toggle:  common.WithHelp(common.Keys.Select, "space", "toggle"),
		Save:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save")),
		Refresh: common.Keys.Refresh,
	}}
}

func (s *Model) Init() tea.Cmd {
	if s.loaded || s.loading {
		return nil
	}
	return s.refresh()
}

func (s *Model) SetSize(w, h int) { s.width, s.height = w, h; s.list.SetSize(w, h-2) }
func (s *Model) Typing() bool     { return s.list.Filtering() }
func (s *Model) InputEmpty() bool { return s.list.InputEmpty() }

func (s *Model) ShortHelp() []key.Binding {
	if s.open != nil {
		return []key.Binding{s.keys.Toggle, s.keys.Save, s.keys.Back}
	}
	return []key.Binding{s.keys.Open, s.keys.Refresh}
}

func (s *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{s.keys.Open, s.keys.Back, s.keys.Toggle, s.keys.Save, s.keys.Refresh},
		{s.list.Keys.Up, s.list.Keys.Filter}}
}

type surveyListMsg struct {
	entries []client.SurveyEntry
	err     error
}

func (m surveyListMsg) Failed() error { return m.err }

type surveyMsg struct {
	survey client.Survey
	saved  bool
	err    error
}

func (m surveyMsg) Failed() error { return m.err }

func (s *Model) refresh() tea.Cmd {
	s.loading = true
	c := s.ctx.Client
	if s.open != nil {
		id := s.open.ID
		return s.ctx.Task("loading survey", func(ctx context.Context) tea.Msg {
			sv, err := c.Surveys.Get(ctx, id)
			return surveyMsg{survey: sv, err: err}
		})
	}
	return s.ctx.Task("loading surveys", func(ctx context.Context) tea.Msg {
		e, err := c.Surveys.List(ctx)
		return surveyListMsg{entries: e, err: err}
	})
}

func (s *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case surveyListMsg:
		s.loading = false
		if msg.err != nil {
			s.errText = common.Describe(msg.err)
			return s, nil
		}
		s.loaded, s.errText, s.entries = true, "", msg.entries
		if s.open == nil {
			s.showEntries()
		}
		return s, nil
	case surveyMsg:
		s.loading = false
		if msg.err != nil {
			if msg.saved {
				return s, common.ToastErr("save: " + common.Describe(msg.err))
			}
			s.errText = common.Describe(msg.err)
			return s, nil
		}
		s.errText = ""
		sv := msg.survey
		s.open, s.dirty = &sv, false
		s.chosen = map[int]bool{}
		for _, it := range sv.Items {
			s.chosen[it.ID] = it.Selected
		}
		s.showItems()
		if msg.saved {
			return s, common.Toast("saved " + common.OneLine(sv.Title))
		}
		return s, nil
	case tea.KeyMsg:
		if s.open != nil && key.Matches(msg, s.keys.Toggle) {
			if cur := s.list.Current(); cur != nil {
				id, _ := strconv.Atoi(cur.Key)
				s.chosen[id] = !s.chosen[id]
				s.dirty = true
				s.showItems()
			}
			return s, nil
		}
		if used, cmd := s.list.Update(msg); used {
			return s, cmd
		}
		switch {
		case key.Matches(msg, s.keys.Refresh):
			return s, s.refresh()
		case s.open == nil && key.Matches(msg, common.Keys.Back):
			return s, common.GoBack
		case s.open == nil && key.Matches(msg, s.keys.Open):
			if cur := s.list.Current(); cur != nil {
				id, _ := strconv.Atoi(cur.Key)
				s.open = &client.Survey{ID: id}
				return s, s.refresh()
			}
		case s.open != nil && key.Matches(msg, s.keys.Back):
			s.open = nil
			s.list.GoTop()
			s.showEntries()
			if s.dirty {
				s.dirty = false
				return s, common.Toast("left without saving")
			}
		case s.open != nil && key.Matches(msg, s.keys.Save):
			var ids []int
			for _, it := range s.open.Items {
				if s.chosen[it.ID] {
					ids = append(ids, it.ID)
				}
			}
			c, id := s.ctx.Client, s.open.ID
			return s, s.ctx.Task("saving survey", func(ctx context.Context) tea.Msg {
				sv, err := c.Surveys.Save(ctx, id, ids)
				return surveyMsg{survey: sv, saved: true, err: err}
			})
		}
	}
	return s, nil
}

func (s *Model) showEntries() {
	s.list.SetEmpty("No surveys on this platform yet: press r to look again.")
	rows := make([]components.Row, len(s.entries))
	for i, e := range s.entries {
		rows[i] = components.Row{Key: strconv.Itoa(e.SurveyID), Text: common.OneLine(e.Title)}
	}
	s.list.SetRows(rows)
}

func (s *Model) showItems() {
	s.list.SetEmpty("This survey has no items: esc goes back to the list.")
	rows := make([]components.Row, len(s.open.Items))
	for i, it := range s.open.Items {
		mark := "[ ]"
		if s.chosen[it.ID] {
			mark = "[x]"
		}
		rows[i] = components.Row{Key: strconv.Itoa(it.ID), Text: fmt.Sprintf("%s %-28s %s", mark, common.OneLine(it.Text), weightBar(it.Weight))}
	}
	s.list.SetRows(rows)
}

// weightBar draws an interest weight of 0 to 1 in ten cells.
func weightBar(w float64) string {
	n := min(max(int(w*10+0.5), 0), 10)
	return strings.Repeat("■", n) + strings.Repeat("·", 10-n) + fmt.Sprintf(" %.2f", w)
}

func (s *Model) View() string {
	t := s.ctx.Theme
	head := fmt.Sprintf("%d surveys", len(s.entries))
	if s.open != nil {
		n := 0
		for _, v := range s.chosen {
			if v {
				n++
			}
		}
		head = fmt.Sprintf("%s  %d chosen", common.OneLine(s.open.Title), n)
		if s.dirty {
			head += "  (not saved: s saves)"
		}
	}
	out := []string{t.Header.Render(common.AnsiFit(head, s.width))}
	if s.errText != "" {
		out = append(out, t.Error.Render(common.AnsiFit(s.errText, s.width)), t.Muted.Render("press r to try again"))
	} else {
		out = append(out, s.list.View())
	}
	return strings.Join(out, "\n")
}
