package items

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"math"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
)

type itemDomain struct{ path, title string }

// itemDomains are the item paths the browser offers, in tab order.
var itemDomains = []itemDomain{
	{"movies", "Movies"}, {"restaurants", "Restaurants"}, {"news", "News: for you"},
	{"news/category/2091", "News: local"}, {"news/category/2092", "News: popular"},
	{"weather", "Weather"}, {"breakdowns", "Breakdowns"}, {"sport/match", "Matches"},
	{"sport/soccer/ranking", "Soccer table"}, {"motor", "Motor"}, {"golf", "Golf"},
	{"tennis", "Tennis"}, {"biking", "Cycling"}, {"nearevents", "Events near you"}, {"tv", "TV"},
}

const itemsPageSize = 20

type itemsKeys struct {
	NextDomain, PrevDomain, Refresh, More, City, Detail key.Binding
}

// items browses every domain path: one list per domain with a detail
// pane, the next page loading as the cursor nears the end (news pages
// through /more), and the weather drawn as a picture.
type Model struct {
	ctx     *common.Context
	keys    itemsKeys
	domains []itemDomain // itemDomains with the user's news categories
	domain  int
	list    components.RowList
	raw     map[string]json.RawMessage // row key -> element
	page    int
	more    bool // another page may exist
	loading bool
	lat     float64
	lon     float64
	weather *client.WeatherItem
	errText string
	// detailOpen shows the current element's fields in place of the list,
	// where the terminal is too narrow for both side by side.
	detailOpen bool
	gen        int // bumps on domain change so late pages of the old one are dropped
	width      int
	height     int
}

func New(pc *common.Context) *Model {
	return &Model{ctx: pc, domains: append([]itemDomain(nil), itemDomains...), list: components.NewRowList(pc), raw: map[string]json.RawMessage{}, keys: itemsKeys{
		NextDomain: key.NewBinding(key.WithKeys("tab", "]"), key.WithHelp("tab", "next domain")),
		PrevDomain: key.NewBinding(key.WithKeys("shift+tab", "["), key.WithHelp("shift+tab", "previous")),
		Refresh:    common.Keys.Refresh,
		More:       key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "more")),
		City:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "change city")),
		Detail:     common.WithHelp(common.Keys.Open, "enter", "details"),
	}}
}

func (it *Model) Init() tea.Cmd {
	if it.page > 0 || it.loading {
		return nil
	}
	c := it.ctx.Client
	categories := it.ctx.Task("loading news categories", func(ctx context.Context) tea.Msg {
		l, err := c.Items.List(ctx, "news/categories", 0, 0)
		if err != nil {
			return newsCategoriesMsg{err: err}
		}
		var cats []client.NewsCategory
		for i := range l.List {
			var nc client.NewsCategory
			if l.Decode(i, &nc) == nil && nc.ID != 0 {
				cats = append(cats, nc)
			}
		}
		return newsCategoriesMsg{cats: cats}
	})
	return tea.Batch(it.load(true), categories)
}

// newsCategoriesMsg carries the user's news categories (beyond the three
// fixed ones, they follow the user's interests).
type newsCategoriesMsg struct {
	cats []client.NewsCategory
	err  error
}

func (m newsCategoriesMsg) Failed() error { return m.err }

// withCategories rebuilds the domain list with one entry per news
// category, after the general news entry, keeping the current domain.
func (it *Model) withCategories(cats []client.NewsCategory) {
	current := it.domains[it.domain].path
	var out []itemDomain
	for _, d := range itemDomains {
		if strings.HasPrefix(d.path, "news/category/") {
			continue
		}
		out = append(out, d)
		if d.path == "news" {
			for _, c := range cats {
				out = append(out, itemDomain{path: c.Path(), title: "News: " + common.OneLine(c.Name)})
			}
		}
	}
	it.domains = out
	for i, d := range out {
		if d.path == current {
			it.domain = i
		}
	}
}

