// Package recomm is the Recommendations screen: the workspace's tables, and inside a table its
// items and users by title, the person's own recommendations (rated on screen), two engines side
// by side, and the catalog (attributes, interaction types) with forms that check the contract's
// rules before sending. Imports (a file, MovieLens, the sample catalog) run as jobs whose progress
// shows under the list.
package recomm

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
)

type recommTab int

const (
	tabItems recommTab = iota
	tabUsers
	tabForYou
	tabCompare
	tabAttributes
	tabInteractions
)

var recommTabNames = []string{"Items", "Users", "For you", "Compare", "Attributes", "Interactions"}

const recommPage = 100

type recommKeys struct {
	Open, Back, NextTab, PrevTab, Refresh, Search, Filter, Rate, Like, Train, New, Import,
	Sample, MovieLens, Engines, Display, NewAttribute, NewInteraction key.Binding
}

// tableInfo is what the screen needs to know of the open table.
type tableInfo struct {
	display string // the display attribute, "" when ids are all there is
	engine  string // the default engine
	rating  *client.Interaction
	loaded  bool
}

// Model is the Recommendations screen.
type Model struct {
	ctx  *common.Context
	keys recommKeys
	list components.RowList

	table string // "" lists the tables
	tab   recommTab
	info  tableInfo

	details map[string][]string // formatted detail pane by row key
	titles  map[string]string   // item id → title, from every answer seen
	after   string
	more    bool
	loading bool
	gen     int
	errText string
	search  string // server-side search of the Items or Users tab
	filter  string // RSQL filter of the Items or Users tab

	// detail shows the row under the cursor full width (narrow terminals, and a user's history
	// beside their recommendations).
	detail bool
	person *personView // the For you tab, or a user opened from Users
	cmp    compareView

	prompt string // "search", "filter", "engines", "movielens" or ""
	input  components.InputField
	form   *components.FieldForm
	formOf string // "table", "attribute", "interaction", "import"

	jobs   []*job
	width  int
	height int
}

func New(pc *common.Context) *Model {
	return &Model{ctx: pc, list: components.NewRowList(pc), details: map[string][]string{}, titles: map[string]string{},
		input: components.NewInputField(pc), keys: recommKeys{
			Open:           common.WithHelp(common.Keys.Open, "enter", "open"),
			Back:           common.WithHelp(common.Keys.Back, "esc", "back"),
			NextTab:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab/shift+tab", "tabs")),
			PrevTab:        key.NewBinding(key.WithKeys("shift+tab")),
			Refresh:        common.Keys.Refresh,
			Search:         key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search titles")),
			Filter:         key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter (RSQL)")),
			Rate:           key.NewBinding(key.WithKeys("1", "2", "3", "4", "5"), key.WithHelp("1-5", "rate")),
			Like:           key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "like")),
			Train:          key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "train")),
			New:            key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new table")),
			Import:         key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "import a file")),
			Sample:         key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sample catalog")),
			MovieLens:      key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "import MovieLens")),
			Engines:        key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "engines to compare")),
			Display:        key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "name items by this attribute")),
			NewAttribute:   key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new attribute")),
			NewInteraction: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new interaction type")),
		}}
}

// me is the recommendation user id of the person at the keyboard: their platform username, the
// one handle every service knows them by.
func (r *Model) me() string { return r.ctx.Session.Username }

func (r *Model) setEmpty() {
	if r.table == "" {
		r.list.SetEmpty("No recommendation tables yet. Press s to load the sample catalog (films, restaurants and news " +
			"with 200 people's history, trained for you), m to import MovieLens from a directory, or n to create an empty table.")
		return
	}
	switch r.tab {
	case tabItems:
		if r.search != "" || r.filter != "" {
			r.list.SetEmpty("No item matches: esc clears the search and the filter.")
			return
		}
		r.list.SetEmpty("No items yet: press i to import a file of items (CSV or JSON).")
	case tabUsers:
		r.list.SetEmpty("No users yet: press i to import a file of users, or rate items yourself (1-5 on the Items tab).")
	case tabAttributes:
		r.list.SetEmpty("No attributes: press n to add one (items are then named by a title or name attribute).")
	case tabInteractions:
		r.list.SetEmpty("No interaction types: press n to add one (a rating, a like, a view) before importing interactions.")
	}
}

func (r *Model) Init() tea.Cmd {
	r.setEmpty()
	if r.loading || r.list.Len() > 0 || r.table != "" {
		return nil
	}
	return r.load(true)
}

