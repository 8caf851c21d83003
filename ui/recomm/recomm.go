package recomm

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
)

type recommTab int

const (
	tabAttributes recommTab = iota
	tabItems
	tabUsers
	tabInteractions
	tabRecommend
)

var recommTabNames = []string{"Attributes", "Items", "Users", "Interactions", "Recommend"}

const recommPage = 100

type recommKeys struct {
	Open, Back, NextTab, PrevTab, Refresh, Import, Train, Ask key.Binding
}

// recommJob is an import or a training being watched.
type recommJob struct {
	label    string
	table    string
	id       string
	kind     client.ImportKind
	training bool
	status   string
	message  string
}

// recomm browses the recommendation service: tables, then per table its
// attributes, items, users and interactions; imports and trainings with
// their status watched until they end; and recommendations for a user or
// an item, two engines side by side.
type Model struct {
	ctx     *common.Context
	keys    recommKeys
	list    components.RowList
	table   string // "" lists the tables
	tab     recommTab
	details map[string]string
	after   string
	more    bool
	loading bool
	gen     int
	errText string

	prompt  string // "import", "train", "recommend" or ""
	input   components.InputField
	jobs    []*recommJob
	query   string
	results [2][]client.Recommendation
	engines [2]string
	resErr  [2]string
	width   int
	height  int
}

func New(pc *common.Context) *Model {
	return &Model{ctx: pc, list: components.NewRowList(pc), details: map[string]string{}, input: components.NewInputField(pc), keys: recommKeys{
		Open:    common.Keys.Open,
		Back:    key.NewBinding(key.WithKeys("backspace", "left", "h", "esc"), key.WithHelp("esc/⌫", "back to the tables")),
		NextTab: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab/shift+tab", "next/previous tab")),
		PrevTab: key.NewBinding(key.WithKeys("shift+tab")),
		Refresh: common.Keys.Refresh,
		Import:  key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "import")),
		Train:   key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "train")),
		Ask:     key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "recommend")),
	}}
}

// setEmpty says what to do when the current view has no rows.
func (r *Model) setEmpty() {
	if r.table == "" {
		r.list.SetEmpty("No recommendation tables in this workspace yet (they are made through the recommendation service's API): press r to look again.")
		return
	}
	r.list.SetEmpty("Nothing here yet: press i to import from storage, or tab for the next tab.")
}

func (r *Model) Init() tea.Cmd {
	r.setEmpty()
	if r.loading || r.list.Len() > 0 {
		return nil
	}
	return r.load(true)
}

func (r *Model) SetSize(w, h int) {
	r.width, r.height = w, h
	r.list.SetSize(r.listWidth(), h-3-min(len(r.jobs), 3))
	r.input.Width = max(w-24, 10)
}

func (r *Model) listWidth() int {
	if r.width >= 100 {
		return r.width - components.DetailWidth - 1
	}
	return r.width
}

func (r *Model) Typing() bool { return r.prompt != "" || r.list.Filtering() }

func (r *Model) InputEmpty() bool {
	if r.prompt != "" {
		return r.input.Value() == ""
	}
	return r.list.InputEmpty()
}

// TakesTab: inside a table, tab and shift+tab move through its tabs.
func (r *Model) TakesTab() bool { return r.table != "" }

func (r *Model) ShortHelp() []key.Binding {
	if r.table == "" {
		return []key.Binding{r.keys.Open, r.keys.Refresh, r.list.Keys.Filter}
	}
	return []key.Binding{r.keys.NextTab, r.keys.Import, r.keys.Train, r.keys.Ask, r.keys.Back}
}

func (r *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{r.keys.Open, r.keys.Back, r.keys.NextTab, r.keys.Refresh},
		{r.keys.Import, r.keys.Train, r.keys.Ask}, {r.list.Keys.Up, r.list.Keys.Filter, r.list.Keys.ClearFilter}}
}

type recommRowsMsg struct {
	gen     int
	reset   bool
	rows    []components.Row
	details map[string]string
	more    bool
	after   string
	err     error
}

func (m recommRowsMsg) Failed() error { return m.err }