func (it *Model) SetSize(w, h int) {
	it.width, it.height = w, h
	it.list.SetSize(it.listWidth(), h-2)
}

func (it *Model) listWidth() int {
	if it.width >= 100 {
		return it.width - components.DetailWidth - 1
	}
	return it.width
}

func (it *Model) Typing() bool { return it.list.Filtering() }

func (it *Model) InputEmpty() bool { return it.list.InputEmpty() }

// TakesTab: tab and shift+tab move through the domains.
func (it *Model) TakesTab() bool { return true }

func (it *Model) ShortHelp() []key.Binding {
	if it.detailOpen {
		return []key.Binding{common.WithHelp(common.Keys.Back, "esc", "back to the list")}
	}
	return []key.Binding{it.keys.NextDomain, it.keys.Detail, it.keys.City, it.list.Keys.Filter}
}

func (it *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{{it.keys.NextDomain, it.keys.PrevDomain, it.keys.Detail, it.keys.City, it.keys.Refresh, it.keys.More},
		{it.list.Keys.Up, it.list.Keys.Home, it.list.Keys.PageUp, it.list.Keys.Filter, it.list.Keys.ClearFilter}}
}

type itemsPageMsg struct {
	gen   int
	page  int
	reset bool
	list  *client.ItemList
	err   error
}

func (m itemsPageMsg) Failed() error { return m.err }

func isNews(path string) bool { return strings.HasPrefix(path, "news") }

// load fetches the first page (reset) or the next one.
func (it *Model) load(reset bool) tea.Cmd {
	if it.loading {
		return nil
	}
	it.loading = true
	path := it.domains[it.domain].path
	page := it.page + 1
	if reset {
		page = 1
	}
	it.list.SetEmpty(fmt.Sprintf("Nothing in %s near %s: press c to change city, r to load again, tab for the next domain.",
		it.domains[it.domain].title, common.PositionName(it.ctx.Client)))
	c, gen := it.ctx.Client, it.gen
	return it.ctx.Task("loading "+strings.ToLower(it.domains[it.domain].title), func(ctx context.Context) tea.Msg {
		var l *client.ItemList
		var err error
		if isNews(path) && page > 1 {
			l, err = c.Items.More(ctx, path)
		} else {
			l, err = c.Items.List(ctx, path, page, itemsPageSize)
		}
		return itemsPageMsg{gen: gen, page: page, reset: reset, list: l, err: err}
	})
}

func (it *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case newsCategoriesMsg:
		if msg.err == nil && len(msg.cats) > 0 {
			it.withCategories(msg.cats)
		}
		return it, nil
	case itemsPageMsg:
		if msg.gen != it.gen {
			return it, nil
		}
		it.loading = false
		if msg.err != nil {
			it.errText = common.Describe(msg.err)
			return it, nil
		}
		it.errText = ""
		it.received(msg)
		return it, nil
	case tea.KeyMsg:
		if it.detailOpen {
			if key.Matches(msg, common.Keys.Back) || key.Matches(msg, it.keys.Detail) {
				it.detailOpen = false
			}
			return it, nil
		}
		if used, cmd := it.list.Update(msg); used {
			if it.list.AtEnd() && it.more && !it.list.Filtering() {
				return it, tea.Batch(cmd, it.load(false))
			}
			return it, cmd
		}
		switch {
		case key.Matches(msg, it.keys.NextDomain):
			return it, it.switchDomain(it.domain + 1)
		case key.Matches(msg, it.keys.PrevDomain):
			return it, it.switchDomain(it.domain - 1)
		case key.Matches(msg, it.keys.City):
			next := (common.CityIndex(it.ctx.Client.RequestInfo()) + 1) % len(common.Cities())
			common.SetCity(it.ctx.Client, next)
			slug := common.Cities()[next].Slug
			return it, tea.Batch(it.switchDomain(it.domain), func() tea.Msg { return common.CityChangedMsg{Slug: slug} })
		case key.Matches(msg, it.keys.Refresh):
			it.loading = false
			it.gen++
			return it, it.load(true)
		case key.Matches(msg, it.keys.More):
			if it.more {
				return it, it.load(false)
			}
		case key.Matches(msg, it.keys.Detail):
			if it.list.Current() != nil && it.width < 100 {
				it.detailOpen = true
			}
		case key.Matches(msg, common.Keys.Back):
			return it, common.GoBack
		}
	}
	return it, nil
}