func (r *Model) SetSize(w, h int) {
	r.width, r.height = w, h
	r.list.SetSize(r.listWidth(), r.bodyHeight())
	r.input.Width = max(w-24, 10)
	if r.form != nil {
		r.form.SetWidth(w)
	}
	if r.person != nil {
		h := r.bodyHeight() - 3
		if w < 100 {
			h -= 6 // the history goes under the list
		}
		r.person.recs.SetSize(r.personListWidth(), max(h, 3))
	}
}

// bodyHeight is what the list may use: the header, the job lines and the prompt take the rest.
func (r *Model) bodyHeight() int {
	h := r.height - 1 - min(len(r.jobs), 3)
	if r.prompt != "" {
		h--
	}
	return max(h, 3)
}

func (r *Model) listWidth() int {
	if r.width >= 100 {
		return r.width - components.DetailWidth - 1
	}
	return r.width
}

func (r *Model) Typing() bool { return r.prompt != "" || r.form != nil || r.list.Filtering() }

func (r *Model) InputEmpty() bool {
	if r.prompt != "" {
		return r.input.Value() == ""
	}
	if r.form != nil {
		return false
	}
	return r.list.InputEmpty()
}

// TakesTab: inside a table, tab and shift+tab move through its tabs.
func (r *Model) TakesTab() bool { return r.table != "" }

func (r *Model) ShortHelp() []key.Binding {
	k := r.keys
	switch {
	case r.table == "":
		if r.list.Len() == 0 {
			return []key.Binding{k.Sample, k.MovieLens, k.New}
		}
		return []key.Binding{k.Open, k.Sample, k.MovieLens, k.New}
	case r.tab == tabItems:
		return []key.Binding{k.Rate, k.Search, k.Filter, k.Open, k.NextTab}
	case r.tab == tabForYou:
		return []key.Binding{k.Rate, k.Like, k.Train, k.NextTab}
	case r.tab == tabCompare:
		return []key.Binding{k.Engines, k.Train, k.NextTab}
	case r.tab == tabAttributes:
		return []key.Binding{k.NewAttribute, k.Display, k.Import, k.NextTab}
	case r.tab == tabInteractions:
		return []key.Binding{k.NewInteraction, k.Import, k.NextTab}
	}
	return []key.Binding{k.Search, k.Open, k.NextTab}
}

func (r *Model) FullHelp() [][]key.Binding {
	k := r.keys
	return [][]key.Binding{
		{k.Open, k.Back, k.NextTab, k.Refresh, r.list.Keys.Up, r.list.Keys.Home},
		{k.Search, k.Filter, k.Rate, k.Like, k.Train, k.Engines},
		{k.New, k.Import, k.Sample, k.MovieLens, k.Display},
	}
}

// reset empties the list for a new view.
func (r *Model) reset() {
	defer r.setEmpty()
	r.list.Reset()
	r.more, r.after, r.errText, r.detail = false, "", "", false
	r.gen++
}

// openTab shows a tab of the open table and loads what it shows.
func (r *Model) openTab(tab recommTab) tea.Cmd {
	r.tab = tab
	r.search, r.filter = "", ""
	r.reset()
	switch tab {
	case tabForYou:
		return r.openPerson(r.me(), true)
	case tabCompare:
		return r.loadCompare()
	}
	r.person = nil
	return r.load(true)
}

func (r *Model) openTable(name string) tea.Cmd {
	r.table, r.info, r.person, r.cmp = name, tableInfo{}, nil, compareView{}
	r.details = map[string][]string{}
	return tea.Batch(r.loadInfo(), r.openTab(tabItems))
}

func (r *Model) ask(kind, prompt, placeholder, value string) tea.Cmd {
	r.prompt = kind
	r.input.Prompt = prompt
	r.input.Placeholder = placeholder
	r.input.SetValue(value)
	r.input.CursorEnd()
	r.SetSize(r.width, r.height)
	return r.input.Focus()
}

func (r *Model) closePrompt() {
	r.prompt = ""
	r.input.Blur()
	r.SetSize(r.width, r.height)
}

// title names an item by its display attribute when one is known.
func (r *Model) title(id string) string {
	if t := r.titles[id]; t != "" {
		return t
	}
	return id
}

// titled is an item as lists show it: the id right-aligned (numeric ids line up), then the title.
func (r *Model) titled(id string, idWidth int) string {
	t := r.titles[id]
	if t == "" {
		return id
	}
	return fmt.Sprintf("%*s  %s", idWidth, id, t)
}

