package recomm

import (
	"context"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
)

// personView is one person's history beside their recommendations: the For you tab (the person at
// the keyboard, who can rate what is recommended) or a user opened from the Users tab.
type personView struct {
	user    string
	mine    bool
	recs    components.RowList
	because map[string][]client.Reason
	history []client.HistoryEntry
	err     string
	histErr string
	loaded  bool
	gen     int
}

type personMsg struct {
	user    string
	gen     int
	recs    []client.Recommendation
	history []client.HistoryEntry
	titles  map[string]string
	err     error
	histErr error
}

func (m personMsg) Failed() error { return nil } // shown in place

type ratedMsg struct {
	item  string
	value string
	err   error
	// at is when the rating was sent: the refresh that follows reports the time to new
	// recommendations to the log of benchmarks and tests.
	at time.Time
}

func (m ratedMsg) Failed() error { return m.err }

// openPerson shows a person's history and recommendations.
func (r *Model) openPerson(user string, mine bool) tea.Cmd {
	p := &personView{user: user, mine: mine, recs: components.NewRowList(r.ctx), because: map[string][]client.Reason{}}
	if mine {
		p.recs.SetEmpty("Nothing to recommend yet: rate a few items on the Items tab (1-5, l to like), then come back.")
	} else {
		p.recs.SetEmpty("Nothing to recommend to this user yet.")
	}
	r.person = p
	r.SetSize(r.width, r.height)
	if mine && user == "" {
		return nil
	}
	if !mine {
		r.cmp.subject = user
	}
	return r.loadPerson(true)
}

func (r *Model) personListWidth() int {
	if r.width >= 100 {
		return r.width * 3 / 5
	}
	return r.width
}

func (r *Model) loadPerson(reset bool) tea.Cmd {
	p := r.person
	if p == nil || p.user == "" {
		return nil
	}
	p.gen++
	rc, table, user, gen, display := r.ctx.Client.Recomm, r.table, p.user, p.gen, r.info.display
	known := maps.Clone(r.titles)
	return r.ctx.Task("recommending for "+user, func(ctx context.Context) tea.Msg {
		m := personMsg{user: user, gen: gen, titles: map[string]string{}}
		if display == "" {
			// the table's info may still be on its way
			if t, err := rc.Table(ctx, table, false); err == nil {
				display = t.DisplayAttribute
			}
		}
		opt := client.RecommendOptions{Limit: 30, Explain: true}
		if display != "" {
			opt.Attributes = []string{display}
		}
		m.recs, m.err = rc.ItemsForUser(ctx, table, user, opt)
		m.history, m.histErr = rc.UserHistory(ctx, table, user, 30)
		for _, rec := range m.recs {
			if t := valueText(rec.Values[display]); t != "" {
				m.titles[rec.ItemID] = t
			}
		}
		var missing []string
		for _, h := range m.history {
			missing = append(missing, h.ItemID)
		}
		for _, rec := range m.recs {
			for _, b := range rec.Because {
				missing = append(missing, b.ItemID)
			}
		}
		if display != "" {
			fetched := 0
			for _, id := range missing {
				if known[id] != "" || m.titles[id] != "" || fetched >= 60 {
					continue
				}
				fetched++
				if v, err := rc.Item(ctx, table, id); err == nil {
					m.titles[id] = valueText(v[display])
				}
			}
		}
		return m
	})
}

func (r *Model) gotPerson(msg personMsg) tea.Cmd {
	p := r.person
	r.learnTitles(msg.titles)
	if p == nil || p.user != msg.user || p.gen != msg.gen {
		return nil
	}
	p.loaded, p.err, p.histErr = true, "", ""
	if msg.err != nil {
		p.err = r.explainRecommendError(msg.err)
	}
	if msg.histErr != nil && !client.IsCode(msg.histErr, "EntityNotFound") {
		p.histErr = common.Describe(msg.histErr)
	}
	p.history = msg.history
	rows := make([]components.Row, 0, len(msg.recs))
	for _, rec := range msg.recs {
		p.because[rec.ItemID] = rec.Because
		rows = append(rows, components.Row{Key: rec.ItemID,
			Text: fmt.Sprintf("%3.0f %s %s", rec.Match, components.ProgressBar(rec.Match/100, 5), r.title(rec.ItemID))})
	}
	p.recs.SetRows(rows)
	return nil
}