type recommDetailMsg struct {
	key, text string
	err       error
}

func (m recommDetailMsg) Failed() error { return m.err }

type jobStartedMsg struct {
	job *recommJob
	err error
}

func (m jobStartedMsg) Failed() error { return m.err }

type jobPollMsg struct{ job *recommJob }

type jobStatusMsg struct {
	job             *recommJob
	status, message string
	err             error
}

func (m jobStatusMsg) Failed() error { return m.err }

type recommendedMsg struct {
	query  string
	engine [2]string
	res    [2][]client.Recommendation
	errs   [2]error
}

func pretty(v any) string {
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// load fetches the rows of the current view (tables, or the table's tab).
func (r *Model) load(reset bool) tea.Cmd {
	if r.table != "" && r.tab == tabRecommend {
		return nil
	}
	r.loading = true
	if reset {
		r.gen++
		r.after = ""
	}
	rc, table, tab, after, gen := r.ctx.Client.Recomm, r.table, r.tab, r.after, r.gen
	return r.ctx.Task("loading recommendations data", func(ctx context.Context) tea.Msg {
		m := recommRowsMsg{gen: gen, reset: reset, details: map[string]string{}}
		switch {
		case table == "":
			ids, err := rc.Tables(ctx)
			m.err = err
			sort.Strings(ids)
			for _, id := range ids {
				m.rows = append(m.rows, components.Row{Key: id, Text: id})
			}
		case tab == tabAttributes:
			attrs, err := rc.Attributes(ctx, table)
			m.err = err
			for _, a := range attrs {
				text := fmt.Sprintf("%-20s %-12s", a.AttributeID, a.Type)
				if a.Indexed {
					text += " indexed"
				}
				m.rows = append(m.rows, components.Row{Key: a.AttributeID, Text: text})
				m.details[a.AttributeID] = pretty(a)
			}
		case tab == tabInteractions:
			defs, err := rc.Interactions(ctx, table)
			m.err = err
			for _, d := range defs {
				m.rows = append(m.rows, components.Row{Key: d.InteractionID, Text: fmt.Sprintf("%-20s %-12s weight %g", d.InteractionID, d.Type, d.Weight)})
				m.details[d.InteractionID] = pretty(d)
			}
		default:
			q := client.ListQuery{Limit: recommPage, AfterID: after}
			var ids []string
			var err error
			if tab == tabItems {
				ids, err = rc.Items(ctx, table, q)
			} else {
				ids, err = rc.Users(ctx, q)
			}
			m.err = err
			for _, id := range ids {
				m.rows = append(m.rows, components.Row{Key: id, Text: id})
			}
			m.more = len(ids) == recommPage
			if len(ids) > 0 {
				m.after = ids[len(ids)-1]
			}
		}
		return m
	})
}

func (r *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case recommRowsMsg:
		if msg.gen != r.gen {
			return r, nil
		}
		r.loading = false
		if msg.err != nil {
			r.errText = common.Describe(msg.err)
			return r, nil
		}
		r.errText, r.more, r.after = "", msg.more, msg.after
		for k, v := range msg.details {
			r.details[k] = v
		}
		if msg.reset {
			r.list.SetRows(msg.rows)
		} else {
			r.list.AppendRows(msg.rows)
		}
		return r, r.fetchDetail()
	case recommDetailMsg:
		if msg.err != nil {
			r.details[msg.key] = common.Describe(msg.err)
		} else {
			r.details[msg.key] = msg.text
		}
		return r, nil
	case jobStartedMsg:
		if msg.err != nil {
			return r, common.ToastErr(common.Describe(msg.err))
		}
		r.jobs = append(r.jobs, msg.job)
		r.SetSize(r.width, r.height)
		return r, r.poll(msg.job)
	case jobPollMsg:
		return r, r.status(msg.job)
	case jobStatusMsg:
		j := msg.job
		if msg.err != nil {
			j.status, j.message = "unknown", common.Describe(msg.err)
			return r, nil
		}
		j.status, j.message = msg.status, msg.message
		if client.StatusEnded(j.status) {
			text := fmt.Sprintf("%s %s", j.label, strings.ReplaceAll(j.status, "_", " "))
			if j.message != "" {
				text += ": " + j.message
			}
			return r, tea.Batch(func() tea.Msg { return common.ToastMsg{Text: text, Err: j.status == client.StatusError} }, r.load(true))
		}
		return r, r.poll(j)
	case recommendedMsg:
		if msg.query != r.query {
			return r, nil
		}
		r.results, r.engines = msg.res, msg.engine
		for i, err := range msg.errs {
			r.resErr[i] = ""
			if err != nil {
				r.resErr[i] = common.Describe(err)
			}
		}
		return r, nil
	case tea.KeyMsg:
		return r, r.key(msg)
	}
	return r, nil
}