func (r *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if r.form != nil && components.IsFormMsg(msg) {
		cmd, _ := r.form.Update(msg)
		return r, cmd
	}
	switch msg := msg.(type) {
	case rowsMsg:
		return r, r.gotRows(msg)
	case tableInfoMsg:
		if msg.table == r.table {
			if msg.err != nil {
				r.errText = common.Describe(msg.err)
				return r, nil
			}
			r.info = msg.info
		}
		return r, nil
	case detailMsg:
		if msg.err != nil {
			r.details[msg.key] = []string{common.Describe(msg.err)}
		} else {
			r.details[msg.key] = msg.lines
		}
		r.learnTitles(msg.titles)
		return r, nil
	case personMsg:
		return r, r.gotPerson(msg)
	case compareMsg:
		r.gotCompare(msg)
		return r, nil
	case ratedMsg:
		return r, r.rated(msg)
	case pathCompletedMsg:
		if r.prompt == "movielens" && r.input.Value() == msg.typed {
			r.input.SetValue(msg.value)
			r.input.CursorEnd()
		}
		return r, nil
	case savedMsg:
		if msg.err != nil {
			return r, common.ToastErr(common.Describe(msg.err))
		}
		return r, tea.Batch(common.Toast(msg.what), r.reload())
	case jobStartedMsg:
		return r, r.jobStarted(msg)
	case jobUploadedMsg:
		return r, r.jobUploaded(msg)
	case uploadTickMsg:
		if msg.job.upload != nil {
			return r, r.uploadTick(msg.job)
		}
		return r, nil
	case jobPollMsg:
		return r, r.pollJob(msg.job)
	case jobStatusMsg:
		return r, r.jobStatus(msg)
	case tea.KeyMsg:
		return r, r.key(msg)
	}
	return r, nil
}

func (r *Model) learnTitles(t map[string]string) {
	for id, title := range t {
		if title != "" {
			r.titles[id] = title
		}
	}
}

// reload shows the current view again from the platform.
func (r *Model) reload() tea.Cmd {
	switch {
	case r.table == "":
		return r.load(true)
	case r.tab == tabForYou || r.person != nil:
		return r.loadPerson(false)
	case r.tab == tabCompare:
		return r.loadCompare()
	}
	r.details = map[string][]string{}
	return tea.Batch(r.loadInfo(), r.load(true))
}

func (r *Model) key(msg tea.KeyMsg) tea.Cmd {
	if r.form != nil {
		return r.formKey(msg)
	}
	if r.prompt != "" {
		return r.promptKey(msg)
	}
	k := r.keys
	if r.table == "" {
		return r.tablesKey(msg)
	}
	switch {
	case key.Matches(msg, k.NextTab), key.Matches(msg, k.PrevTab):
		step := recommTab(1)
		if key.Matches(msg, k.PrevTab) {
			step = recommTab(len(recommTabNames) - 1)
		}
		return r.openTab((r.tab + step) % recommTab(len(recommTabNames)))
	case key.Matches(msg, k.Train):
		return r.train()
	case key.Matches(msg, k.Import):
		return r.importForm()
	}
	switch r.tab {
	case tabForYou:
		return r.personKey(msg)
	case tabCompare:
		return r.compareKey(msg)
	case tabUsers:
		if r.person != nil {
			return r.personKey(msg)
		}
	}
	if r.detail {
		if key.Matches(msg, k.Back) || key.Matches(msg, k.Open) {
			r.detail = false
			return nil
		}
	}
	if (r.tab == tabItems || r.tab == tabUsers) && !r.detail {
		switch {
		case key.Matches(msg, k.Search):
			return r.ask("search", "search titles: ", "part of a title or an id; enter searches, esc cancels", r.search)
		case key.Matches(msg, k.Filter):
			return r.ask("filter", "filter (RSQL): ", "e.g. year=gt=2000;genres=in=(Drama)", r.filter)
		case key.Matches(msg, k.Back) && (r.search != "" || r.filter != ""):
			r.search, r.filter = "", ""
			r.reset()
			return r.load(true)
		}
	}
	if used, cmd := r.list.Update(msg); used {
		if r.list.AtEnd() && r.more && !r.loading {
			return tea.Batch(cmd, r.load(false))
		}
		return tea.Batch(cmd, r.fetchDetail())
	}
	cur := r.list.Current()
	switch {
	case key.Matches(msg, k.Refresh):
		return r.reload()
	case key.Matches(msg, k.Back):
		r.table, r.person = "", nil
		r.reset()
		return r.load(true)
	case r.tab == tabItems && (key.Matches(msg, k.Rate) || key.Matches(msg, k.Like)) && cur != nil:
		return r.rate(cur.Key, msg.String())
	case r.tab == tabItems && key.Matches(msg, k.Open) && cur != nil:
		r.detail = true
		return r.fetchDetail()
	case r.tab == tabUsers && key.Matches(msg, k.Open) && cur != nil:
		return r.openPerson(cur.Key, false)
	case (r.tab == tabAttributes || r.tab == tabInteractions) && key.Matches(msg, k.New):
		if r.tab == tabAttributes {
			return r.attributeForm()
		}
		return r.interactionForm()
	case r.tab == tabAttributes && key.Matches(msg, k.Display) && cur != nil:
		return r.setDisplay(cur.Key)
	}
	return nil
}

