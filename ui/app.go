package ui

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/console"
	"github.com/harkhq/hark/ui/items"
	"github.com/harkhq/hark/ui/onboarding"
	"github.com/harkhq/hark/ui/places"
	"github.com/harkhq/hark/ui/recomm"
	"github.com/harkhq/hark/ui/signin"
	"github.com/harkhq/hark/ui/storage"
	"github.com/harkhq/hark/ui/surveys"
)

// screen is the contract of every page: a model, its keys for the help
// line, and a size given by the root.
type screen interface {
	Init() tea.Cmd
	Update(tea.Msg) (tea.Model, tea.Cmd)
	View() string
	help.KeyMap
	SetSize(width, height int)
	// Typing tells the root that a text field has focus, so plain letters
	// (and "?") belong to it rather than to global keys.
	Typing() bool
}

var screenTitles = map[common.ScreenID]string{
	common.ScreenSignIn: "Sign in", common.ScreenOnboarding: "Welcome", common.ScreenConsole: "Console", common.ScreenStorage: "Storage",
	common.ScreenItems: "Items", common.ScreenSurveys: "Surveys", common.ScreenRecomm: "Recommendations", common.ScreenPlaces: "Places",
}

type globalKeys struct {
	Quit, Help, Console, Storage, Items, Surveys, Recomm, Places, Logout key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit:    common.Keys.Quit,
		Help:    key.NewBinding(key.WithKeys("f1", "?"), key.WithHelp("?/f1", "help")),
		Console: key.NewBinding(key.WithKeys("alt+c"), key.WithHelp("alt+c", "console")),
		Storage: key.NewBinding(key.WithKeys("alt+s"), key.WithHelp("alt+s", "storage")),
		Items:   key.NewBinding(key.WithKeys("alt+i"), key.WithHelp("alt+i", "items")),
		Surveys: key.NewBinding(key.WithKeys("alt+u"), key.WithHelp("alt+u", "surveys")),
		Recomm:  key.NewBinding(key.WithKeys("alt+r"), key.WithHelp("alt+r", "recommendations")),
		Places:  key.NewBinding(key.WithKeys("alt+p"), key.WithHelp("alt+p", "places")),
		Logout:  key.NewBinding(key.WithKeys("alt+l"), key.WithHelp("alt+l", "log out")),
	}
}

// spinnerDelay is how long a task runs before the status line names it:
// most finish sooner, and a label that flashes for a frame is noise (and
// made screenshots depend on the machine's speed).
const spinnerDelay = 300 * time.Millisecond

// App is the root model: it owns the screens, routes messages, and draws
// the header, the status line (spinner and toasts) and the help footer.
type App struct {
	ctx           *common.Context
	platformReady <-chan error
	keys          globalKeys
	help          help.Model
	fullHelp      bool
	spinner       spinner.Model
	busy          map[string]int
	// busySince is when each busy label began. The wall clock, not
	// Options.Now: that one may be fixed (tests) while tasks take real time.
	busySince map[string]time.Time

	screens map[common.ScreenID]screen
	active  common.ScreenID
	// resume is where to go back after a re-login prompt.
	resume common.ScreenID

	toast     common.ToastMsg
	toastID   int
	hasToast  bool
	quitting  bool
	toastLife time.Duration
	// touched is set by the first key or screen change: a late set-up
	// resume must not pull the screen from under the user.
	touched   bool
	signingIn *signin.Model
	onboard   *onboarding.Model
}