func (r *Model) poll(j *recommJob) tea.Cmd {
	return tea.Tick(400*time.Millisecond, func(time.Time) tea.Msg { return jobPollMsg{job: j} })
}

func (r *Model) status(j *recommJob) tea.Cmd {
	rc := r.ctx.Client.Recomm
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(r.ctx.Context, 30*time.Second)
		defer cancel()
		if j.training {
			s, err := rc.TrainStatus(ctx, j.table, j.id)
			return jobStatusMsg{job: j, status: s.Status, message: s.Message, err: err}
		}
		s, err := rc.ImportStatus(ctx, j.kind, j.table, j.id)
		msg := s.Message
		if n := len(s.NotAdded()); n > 0 {
			msg = fmt.Sprintf("%d not added (first: %s %s)", n, s.NotAdded()[0].ErrorID, s.NotAdded()[0].Message)
		}
		return jobStatusMsg{job: j, status: s.Status, message: msg, err: err}
	}
}

func (r *Model) key(msg tea.KeyMsg) tea.Cmd {
	if r.prompt != "" {
		switch msg.String() {
		case "esc":
			r.prompt = ""
			r.input.Blur()
			return nil
		case "enter":
			kind, v := r.prompt, strings.TrimSpace(r.input.Value())
			r.prompt = ""
			r.input.Blur()
			return r.submit(kind, v)
		}
		return r.input.Update(msg)
	}
	if used, cmd := r.list.Update(msg); used {
		if r.list.AtEnd() && r.more && !r.loading {
			return tea.Batch(cmd, r.load(false))
		}
		return tea.Batch(cmd, r.fetchDetail())
	}
	switch {
	case key.Matches(msg, r.keys.Refresh):
		return r.load(true)
	case r.table == "" && key.Matches(msg, r.keys.Open):
		if cur := r.list.Current(); cur != nil {
			r.table, r.tab = cur.Key, tabAttributes
			r.reset()
			return r.load(true)
		}
	case r.table == "" && key.Matches(msg, common.Keys.Back):
		return common.GoBack
	case r.table == "":
		return nil
	case key.Matches(msg, r.keys.Back):
		r.table = ""
		r.reset()
		return r.load(true)
	case key.Matches(msg, r.keys.NextTab), key.Matches(msg, r.keys.PrevTab):
		step := recommTab(1)
		if key.Matches(msg, r.keys.PrevTab) {
			step = recommTab(len(recommTabNames) - 1)
		}
		r.tab = (r.tab + step) % recommTab(len(recommTabNames))
		r.reset()
		return r.load(true)
	case key.Matches(msg, r.keys.Import):
		return r.ask("import", "import: ", "items storage://FOLDER/FILE.csv  (kind: items, users or interactions; add json for JSON)")
	case key.Matches(msg, r.keys.Train):
		return r.ask("train", "train engine: ", "hybrid, content_based, fm, isvd or popular")
	case key.Matches(msg, r.keys.Ask):
		r.tab = tabRecommend
		r.reset()
		return r.ask("recommend", "recommend: ", "user=ID or item=ID, want=items|users, engine=E, vs=E2, filter=RSQL, diversity=0.3")
	}
	return nil
}

func (r *Model) reset() {
	defer r.setEmpty()
	r.list.Reset()
	r.more, r.after, r.errText = false, "", ""
	r.gen++
}