func (r *Model) tablesKey(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	if used, cmd := r.list.Update(msg); used {
		return cmd
	}
	switch {
	case key.Matches(msg, k.Refresh):
		return r.load(true)
	case key.Matches(msg, k.Open):
		if cur := r.list.Current(); cur != nil {
			return r.openTable(cur.Key)
		}
	case key.Matches(msg, k.Sample):
		return r.loadSample()
	case key.Matches(msg, k.MovieLens):
		return r.ask("movielens", "MovieLens directory: ", "a directory with movies.csv and ratings.csv; tab completes", "")
	case key.Matches(msg, k.New):
		return r.tableForm()
	case key.Matches(msg, common.Keys.Back):
		return common.GoBack
	}
	return nil
}

func (r *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		r.closePrompt()
		return nil
	case "tab":
		if r.prompt == "movielens" {
			typed := r.input.Value()
			return func() tea.Msg { return pathCompletedMsg{typed: typed, value: components.CompletePath(typed)} }
		}
		return nil
	case "enter":
		kind, v := r.prompt, strings.TrimSpace(r.input.Value())
		r.closePrompt()
		switch kind {
		case "search", "filter":
			if kind == "search" {
				r.search = v
			} else {
				r.filter = v
			}
			r.reset()
			return r.load(true)
		case "engines":
			return r.setCompareEngines(v)
		case "movielens":
			if v == "" {
				return nil
			}
			return r.importMovieLens(v)
		}
		return nil
	}
	return r.input.Update(msg)
}

func (r *Model) View() string {
	t := r.ctx.Theme
	var out []string
	if r.table == "" {
		head := fmt.Sprintf("%d tables", r.list.Len())
		if r.list.Len() == 1 {
			head = "1 table"
		}
		if r.list.Len() > 0 {
			head += " · enter opens one"
		}
		out = append(out, t.Header.Render(common.AnsiFit(head, r.width)))
	} else {
		var tabs []string
		for i, n := range recommTabNames {
			if recommTab(i) == r.tab {
				tabs = append(tabs, t.Cursor.Render("["+n+"]"))
			} else {
				tabs = append(tabs, " "+n+" ")
			}
		}
		out = append(out, common.AnsiFit(t.Header.Render(r.table)+" "+strings.Join(tabs, ""), r.width))
	}
	switch {
	case r.form != nil:
		out = append(out, r.form.View())
	case r.errText != "":
		out = append(out, strings.Join(common.Wrap(t.Error.Render(r.errText), r.width), "\n"), t.Muted.Render("press r to try again"))
	case r.table != "" && r.tab == tabCompare:
		out = append(out, r.compareViewText())
	case r.person != nil:
		out = append(out, r.personViewText())
	case r.detail:
		out = append(out, r.detailFull())
	default:
		out = append(out, r.listWithDetail())
	}
	out = append(out, r.jobLines()...)
	if r.prompt != "" {
		out = append(out, r.input.View())
	}
	return strings.Join(out, "\n")
}

// listWithDetail is the list, with the detail pane beside it when the terminal is wide enough.
func (r *Model) listWithDetail() string {
	t := r.ctx.Theme
	body := r.list.View()
	if r.width < 100 || r.table == "" {
		return body
	}
	var detail []string
	if cur := r.list.Current(); cur != nil {
		detail = r.details[cur.Key]
	}
	lines := strings.Split(body, "\n")
	h := max(len(lines), min(len(detail), r.bodyHeight()))
	var b strings.Builder
	for i := range h {
		left := ""
		if i < len(lines) {
			left = lines[i]
		}
		right := ""
		if i < len(detail) {
			right = detail[i]
		}
		b.WriteString(common.AnsiFit(left, r.listWidth()) + strings.Repeat(" ", max(r.listWidth()-lipglossWidth(left), 0)))
		b.WriteString(" " + t.Border.Render("│") + " " + common.AnsiFit(right, components.DetailWidth-2))
		if i < h-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// detailFull is the detail of the row under the cursor over the whole width.
func (r *Model) detailFull() string {
	t := r.ctx.Theme
	cur := r.list.Current()
	if cur == nil {
		return ""
	}
	lines := []string{t.Header.Render(common.AnsiFit(r.titled(cur.Key, 0), r.width))}
	for _, l := range r.details[cur.Key] {
		lines = append(lines, common.AnsiFit(l, r.width))
	}
	lines = append(lines, t.Muted.Render(common.Fit("1-5 rate · l like · esc back to the list", r.width)))
	return strings.Join(lines, "\n")
}