// New builds the console. A remembered session opens the console at once;
// otherwise the sign-in screen comes first.
func New(opt Options) *App {
	pc := common.NewContext(opt.common())
	a := &App{ctx: pc, platformReady: opt.PlatformReady, toastLife: 5 * time.Second, keys: newGlobalKeys(), help: help.New(),
		busy: map[string]int{}, busySince: map[string]time.Time{}, spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
	a.help.ShortSeparator = " · "
	if opt.NoColor {
		a.help.Styles = help.Styles{}
	}
	if info := opt.Client.RequestInfo(); info.Lat == nil || info.Lon == nil {
		common.SetCity(opt.Client, 0) // items and answers need a position; c on the items page changes it
	}
	a.signingIn = signin.New(pc)
	a.onboard = onboarding.New(pc)
	a.screens = map[common.ScreenID]screen{
		common.ScreenSignIn:     a.signingIn,
		common.ScreenOnboarding: a.onboard,
		common.ScreenConsole:    console.New(pc, opt.Voice),
		common.ScreenStorage:    storage.New(pc),
		common.ScreenItems:      items.New(pc),
		common.ScreenSurveys:    surveys.New(pc),
		common.ScreenRecomm:     recomm.New(pc),
		common.ScreenPlaces:     places.New(pc),
	}
	a.active = common.ScreenSignIn
	if opt.Session != nil && opt.Session.Token != "" {
		pc.Session = *opt.Session
		opt.Client.SetToken(opt.Session.Token)
		a.active = common.ScreenConsole
	}
	a.resume = common.ScreenConsole
	a.layout()
	return a
}

// Init starts the active screen.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{route(a.active, a.screens[a.active].Init()), a.spinner.Tick}
	if a.active == common.ScreenConsole {
		// A remembered session may have left the set-up half done: resume it.
		c := a.ctx.Client
		cmds = append(cmds, a.ctx.Task("checking set-up", func(ctx context.Context) tea.Msg {
			steps, err := c.Onboarding.Start(ctx)
			if err != nil || len(steps) == 0 || steps[0].Type == "END" {
				return nil // nothing to resume; a failure here must not block the console
			}
			return resumeOnboardingMsg{steps: steps}
		}))
	}
	if ready := a.platformReady; ready != nil {
		cmds = append(cmds, func() tea.Msg {
			if err := <-ready; err != nil {
				return common.ToastMsg{Err: true, Text: common.Describe(err)}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// resumeOnboardingMsg brings back a set-up left half done.
type resumeOnboardingMsg struct{ steps []client.Step }

// signedOutMsg ends a session.
type signedOutMsg struct{}

// routed is a message made by a command of screen to: the root hands it
// to that screen only (a result goes to the screen that asked for it).
type routed struct {
	to  common.ScreenID
	msg tea.Msg
}

// Unwrap is the message inside, for tests that look through routing.
func (r routed) Unwrap() tea.Msg { return r.msg }

// route marks every message cmd produces as meant for screen id.
func route(id common.ScreenID, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg {
		msg := cmd()
		if msg == nil {
			return nil
		}
		return routed{to: id, msg: msg}
	}
}

var cmdType = reflect.TypeOf(tea.Cmd(nil))

// sequence unpacks tea.Sequence's message, whose type is private ([]tea.Cmd underneath).
func sequence(m tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(m)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem() != cmdType {
		return nil, false
	}
	return v.Convert(reflect.TypeOf([]tea.Cmd(nil))).Interface().([]tea.Cmd), true
}

// Update routes: window sizes and task brackets first, then global keys;
// keys go to the active screen, results to the screen that asked.
func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.ctx.Width, a.ctx.Height = msg.Width, msg.Height
		a.layout()
		return a, nil
	case spinner.TickMsg:
		var cmd tea.Cmd
		a.spinner, cmd = a.spinner.Update(msg)
		return a, cmd
	case routed:
		return a, a.fromScreen(msg.to, msg.msg)
	case tea.KeyMsg:
		a.touched = true
		if cmd, done := a.globalKey(msg); done {
			return a, cmd
		}
		return a, a.deliver(a.active, msg)
	case tea.MouseMsg:
		return a, a.deliver(a.active, msg)
	}
	if cmd, ok := a.rootMsg(msg, nil); ok {
		return a, cmd
	}
	// A message from outside (a test, the host) goes to the active screen.
	return a, a.deliver(a.active, msg)
}

// fromScreen handles a message made by a command of screen id.
func (a *App) fromScreen(id common.ScreenID, msg tea.Msg) tea.Cmd {
	switch m := msg.(type) {
	case tea.BatchMsg:
		cmds := make([]tea.Cmd, len(m))
		for i, c := range m {
			cmds[i] = route(id, c)
		}
		return tea.Batch(cmds...)
	}
	if cmds, ok := sequence(msg); ok {
		wrapped := make([]tea.Cmd, len(cmds))
		for i, c := range cmds {
			wrapped[i] = route(id, c)
		}
		return tea.Sequence(wrapped...)
	}
	if cmd, ok := a.rootMsg(msg, &id); ok {
		return cmd
	}
	cmd := a.deliver(id, msg)
	if f, ok := msg.(common.Failure); ok && common.SessionExpired(f.Failed()) && a.active != common.ScreenSignIn {
		// The screen still saw the failure (to stop its spinner and keep
		// its draft); the user is asked to sign in again and comes back.
		a.resume = a.active
		a.signingIn.Reset("Your session has expired. Sign in again; your work on the " +
			strings.ToLower(screenTitles[a.resume]) + " page is kept.")
		return tea.Batch(cmd, a.show(common.ScreenSignIn))
	}
	return cmd
}

// deliver hands msg to screen id; what it starts is routed back to it.
func (a *App) deliver(id common.ScreenID, msg tea.Msg) tea.Cmd {
	_, cmd := a.screens[id].Update(msg)
	return route(id, cmd)
}

// rootMsg handles the messages meant for the root whoever sent them; from
// is the screen whose command made msg (nil: the root's own).
func (a *App) rootMsg(msg tea.Msg, from *common.ScreenID) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case common.TaskBeginMsg:
		if a.busy[msg.Label]++; a.busy[msg.Label] == 1 {
			a.busySince[msg.Label] = time.Now()
		}
		return nil, true
	case common.TaskEndMsg:
		if a.busy[msg.Label]--; a.busy[msg.Label] <= 0 {
			delete(a.busy, msg.Label)
			delete(a.busySince, msg.Label)
		}
		if msg.Inner == nil {
			return nil, true
		}
		if from != nil {
			return a.fromScreen(*from, msg.Inner), true
		}
		if inner, ok := msg.Inner.(tea.BatchMsg); ok {
			return tea.Batch(inner...), true
		}
		_, cmd := a.Update(msg.Inner)
		return cmd, true
	case common.ToastMsg:
		a.toast, a.hasToast = msg, true
		a.toastID++
		id := a.toastID
		return tea.Tick(a.toastLife, func(time.Time) tea.Msg { return common.ToastExpiredMsg{ID: id} }), true
	case common.ToastExpiredMsg:
		if msg.ID == a.toastID {
			a.hasToast = false
		}
		return nil, true
	case common.ClearToastMsg:
		a.hasToast = false
		return nil, true
	case common.OpenScreenMsg:
		a.touched = true
		return a.show(msg.ID), true
	case resumeOnboardingMsg:
		if a.active != common.ScreenConsole || a.touched {
			return nil, true // the user is already busy; don't pull the screen away
		}
		a.active = common.ScreenOnboarding
		a.layout()
		return route(common.ScreenOnboarding, a.onboard.Resume(msg.steps)), true
	case common.SignedInMsg:
		a.ctx.Session = msg.Session
		store := a.ctx.Sessions
		save := a.ctx.Task("save session", func(context.Context) tea.Msg {
			if store == nil {
				return nil
			}
			if err := store.Save(msg.Session); err != nil {
				return common.ToastMsg{Err: true, Text: "could not remember the session: " + common.Describe(err)}
			}
			return nil
		})
		next := common.ScreenOnboarding
		if a.resume != common.ScreenConsole {
			next = a.resume // a re-login goes back to the page that asked
		}
		a.resume = common.ScreenConsole
		return tea.Batch(save, a.show(next)), true
	case common.DisplayNameMsg:
		a.ctx.Session.Name = msg.Name
		sess, store := a.ctx.Session, a.ctx.Sessions
		return a.ctx.Task("save session", func(context.Context) tea.Msg {
			if store != nil {
				if err := store.Save(sess); err != nil {
					return common.ToastMsg{Err: true, Text: "could not remember your name: " + common.Describe(err)}
				}
			}
			return nil
		}), true
	case signedOutMsg:
		a.ctx.Session = common.Session{}
		a.ctx.Client.SetToken("")
		a.resume = common.ScreenConsole
		a.signingIn.Reset("")
		return a.show(common.ScreenSignIn), true
	}
	return nil, false
}

func (a *App) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	typing := a.screens[a.active].Typing()
	switch {
	case key.Matches(msg, a.keys.Quit):
		a.quitting = true
		return tea.Quit, true
	case msg.String() == "f1" || (!typing && key.Matches(msg, a.keys.Help)):
		a.fullHelp = !a.fullHelp
		a.layout()
		return nil, true
	}
	if a.ctx.Session.Token == "" || a.active == common.ScreenSignIn || a.active == common.ScreenOnboarding {
		return nil, false
	}
	switch {
	case key.Matches(msg, a.keys.Console):
		return a.show(common.ScreenConsole), true
	case key.Matches(msg, a.keys.Storage):
		return a.show(common.ScreenStorage), true
	case key.Matches(msg, a.keys.Items):
		return a.show(common.ScreenItems), true
	case key.Matches(msg, a.keys.Surveys):
		return a.show(common.ScreenSurveys), true
	case key.Matches(msg, a.keys.Recomm):
		return a.show(common.ScreenRecomm), true
	case key.Matches(msg, a.keys.Places):
		return a.show(common.ScreenPlaces), true
	case key.Matches(msg, a.keys.Logout):
		c, store := a.ctx.Client, a.ctx.Sessions
		return a.ctx.Task("log out", func(ctx context.Context) tea.Msg {
			err := c.Auth.Logout(ctx)
			if store != nil {
				if cerr := store.Clear(); err == nil {
					err = cerr
				}
			}
			if err != nil && !common.SessionExpired(err) {
				return tea.BatchMsg{func() tea.Msg { return signedOutMsg{} },
					common.Toast("logged out here; the server said " + common.Describe(err))}
			}
			return signedOutMsg{}
		}), true
	}
	return nil, false
}