func (it *Model) switchDomain(d int) tea.Cmd {
	n := len(it.domains)
	it.domain = (d%n + n) % n
	it.gen++
	it.loading, it.page, it.weather, it.errText = false, 0, nil, ""
	it.raw = map[string]json.RawMessage{}
	it.list.Reset()
	return it.load(true)
}

func (it *Model) received(m itemsPageMsg) {
	l := m.list
	it.page = m.page
	it.lat, it.lon = l.Criteria.Lat, l.Criteria.Lon
	it.more = len(l.List) > 0 && (isNews(it.domains[it.domain].path) || len(l.List) >= itemsPageSize)
	if it.domains[it.domain].path == "weather" {
		it.more = false
		if len(l.List) > 0 {
			var w client.WeatherItem
			if err := l.Decode(0, &w); err == nil {
				it.weather = &w
			} else {
				it.errText = "weather: " + err.Error()
			}
		}
		return
	}
	if m.reset {
		it.raw = map[string]json.RawMessage{}
	}
	var rows []components.Row
	for i, raw := range l.List {
		var base client.Item
		json.Unmarshal(raw, &base)
		k := base.DataID
		if k == "" {
			k = base.UUID
		}
		if k == "" || it.raw[k] != nil {
			k = fmt.Sprintf("%d:%d", m.page, i)
		}
		it.raw[k] = raw
		rows = append(rows, components.Row{Key: k, Text: it.rowText(raw, base)})
	}
	if m.reset {
		it.list.SetRows(rows)
	} else {
		it.list.AppendRows(rows)
	}
}

// rowText is the one-line summary of an element, by domain.
func (it *Model) rowText(raw json.RawMessage, base client.Item) string {
	switch it.domains[it.domain].path {
	case "movies":
		var m client.MovieItem
		if json.Unmarshal(raw, &m) == nil && m.Movie.Title != "" {
			return fmt.Sprintf("%s · %s · %s", common.OneLine(m.Movie.Title), common.OneLine(m.Theater.Name), common.OneLine(m.Theater.Schedule))
		}
	case "restaurants":
		var r client.RestaurantItem
		if json.Unmarshal(raw, &r) == nil && r.Name != "" {
			open := "closed"
			if r.Open {
				open = "open now"
			}
			return fmt.Sprintf("%s · %s · %s", common.OneLine(r.Name), it.distance(r.Latitude, r.Longitude), open)
		}
	}
	if isNews(it.domains[it.domain].path) {
		var n client.NewsItem
		if json.Unmarshal(raw, &n) == nil && n.Title != "" {
			return fmt.Sprintf("%s · %s", common.OneLine(n.Title), common.OneLine(n.Source))
		}
	}
	text := common.OneLine(base.ItemTitle)
	if base.ItemSubTitle != "" {
		text += " · " + common.OneLine(base.ItemSubTitle)
	}
	if text == "" {
		text = common.OneLine(string(raw))
	}
	return text
}

// distance from the request position, for restaurants (strings on the wire).
func (it *Model) distance(latS, lonS string) string {
	lat, err1 := strconv.ParseFloat(latS, 64)
	lon, err2 := strconv.ParseFloat(lonS, 64)
	if err1 != nil || err2 != nil || (it.lat == 0 && it.lon == 0) {
		return "distance unknown"
	}
	km := haversineKm(it.lat, it.lon, lat, lon)
	if km < 1 {
		return fmt.Sprintf("%d m", int(km*1000+0.5))
	}
	return fmt.Sprintf("%.1f km", km)
}