func (r *Model) ask(kind, prompt, placeholder string) tea.Cmd {
	r.prompt = kind
	r.input.Prompt = prompt
	r.input.Placeholder = placeholder
	r.input.SetValue("")
	return r.input.Focus()
}

// fetchDetail loads the values of the item or user under the cursor.
func (r *Model) fetchDetail() tea.Cmd {
	cur := r.list.Current()
	if r.table == "" || cur == nil || (r.tab != tabItems && r.tab != tabUsers) || r.details[cur.Key] != "" {
		return nil
	}
	rc, table, id, tab := r.ctx.Client.Recomm, r.table, cur.Key, r.tab
	r.details[id] = "…"
	return r.ctx.Task("loading "+id, func(ctx context.Context) tea.Msg {
		var v map[string]any
		var err error
		if tab == tabItems {
			v, err = rc.Item(ctx, table, id)
		} else {
			v, err = rc.User(ctx, id)
		}
		return recommDetailMsg{key: id, text: pretty(v), err: err}
	})
}

func (r *Model) submit(kind, v string) tea.Cmd {
	if v == "" {
		return nil
	}
	rc, table := r.ctx.Client.Recomm, r.table
	switch kind {
	case "import":
		f := strings.Fields(v)
		if len(f) < 2 {
			return common.ToastErr("import needs a kind and a URL, e.g. items storage://in/items.csv")
		}
		var k client.ImportKind
		switch f[0] {
		case "items":
			k = client.ImportItems
		case "users":
			k = client.ImportUsers
		case "interactions":
			k = client.ImportInteractions
		default:
			return common.ToastErr("import kind " + f[0] + ": use items, users or interactions")
		}
		format := client.FormatCSV
		if len(f) > 2 && f[2] == "json" || strings.HasSuffix(f[1], ".json") {
			format = client.FormatJSON
		}
		req := client.ImportRequest{URL: f[1], Format: format}
		return r.ctx.Task("starting import", func(ctx context.Context) tea.Msg {
			var job client.ImportJob
			var err error
			switch k {
			case client.ImportItems:
				job, err = rc.ImportItems(ctx, table, req)
			case client.ImportUsers:
				job, err = rc.ImportUsers(ctx, req)
			default:
				job, err = rc.ImportInteractions(ctx, table, req)
			}
			return jobStartedMsg{job: &recommJob{label: "import of " + f[0], table: table, id: job.RequestID, kind: k, status: job.Status}, err: err}
		})
	case "train":
		engine := v
		return r.ctx.Task("starting training", func(ctx context.Context) tea.Msg {
			job, err := rc.Train(ctx, table, client.TrainRequest{Engine: engine})
			return jobStartedMsg{job: &recommJob{label: engine + " training", table: table, id: job.RequestID, training: true, status: job.Status}, err: err}
		})
	}
	// recommend: key=value words.
	args := map[string]string{"want": "items"}
	for _, w := range strings.Fields(v) {
		k, val, ok := strings.Cut(w, "=")
		if !ok {
			return common.ToastErr(fmt.Sprintf("%q: write key=value", w))
		}
		if k == "filter" {
			// RSQL has its own "==": everything after the first "=" is the filter.
			val = strings.TrimPrefix(w, "filter=")
		}
		args[k] = val
	}
	div := 0.0
	if s := args["diversity"]; s != "" {
		d, err := strconv.ParseFloat(s, 64)
		if err != nil || d < 0 || d > 1 {
			return common.ToastErr("diversity is a number from 0 to 1")
		}
		div = d
	}
	if (args["user"] == "") == (args["item"] == "") || (args["want"] != "items" && args["want"] != "users") {
		return common.ToastErr("give user=ID or item=ID (one of them), and want=items or want=users")
	}
	r.query = v
	engines := [2]string{args["engine"], args["vs"]}
	query := v
	return r.ctx.Task("recommending", func(ctx context.Context) tea.Msg {
		m := recommendedMsg{query: query, engine: engines}
		for i, e := range engines {
			if i == 1 && e == "" {
				break
			}
			opt := client.RecommendOptions{Engine: e, Filter: args["filter"], Diversity: div, Limit: 20}
			switch {
			case args["user"] != "" && args["want"] == "items":
				m.res[i], m.errs[i] = rc.ItemsForUser(ctx, table, args["user"], opt)
			case args["user"] != "":
				m.res[i], m.errs[i] = rc.UsersForUser(ctx, table, args["user"], opt)
			case args["want"] == "items":
				m.res[i], m.errs[i] = rc.ItemsForItem(ctx, table, args["item"], opt)
			default:
				m.res[i], m.errs[i] = rc.UsersForItem(ctx, table, args["item"], opt)
			}
		}
		return m
	})
}