// show makes id the active screen and starts it when it is entered.
func (a *App) show(id common.ScreenID) tea.Cmd {
	if a.active == id {
		return nil
	}
	a.active = id
	a.layout()
	return route(id, a.screens[id].Init())
}

// layout gives every screen the body size left by header and footer.
func (a *App) layout() {
	a.help.Width = a.ctx.Width
	h := a.ctx.Height - 2 - lipgloss.Height(a.footer())
	for _, s := range a.screens {
		s.SetSize(a.ctx.Width, max(h, 1))
	}
}

func (a *App) footer() string {
	km := keyMaps{a.screens[a.active], a.globalHelp()}
	if a.fullHelp {
		return a.help.FullHelpView(km.FullHelp())
	}
	return a.help.ShortHelpView(km.ShortHelp())
}

func (a *App) globalHelp() []key.Binding {
	if a.ctx.Session.Token == "" || a.active == common.ScreenSignIn || a.active == common.ScreenOnboarding {
		return []key.Binding{a.keys.Help, a.keys.Quit}
	}
	return []key.Binding{a.keys.Console, a.keys.Items, a.keys.Storage, a.keys.Surveys, a.keys.Recomm, a.keys.Places, a.keys.Logout, a.keys.Help, a.keys.Quit}
}

// keyMaps joins the active screen's keys with the global ones.
type keyMaps struct {
	screen help.KeyMap
	global []key.Binding
}

