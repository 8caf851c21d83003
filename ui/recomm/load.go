package recomm

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
)

func lipglossWidth(s string) int { return lipgloss.Width(s) }

type rowsMsg struct {
	gen     int
	reset   bool
	rows    []components.Row
	details map[string][]string
	titles  map[string]string
	more    bool
	after   string
	err     error
}

func (m rowsMsg) Failed() error { return m.err }

type tableInfoMsg struct {
	table string
	info  tableInfo
	err   error
}

func (m tableInfoMsg) Failed() error { return m.err }

type detailMsg struct {
	key    string
	lines  []string
	titles map[string]string
	err    error
}

func (m detailMsg) Failed() error { return m.err }

type savedMsg struct {
	what string
	err  error
}

func (m savedMsg) Failed() error { return m.err }

type pathCompletedMsg struct{ typed, value string }

// loadInfo reads the open table's display attribute, engine and the interaction type ratings
// are recorded as.
func (r *Model) loadInfo() tea.Cmd {
	rc, table := r.ctx.Client.Recomm, r.table
	return r.ctx.Task("reading "+table, func(ctx context.Context) tea.Msg {
		t, err := rc.Table(ctx, table, false)
		if err != nil {
			return tableInfoMsg{table: table, err: err}
		}
		defs, err := rc.Interactions(ctx, table)
		info := tableInfo{display: t.DisplayAttribute, engine: t.Engines[client.SlotDefault], loaded: true}
		if info.engine == "" {
			info.engine = t.Engine
		}
		info.rating = ratingType(defs)
		return tableInfoMsg{table: table, info: info, err: err}
	})
}

// ratingType picks the interaction type a rating on screen is recorded as: one named rating,
// else the first with a range of values, else the first.
func ratingType(defs []client.Interaction) *client.Interaction {
	for i := range defs {
		if defs[i].InteractionID == "rating" {
			return &defs[i]
		}
	}
	for i := range defs {
		if defs[i].Type == client.InteractionContinuous || defs[i].Type == client.InteractionCategorical {
			return &defs[i]
		}
	}
	if len(defs) > 0 {
		return &defs[0]
	}
	return nil
}

// load fetches the rows of the current view (tables, or the table's list tabs).
func (r *Model) load(reset bool) tea.Cmd {
	if r.table != "" && (r.tab == tabForYou || r.tab == tabCompare) {
		return nil
	}
	r.loading = true
	if reset {
		r.gen++
		r.after = ""
	}
	rc, table, tab, after, gen := r.ctx.Client.Recomm, r.table, r.tab, r.after, r.gen
	q := client.ListQuery{Limit: recommPage, AfterID: after, Search: r.search, Filter: r.filter}
	return r.ctx.Task("loading recommendations data", func(ctx context.Context) tea.Msg {
		m := rowsMsg{gen: gen, reset: reset, details: map[string][]string{}, titles: map[string]string{}}
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
			t, terr := rc.Table(ctx, table, false)
			m.err = firstErr(err, terr)
			for _, a := range attrs {
				text := fmt.Sprintf("%-20s %-12s", a.AttributeID, a.Type)
				if a.Indexed {
					text += " indexed"
				}
				if a.AttributeID == t.DisplayAttribute {
					text += " · names the items"
				}
				m.rows = append(m.rows, components.Row{Key: a.AttributeID, Text: text})
				d := [][2]string{{"attribute", a.AttributeID}, {"type", a.Type}, {"indexed", strconv.FormatBool(a.Indexed)}}
				if len(a.Values) > 0 {
					d = append(d, [2]string{"values", strings.Join(a.Values, ", ")})
				}
				m.details[a.AttributeID] = pairs(d)
			}
		case tab == tabInteractions:
			defs, err := rc.Interactions(ctx, table)
			m.err = err
			for _, d := range defs {
				m.rows = append(m.rows, components.Row{Key: d.InteractionID, Text: fmt.Sprintf("%-20s %-12s weight %g", d.InteractionID, d.Type, d.Weight)})
				p := [][2]string{{"interaction", d.InteractionID}, {"type", d.Type}, {"weight", fmt.Sprint(d.Weight)},
					{"cumulative", strconv.FormatBool(d.Cumulative)}}
				if d.MinValue != nil && d.MaxValue != nil {
					p = append(p, [2]string{"values", bound(*d.MinValue) + " to " + bound(*d.MaxValue)})
				}
				m.details[d.InteractionID] = pairs(p)
			}
		default:
			var list []map[string]any
			var err error
			var display string
			if tab == tabItems {
				t, terr := rc.Table(ctx, table, false)
				if terr != nil {
					m.err = terr
					return m
				}
				display = t.DisplayAttribute
				var attrs []string
				if display != "" {
					attrs = []string{display}
				}
				list, err = rc.ItemsWithAttributes(ctx, table, q, attrs...)
			} else {
				list, err = rc.UsersWithAttributes(ctx, q)
			}
			m.err = err
			width := 0
			for _, e := range list {
				width = max(width, len(entityID(e)))
			}
			for _, e := range list {
				id := entityID(e)
				text := id
				if title := valueText(e[display]); display != "" && title != "" {
					m.titles[id] = title
					text = fmt.Sprintf("%*s  %s", width, id, title)
				}
				m.rows = append(m.rows, components.Row{Key: id, Text: text})
			}
			m.more = len(list) == recommPage
			if len(list) > 0 {
				m.after = entityID(list[len(list)-1])
			}
		}
		return m
	})
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func entityID(e map[string]any) string {
	for _, k := range []string{"itemId", "userId"} {
		if s, ok := e[k].(string); ok {
			return s
		}
	}
	return ""
}