func (r *Model) View() string {
	t := r.ctx.Theme
	var out []string
	if r.table == "" {
		out = append(out, t.Header.Render(common.AnsiFit(fmt.Sprintf("%d tables", r.list.Len()), r.width)))
	} else {
		var tabs []string
		for i, n := range recommTabNames {
			if recommTab(i) == r.tab {
				tabs = append(tabs, t.Cursor.Render("["+n+"]"))
			} else {
				tabs = append(tabs, " "+n+" ")
			}
		}
		out = append(out, common.AnsiFit(t.Header.Render(r.table)+"  "+strings.Join(tabs, ""), r.width))
	}
	switch {
	case r.errText != "":
		out = append(out, t.Error.Render(common.AnsiFit(r.errText, r.width)), t.Muted.Render("press r to try again"))
	case r.table != "" && r.tab == tabRecommend:
		out = append(out, r.resultsView())
	default:
		body := r.list.View()
		if r.width >= 100 {
			detail := ""
			if cur := r.list.Current(); cur != nil {
				detail = r.details[cur.Key]
			}
			var lines []string
			for _, l := range strings.Split(detail, "\n") {
				lines = append(lines, t.Border.Render("│")+" "+common.AnsiFit(common.Clean(l), components.DetailWidth-2))
			}
			body = lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(r.listWidth()).Render(body), " ", strings.Join(lines, "\n"))
		}
		out = append(out, body)
	}
	for _, j := range r.jobs[max(len(r.jobs)-3, 0):] {
		line := fmt.Sprintf("%s %s: %s", j.label, j.id, strings.ReplaceAll(j.status, "_", " "))
		if j.message != "" {
			line += " · " + j.message
		}
		out = append(out, t.Muted.Render(common.AnsiFit(common.OneLine(line), r.width)))
	}
	if r.prompt != "" {
		out = append(out, r.input.View())
	}
	return strings.Join(out, "\n")
}

// resultsView shows one engine's answer, or two side by side.
func (r *Model) resultsView() string {
	t := r.ctx.Theme
	if r.query == "" {
		return t.Muted.Render("press a, then e.g.  user=u1 want=items engine=hybrid vs=popular diversity=0.2")
	}
	cols := 1
	if r.engines[1] != "" {
		cols = 2
	}
	colW := max(r.width/cols-2, 16)
	var columns []string
	for i := range cols {
		name := r.engines[i]
		if name == "" {
			name = "table's engine"
		}
		lines := []string{t.Header.Render(common.AnsiFit(name, colW))}
		if r.resErr[i] != "" {
			lines = append(lines, common.Wrap(t.Error.Render(r.resErr[i]), colW)...)
		}
		for n, rec := range r.results[i] {
			if n >= r.height-3 {
				break
			}
			lines = append(lines, common.Fit(fmt.Sprintf("%2d. %s", n+1, common.OneLine(rec.ID())), colW-16)+" "+components.ProgressBar(rec.Match/100, 8)+fmt.Sprintf(" %3.0f", rec.Match))
		}
		if len(r.results[i]) == 0 && r.resErr[i] == "" {
			lines = append(lines, t.Muted.Render("(nothing recommended)"))
		}
		columns = append(columns, lipgloss.NewStyle().Width(colW+2).Render(strings.Join(lines, "\n")))
	}
	return t.Muted.Render(common.AnsiFit("for "+r.query, r.width)) + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, columns...)
}