// explainRecommendError says what to do when a table cannot recommend yet.
func (r *Model) explainRecommendError(err error) string {
	return recommendHint(err, r.person != nil && r.person.mine)
}

// recommendHint words a refused recommendation as what to do next; mine is a request for the
// person at the keyboard.
func recommendHint(err error, mine bool) string {
	var api *client.APIError
	if ok := asAPI(err, &api); ok && api.Status == 404 {
		if strings.Contains(api.Description, "model") || strings.Contains(api.Description, "train") {
			return "This table's engine has no trained model yet: press t to train it."
		}
		if mine {
			return "You have no ratings in this table yet: rate a few items on the Items tab (1-5, l to like)."
		}
	}
	return common.Describe(err)
}

// engineNote says whether the table's engine learns a rating at once or needs a training.
func engineNote(engine string) string {
	switch engine {
	case client.EngineISVD:
		return "isvd learns each rating at once"
	case client.EngineContentBased:
		return "content_based reads your ratings at every request"
	case client.EngineHybrid, client.EngineFM:
		return engine + " takes your new ratings at once; t retrains it on everyone's"
	case client.EnginePopular:
		return "popular changes only with a training: t trains"
	case client.EngineEnsemble:
		return "the ensemble changes with its engines' trainings: t trains"
	}
	return "no engine is set for this table"
}

func (r *Model) personKey(msg tea.KeyMsg) tea.Cmd {
	p, k := r.person, r.keys
	if p == nil {
		return nil
	}
	if used, cmd := p.recs.Update(msg); used {
		return cmd
	}
	cur := p.recs.Current()
	switch {
	case key.Matches(msg, k.Refresh):
		return r.loadPerson(false)
	case key.Matches(msg, k.Back):
		if r.tab == tabUsers {
			r.person = nil
			return r.fetchDetail()
		}
		r.table, r.person = "", nil
		r.reset()
		return r.load(true)
	case key.Matches(msg, k.Rate), key.Matches(msg, k.Like):
		if !p.mine {
			return common.ToastErr("You rate as yourself: open the For you tab, or rate on the Items tab.")
		}
		if cur == nil {
			// The list is empty or still loading: say so rather than drop the key.
			return common.ToastErr("Nothing to rate yet: rate items on the Items tab first.")
		}
		return r.rate(cur.Key, msg.String())
	}
	return nil
}

// rate records the person's rating of an item as an interaction of the table's rating type.
func (r *Model) rate(item, pressed string) tea.Cmd {
	me := r.me()
	if me == "" {
		return common.ToastErr("hark does not know your user id on this platform yet: log out (alt+l) and sign in again to rate.")
	}
	def := r.info.rating
	if def == nil {
		if !r.info.loaded {
			return common.ToastErr("Still reading the table: try again in a moment.")
		}
		return common.ToastErr("This table has no interaction type to rate with: add one on the Interactions tab (n).")
	}
	var value *float64
	shown := pressed
	switch def.Type {
	case client.InteractionUnary:
		shown = "liked"
	case client.InteractionBinary:
		if pressed != "l" {
			return common.ToastErr(def.InteractionID + " is a like here (binary): press l.")
		}
		one := 1.0
		value, shown = &one, "liked"
	default:
		lo, hi := 1.0, 5.0
		if def.MinValue != nil {
			lo = *def.MinValue
		}
		if def.MaxValue != nil {
			hi = *def.MaxValue
		}
		v := hi
		if pressed != "l" {
			n, _ := strconv.Atoi(pressed)
			v = float64(n)
		}
		if v < lo || v > hi {
			return common.ToastErr(fmt.Sprintf("%s runs from %s to %s here.", def.InteractionID, bound(lo), bound(hi)))
		}
		value, shown = &v, bound(v)
	}
	rc, table, interaction := r.ctx.Client.Recomm, r.table, def.InteractionID
	return r.ctx.Task("rating", func(ctx context.Context) tea.Msg {
		at := time.Now()
		if _, err := rc.User(ctx, me); client.IsCode(err, "EntityNotFound") {
			if err := rc.CreateUser(ctx, me, nil); err != nil && !client.IsCode(err, "EntityAlreadyExists") {
				return ratedMsg{item: item, err: err}
			}
		}
		err := rc.AddRecord(ctx, table, interaction, me, item, client.NewRecord{Value: value})
		return ratedMsg{item: item, value: shown, err: err, at: at}
	})
}