func haversineKm(lat1, lon1, lat2, lon2 float64) float64 {
	const r = 6371.0
	rad := math.Pi / 180
	dLat, dLon := (lat2-lat1)*rad, (lon2-lon1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * r * math.Asin(math.Sqrt(a))
}

func (it *Model) View() string {
	t := it.ctx.Theme
	d := it.domains[it.domain]
	next := it.domains[(it.domain+1)%len(it.domains)].title
	head := fmt.Sprintf("‹ %s › %d of %d (tab: %s) · %s", d.title, it.domain+1, len(it.domains), next, common.PositionName(it.ctx.Client))
	if it.weather == nil && d.path != "weather" {
		more := ""
		if it.more {
			more = "+" // another page loads as the cursor nears the end
		}
		head += fmt.Sprintf(" · %d%s items", it.list.Len(), more)
	}
	if it.loading {
		head += "  loading…"
	}
	out := []string{t.Header.Render(common.AnsiFit(head, it.width))}
	switch {
	case it.errText != "":
		out = append(out, t.Error.Render(common.AnsiFit(it.errText, it.width)), t.Muted.Render("press r to try again"))
	case d.path == "weather" && it.weather != nil:
		out = append(out, components.WeatherPicture(it.weather, it.width, it.height-1, t))
	case it.detailOpen && it.list.Current() != nil:
		out = append(out, it.detail(it.width))
	default:
		body := it.list.View()
		if it.width >= 100 {
			body = lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(it.listWidth()).Render(body), " ", it.detail(components.DetailWidth))
		}
		out = append(out, body)
	}
	return strings.Join(out, "\n")
}

// detail shows the fields of the current element, by domain.
func (it *Model) detail(width int) string {
	t := it.ctx.Theme
	cur := it.list.Current()
	if cur == nil {
		return ""
	}
	raw := it.raw[cur.Key]
	var base client.Item
	json.Unmarshal(raw, &base)
	w := width - 2
	var lines []string
	add := func(label, v string) {
		if v = common.OneLine(v); v != "" {
			lines = append(lines, common.Wrap(label+v, w)...)
		}
	}
	add("", base.ItemTitle)
	add("", base.ItemSubTitle)
	switch path := it.domains[it.domain].path; {
	case path == "movies":
		var m client.MovieItem
		json.Unmarshal(raw, &m)
		add("rating  ", strconv.FormatFloat(m.Movie.AverageRating, 'f', 1, 64))
		add("rated   ", m.Movie.Certification.Name)
		add("genres  ", strings.Join(m.Movie.Genres, ", "))
		add("cinema  ", m.Theater.Name)
		add("address ", m.Theater.Address)
		add("times   ", m.Theater.Schedule)
	case path == "restaurants":
		var r client.RestaurantItem
		json.Unmarshal(raw, &r)
		add("distance ", it.distance(r.Latitude, r.Longitude))
		add("open now ", map[bool]string{true: "yes", false: "no"}[r.Open])
		add("hours    ", r.OpeningHours)
		add("rating   ", r.Rating)
		add("price    ", r.Price)
		add("address  ", r.Address)
		add("cuisine  ", strings.Join(r.Categories, ", "))
	case isNews(path):
		var n client.NewsItem
		json.Unmarshal(raw, &n)
		add("", n.Source+" "+n.Date)
		add("", n.Text)
		add("", n.URL)
		add("tags ", strings.Join(n.Tags, ", "))
	}
	add("", base.ItemText)
	if len(lines) > it.height-2 {
		lines = lines[:max(it.height-2, 1)]
	}
	return t.Border.Render("│") + " " + strings.Join(lines, "\n"+t.Border.Render("│")+" ")
}