func (k keyMaps) ShortHelp() []key.Binding {
	return append(append([]key.Binding{}, k.screen.ShortHelp()...), k.global[len(k.global)-2:]...)
}

func (k keyMaps) FullHelp() [][]key.Binding {
	return append(append([][]key.Binding{}, k.screen.FullHelp()...), k.global)
}

// View draws header, the active screen, the status line and the help.
func (a *App) View() string {
	if a.quitting {
		return ""
	}
	w := a.ctx.Width
	t := a.ctx.Theme
	left := t.Title.Render("hark") + " " + t.Header.Render(screenTitles[a.active])
	who := a.ctx.Session.Name
	if who == "" {
		who = a.ctx.Session.Email
	}
	if who == "" && a.ctx.Session.Token != "" {
		who = "anonymous"
	}
	right := a.ctx.Platform
	if who != "" {
		right = who + " @ " + right
	}
	gap := w - lipgloss.Width(left) - lipgloss.Width(right)
	if gap < 1 {
		right = common.AnsiFit(right, max(w-lipgloss.Width(left)-1, 0))
		gap = 1
	}
	header := left + strings.Repeat(" ", max(gap, 0)) + t.Muted.Render(right)

	body := a.screens[a.active].View()
	bodyH := max(a.ctx.Height-2-lipgloss.Height(a.footer()), 1)
	body = lipgloss.NewStyle().Width(w).Height(bodyH).MaxHeight(bodyH).MaxWidth(w).Render(body)

	status := ""
	labels := make([]string, 0, len(a.busy))
	for l, since := range a.busySince {
		if time.Since(since) >= spinnerDelay {
			labels = append(labels, l)
		}
	}
	if len(labels) > 0 {
		sort.Strings(labels)
		status = a.spinner.View() + " " + strings.Join(labels, ", ") + "…"
	}
	if a.hasToast {
		style := t.Toast
		if a.toast.Err {
			style = t.ToastError
		}
		if status != "" {
			status += "  "
		}
		status += style.Render(common.OneLine(a.toast.Text))
	}
	status = common.AnsiFit(status, w)
	return lipgloss.JoinVertical(lipgloss.Left, common.AnsiFit(header, w), body, status, a.footer())
}