func (r *Model) rated(msg ratedMsg) tea.Cmd {
	if msg.err != nil {
		return common.ToastErr("Rating not recorded: " + common.Describe(msg.err))
	}
	delete(r.details, msg.item)
	what := fmt.Sprintf("rated %s: %s", r.title(msg.item), msg.value)
	if msg.value == "liked" {
		what = "liked " + r.title(msg.item)
	}
	cmds := []tea.Cmd{common.Toast(what)}
	if r.person != nil && r.person.mine {
		cmds = append(cmds, r.loadPerson(false))
	}
	return tea.Batch(cmds...)
}

func (r *Model) personViewText() string {
	t, p := r.ctx.Theme, r.person
	if p.mine && p.user == "" {
		return strings.Join(common.Wrap("hark does not know your user id on this platform (the session was kept by an older hark): log out with alt+l and sign in again, then rate items here.", r.width), "\n")
	}
	who := "user " + p.user
	if p.mine {
		who = "you"
	}
	note := engineNote(r.info.engine)
	if !p.mine {
		note = "engine " + r.info.engine + " · esc back to the users"
	}
	head := t.Muted.Render(common.AnsiFit(fmt.Sprintf("for %s · %s", who, note), r.width))
	var left []string
	left = append(left, t.Header.Render("Recommended"))
	if p.err != "" {
		left = append(left, common.Wrap(t.Error.Render(p.err), r.personListWidth())...)
	} else if p.loaded || p.recs.Len() > 0 {
		left = append(left, p.recs.View())
		if cur := p.recs.Current(); cur != nil {
			left = append(left, t.Muted.Render(common.AnsiFit(r.because(p.because[cur.Key], p.mine), r.personListWidth())))
		}
	}
	var right []string
	right = append(right, t.Header.Render("History, newest first"))
	if p.histErr != "" {
		right = append(right, t.Error.Render(p.histErr))
	}
	if len(p.history) == 0 && p.histErr == "" && p.loaded {
		right = append(right, t.Muted.Render("(no interactions yet)"))
	}
	for i, h := range p.history {
		if i >= r.bodyHeight()-2 {
			break
		}
		v := bound(h.Value)
		right = append(right, fmt.Sprintf("%-4s %s", v, r.title(h.ItemID)))
	}
	if r.width < 100 {
		// too narrow for two columns: the history goes under the recommendations, briefly
		if len(right) > 6 {
			right = right[:6]
		}
		return head + "\n" + strings.Join(left, "\n") + "\n" + strings.Join(right, "\n")
	}
	lw := r.personListWidth()
	rw := r.width - lw - 3
	for i := range right {
		right[i] = common.AnsiFit(right[i], rw)
	}
	leftText := lipgloss.NewStyle().Width(lw).Render(strings.Join(left, "\n"))
	bar := strings.TrimSuffix(strings.Repeat(" "+t.Border.Render("│")+" \n", max(lipgloss.Height(leftText), len(right))), "\n")
	return head + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, leftText, bar, strings.Join(right, "\n"))
}

// because words why an item is recommended, where the engine said.
func (r *Model) because(reasons []client.Reason, mine bool) string {
	if len(reasons) == 0 {
		return ""
	}
	parts := make([]string, 0, len(reasons))
	for _, b := range reasons {
		parts = append(parts, fmt.Sprintf("%s (%.0f)", r.title(b.ItemID), b.Match))
	}
	who := "they"
	if mine {
		who = "you"
	}
	return "because " + who + " rated " + strings.Join(parts, ", ")
}
