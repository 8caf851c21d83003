package recomm

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
)

func asAPI(err error, api **client.APIError) bool { return errors.As(err, api) }

var engineNames = []string{client.EngineHybrid, client.EngineContentBased, client.EngineFM, client.EngineISVD, client.EnginePopular}

// compareView is two engines' recommendations for one user, side by side, with their overlap.
type compareView struct {
	engines [2]string
	subject string // a user opened from the Users tab; else the person at the keyboard
	res     [2][]client.Recommendation
	errs    [2]string
	loaded  bool
	gen     int
}

type compareMsg struct {
	gen     int
	subject string
	engines [2]string
	res     [2][]client.Recommendation
	titles  map[string]string
	errs    [2]error
}

func (r *Model) compareSubject() string {
	if r.cmp.subject != "" {
		return r.cmp.subject
	}
	return r.me()
}

// compareEngines are the two engines compared: as chosen with e, else the table's and popular.
func (r *Model) compareEngines() [2]string {
	if r.cmp.engines[0] != "" {
		return r.cmp.engines
	}
	first := r.info.engine
	if first == "" || first == client.EngineEnsemble {
		first = client.EngineHybrid
	}
	second := client.EnginePopular
	if first == second {
		second = client.EngineHybrid
	}
	return [2]string{first, second}
}

func (r *Model) loadCompare() tea.Cmd {
	subject := r.compareSubject()
	if subject == "" {
		return nil
	}
	r.cmp.gen++
	rc, table, gen, engines, display := r.ctx.Client.Recomm, r.table, r.cmp.gen, r.compareEngines(), r.info.display
	return r.ctx.Task("comparing engines", func(ctx context.Context) tea.Msg {
		m := compareMsg{gen: gen, subject: subject, engines: engines, titles: map[string]string{}}
		if display == "" {
			if t, err := rc.Table(ctx, table, false); err == nil {
				display = t.DisplayAttribute
			}
		}
		for i, e := range engines {
			opt := client.RecommendOptions{Engine: e, Limit: 15, Explain: true}
			if display != "" {
				opt.Attributes = []string{display}
			}
			m.res[i], m.errs[i] = rc.ItemsForUser(ctx, table, subject, opt)
			for _, rec := range m.res[i] {
				if t := valueText(rec.Values[display]); t != "" {
					m.titles[rec.ItemID] = t
				}
			}
		}
		return m
	})
}

func (r *Model) gotCompare(msg compareMsg) {
	r.learnTitles(msg.titles)
	if msg.gen != r.cmp.gen {
		return
	}
	r.cmp.res, r.cmp.loaded = msg.res, true
	r.cmp.engines = msg.engines
	for i, err := range msg.errs {
		r.cmp.errs[i] = ""
		if err != nil {
			r.cmp.errs[i] = r.explainRecommendError(err)
		}
	}
}

func (r *Model) compareKey(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	switch {
	case key.Matches(msg, k.Engines):
		e := r.compareEngines()
		return r.ask("engines", "engines to compare: ", strings.Join(engineNames, ", "), e[0]+" "+e[1])
	case key.Matches(msg, k.Refresh):
		return r.loadCompare()
	case key.Matches(msg, k.Back):
		r.table = ""
		r.reset()
		return r.load(true)
	}
	return nil
}

func (r *Model) setCompareEngines(v string) tea.Cmd {
	f := strings.Fields(strings.ReplaceAll(v, ",", " "))
	if len(f) != 2 {
		return common.ToastErr("Name two engines, e.g. hybrid popular (" + strings.Join(engineNames, ", ") + ").")
	}
	for _, e := range f {
		if !contains(engineNames, e) {
			return common.ToastErr(fmt.Sprintf("%q is not an engine: %s.", e, strings.Join(engineNames, ", ")))
		}
	}
	r.cmp.engines = [2]string{f[0], f[1]}
	return r.loadCompare()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Model) compareViewText() string {
	t := r.ctx.Theme
	subject := r.compareSubject()
	if subject == "" {
		return strings.Join(common.Wrap("Sign in again (alt+l, then log in) so that hark knows your user id, or open a user on the Users tab to compare engines for them.", r.width), "\n")
	}
	if !r.cmp.loaded {
		return t.Muted.Render("comparing…")
	}
	in := [2]map[string]bool{{}, {}}
	for i := range 2 {
		for _, rec := range r.cmp.res[i] {
			in[i][rec.ItemID] = true
		}
	}
	overlap := 0
	for id := range in[0] {
		if in[1][id] {
			overlap++
		}
	}
	who := "you"
	if subject != r.me() {
		who = "user " + subject
	}
	head := fmt.Sprintf("for %s · %s vs %s · %d in common (=) · e changes the engines", who, r.cmp.engines[0], r.cmp.engines[1], overlap)
	colW := max(r.width/2-2, 20)
	var cols []string
	for i := range 2 {
		lines := []string{t.Header.Render(common.AnsiFit(r.cmp.engines[i], colW))}
		if r.cmp.errs[i] != "" {
			lines = append(lines, common.Wrap(t.Error.Render(r.cmp.errs[i]), colW)...)
		} else if len(r.cmp.res[i]) == 0 {
			lines = append(lines, t.Muted.Render("(nothing recommended)"))
		}
		for n, rec := range r.cmp.res[i] {
			if n >= r.bodyHeight()-3 {
				break
			}
			mark := " "
			if in[1-i][rec.ItemID] {
				mark = "="
			}
			lines = append(lines, common.Fit(fmt.Sprintf("%s%2d. %3.0f %s %s", mark, n+1, rec.Match, components.ProgressBar(rec.Match/100, 4), r.title(rec.ItemID)), colW))
		}
		cols = append(cols, lipgloss.NewStyle().Width(colW+2).Render(strings.Join(lines, "\n")))
	}
	return t.Muted.Render(common.AnsiFit(head, r.width)) + "\n" + lipgloss.JoinHorizontal(lipgloss.Top, cols...)
}