// bound writes an interaction bound; open ends come as ±MaxFloat64.
func bound(v float64) string {
	if v > 1e300 {
		return "∞"
	}
	if v < -1e300 {
		return "-∞"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// valueText writes an attribute value as a person reads it: lists joined with commas, whole
// numbers without a decimal point.
func valueText(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case []any:
		parts := make([]string, 0, len(v))
		for _, x := range v {
			parts = append(parts, valueText(x))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// pairs lays out name/value pairs as a two-column table.
func pairs(p [][2]string) []string {
	w := 0
	for _, kv := range p {
		w = max(w, len(kv[0]))
	}
	out := make([]string, 0, len(p))
	for _, kv := range p {
		out = append(out, fmt.Sprintf("%-*s  %s", w, kv[0], common.OneLine(kv[1])))
	}
	return out
}

// attributeTable is an entity's attributes as a table, its id left out (it heads the pane).
func attributeTable(values map[string]any) []string {
	keys := make([]string, 0, len(values))
	for k := range values {
		if k != "itemId" && k != "userId" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	p := make([][2]string, 0, len(keys))
	for _, k := range keys {
		if s := valueText(values[k]); s != "" {
			p = append(p, [2]string{k, s})
		}
	}
	if len(p) == 0 {
		return []string{"(no attributes)"}
	}
	return pairs(p)
}

func (r *Model) gotRows(msg rowsMsg) tea.Cmd {
	if msg.gen != r.gen {
		return nil
	}
	r.loading = false
	if msg.err != nil {
		r.errText = common.Describe(msg.err)
		return nil
	}
	r.errText, r.more, r.after = "", msg.more, msg.after
	for k, v := range msg.details {
		r.details[k] = v
	}
	r.learnTitles(msg.titles)
	if msg.reset {
		r.list.SetRows(msg.rows)
	} else {
		r.list.AppendRows(msg.rows)
	}
	return r.fetchDetail()
}

// fetchDetail loads the detail pane of the item or user under the cursor: its attributes, and
// for an item "more like this".
func (r *Model) fetchDetail() tea.Cmd {
	cur := r.list.Current()
	if r.table == "" || cur == nil || (r.tab != tabItems && r.tab != tabUsers) || r.details[cur.Key] != nil {
		return nil
	}
	rc, table, id, tab, display := r.ctx.Client.Recomm, r.table, cur.Key, r.tab, r.info.display
	r.details[id] = []string{"…"}
	return r.ctx.Task("loading "+id, func(ctx context.Context) tea.Msg {
		m := detailMsg{key: id, titles: map[string]string{}}
		if tab == tabUsers {
			v, err := rc.User(ctx, id)
			m.lines, m.err = attributeTable(v), err
			m.lines = append(m.lines, "", "enter: history and recommendations")
			return m
		}
		v, err := rc.Item(ctx, table, id)
		if err != nil {
			m.err = err
			return m
		}
		if display == "" {
			// the table's info may still be on its way
			if t, err := rc.Table(ctx, table, false); err == nil {
				display = t.DisplayAttribute
			}
		}
		m.lines = attributeTable(v)
		opt := client.RecommendOptions{Limit: 8}
		if display != "" {
			opt.Attributes = []string{display}
		}
		like, err := rc.ItemsForItem(ctx, table, id, opt)
		m.lines = append(m.lines, "", "More like this")
		switch {
		case err != nil:
			m.lines = append(m.lines, common.Wrap(recommendHint(err, false), components.DetailWidth-2)...)
		case len(like) == 0:
			m.lines = append(m.lines, "  (nothing yet: the table needs interactions and a training)")
		}
		for _, rec := range like {
			title := rec.ItemID
			if display != "" {
				if t := valueText(rec.Values[display]); t != "" {
					title = t
					m.titles[rec.ItemID] = t
				}
			}
			m.lines = append(m.lines, fmt.Sprintf("%3.0f  %s", rec.Match, title))
		}
		return m
	})
}
