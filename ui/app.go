package ui

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
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

type screenID int

const (
	screenSignIn screenID = iota
	screenOnboarding
	screenConsole
	screenStorage
	screenItems
	screenSurveys
	screenRecomm
	screenPlaces
)

// allScreens is the broadcast order.
var allScreens = []screenID{screenSignIn, screenOnboarding, screenConsole, screenStorage, screenItems, screenSurveys, screenRecomm, screenPlaces}

var screenTitles = map[screenID]string{
	screenSignIn: "Sign in", screenOnboarding: "Welcome", screenConsole: "Console", screenStorage: "Storage",
	screenItems: "Items", screenSurveys: "Surveys", screenRecomm: "Recommendations", screenPlaces: "Places",
}

type globalKeys struct {
	Quit, Help, Console, Storage, Items, Surveys, Recomm, Places, Logout key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
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
	ctx      *programContext
	keys     globalKeys
	help     help.Model
	fullHelp bool
	spinner  spinner.Model
	busy     map[string]int
	// busySince is when each busy label began. The wall clock, not
	// Options.Now: that one may be fixed (tests) while tasks take real time.
	busySince map[string]time.Time

	screens map[screenID]screen
	active  screenID
	// resume is where to go back after a re-login prompt.
	resume screenID

	toast     toastMsg
	toastID   int
	hasToast  bool
	quitting  bool
	toastLife time.Duration
	// touched is set by the first key or screen change: a late set-up
	// resume must not pull the screen from under the user.
	touched   bool
	signingIn *signIn
}

// New builds the console. A remembered session opens the console at once;
// otherwise the sign-in screen comes first.
func New(opt Options) *App {
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Context == nil {
		opt.Context = context.Background()
	}
	if opt.DownloadDir == "" {
		opt.DownloadDir = "."
	}
	pc := &programContext{Options: opt, Theme: NewTheme(opt.NoColor), Width: 80, Height: 24}
	a := &App{ctx: pc, toastLife: 5 * time.Second, keys: newGlobalKeys(), help: help.New(), busy: map[string]int{}, busySince: map[string]time.Time{},
		spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
	a.help.ShortSeparator = " · "
	if opt.NoColor {
		a.help.Styles = help.Styles{}
	}
	if info := opt.Client.RequestInfo(); info.Lat == nil || info.Lon == nil {
		setCity(opt.Client, 0) // items and answers need a position; c on the items page changes it
	}
	a.signingIn = newSignIn(pc)
	a.screens = map[screenID]screen{
		screenSignIn:     a.signingIn,
		screenOnboarding: newOnboarding(pc),
		screenConsole:    newConsole(pc),
		screenStorage:    newStorage(pc),
		screenItems:      newItems(pc),
		screenSurveys:    newSurveys(pc),
		screenRecomm:     newRecomm(pc),
		screenPlaces:     newPlaces(pc),
	}
	a.active = screenSignIn
	if opt.Session != nil && opt.Session.Token != "" {
		pc.Session = *opt.Session
		opt.Client.SetToken(opt.Session.Token)
		a.active = screenConsole
	}
	a.resume = screenConsole
	a.layout()
	return a
}

// Init starts the active screen.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{a.screens[a.active].Init(), a.spinner.Tick}
	if a.active == screenConsole {
		// A remembered session may have left the set-up half done: resume it.
		c := a.ctx.Client
		cmds = append(cmds, a.ctx.task("checking set-up", func(ctx context.Context) tea.Msg {
			steps, err := c.Onboarding.Start(ctx)
			if err != nil || len(steps) == 0 || steps[0].Type == "END" {
				return nil // nothing to resume; a failure here must not block the console
			}
			return resumeOnboardingMsg{steps: steps}
		}))
	}
	if ready := a.ctx.PlatformReady; ready != nil {
		cmds = append(cmds, func() tea.Msg {
			if err := <-ready; err != nil {
				return toastMsg{err: true, text: describe(err)}
			}
			return nil
		})
	}
	return tea.Batch(cmds...)
}

// signedInMsg ends a sign-in: the session is kept and onboarding resumes.
type signedInMsg struct{ session Session }

// resumeOnboardingMsg brings back a set-up left half done.
type resumeOnboardingMsg struct{ steps []client.Step }

// signedOutMsg ends a session.
type signedOutMsg struct{}

// openScreenMsg asks the root to show a screen.
type openScreenMsg struct{ id screenID }

func openScreen(id screenID) tea.Cmd { return func() tea.Msg { return openScreenMsg{id: id} } }

// Update routes: window sizes and task brackets first, then global keys,
// then the active screen gets keys and every screen gets results.
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
	case taskBeginMsg:
		if a.busy[msg.label]++; a.busy[msg.label] == 1 {
			a.busySince[msg.label] = time.Now()
		}
		return a, nil
	case taskEndMsg:
		if a.busy[msg.label]--; a.busy[msg.label] <= 0 {
			delete(a.busy, msg.label)
			delete(a.busySince, msg.label)
		}
		switch inner := msg.inner.(type) {
		case nil:
			return a, nil
		case tea.BatchMsg:
			return a, tea.Batch(inner...)
		}
		return a.Update(msg.inner)
	case toastMsg:
		a.toast, a.hasToast = msg, true
		a.toastID++
		id := a.toastID
		return a, tea.Tick(a.toastLife, func(time.Time) tea.Msg { return toastExpiredMsg{id: id} })
	case toastExpiredMsg:
		if msg.id == a.toastID {
			a.hasToast = false
		}
		return a, nil
	case openScreenMsg:
		a.touched = true
		return a, a.show(msg.id)
	case resumeOnboardingMsg:
		if a.active != screenConsole || a.touched {
			return a, nil // the user is already busy; don't pull the screen away
		}
		a.active = screenOnboarding
		a.layout()
		return a, a.screens[screenOnboarding].(*onboarding).received(stepsMsg{steps: msg.steps})
	case signedInMsg:
		a.ctx.Session = msg.session
		store := a.ctx.Sessions
		save := a.ctx.task("save session", func(context.Context) tea.Msg {
			if store == nil {
				return nil
			}
			if err := store.Save(msg.session); err != nil {
				return toastMsg{err: true, text: "could not remember the session: " + describe(err)}
			}
			return nil
		})
		next := screenOnboarding
		if a.resume != screenConsole {
			next = a.resume // a re-login goes back to the page that asked
		}
		a.resume = screenConsole
		return a, tea.Batch(save, a.show(next))
	case displayNameMsg:
		a.ctx.Session.Name = msg.name
		sess, store := a.ctx.Session, a.ctx.Sessions
		return a, a.ctx.task("save session", func(context.Context) tea.Msg {
			if store != nil {
				if err := store.Save(sess); err != nil {
					return toastMsg{err: true, text: "could not remember your name: " + describe(err)}
				}
			}
			return nil
		})
	case signedOutMsg:
		a.ctx.Session = Session{}
		a.ctx.Client.SetToken("")
		a.resume = screenConsole
		a.signingIn.reset("")
		return a, a.show(screenSignIn)
	case tea.KeyMsg:
		a.touched = true
		if cmd, done := a.globalKey(msg); done {
			return a, cmd
		}
		_, cmd := a.screens[a.active].Update(msg)
		return a, cmd
	case tea.MouseMsg:
		_, cmd := a.screens[a.active].Update(msg)
		return a, cmd
	}
	if f, ok := msg.(failure); ok && sessionExpired(f.failed()) && a.active != screenSignIn {
		// Every screen still sees the failure (to stop its spinner and keep
		// its draft); the user is asked to sign in again and comes back.
		cmds := a.broadcast(msg)
		a.resume = a.active
		a.signingIn.reset("Your session has expired. Sign in again; your work on the " +
			strings.ToLower(screenTitles[a.resume]) + " page is kept.")
		return a, tea.Batch(cmds, a.show(screenSignIn))
	}
	return a, a.broadcast(msg)
}

func (a *App) broadcast(msg tea.Msg) tea.Cmd {
	var cmds []tea.Cmd
	for _, id := range allScreens {
		_, cmd := a.screens[id].Update(msg)
		cmds = append(cmds, cmd)
	}
	return tea.Batch(cmds...)
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
	if a.ctx.Session.Token == "" || a.active == screenSignIn || a.active == screenOnboarding {
		return nil, false
	}
	switch {
	case key.Matches(msg, a.keys.Console):
		return a.show(screenConsole), true
	case key.Matches(msg, a.keys.Storage):
		return a.show(screenStorage), true
	case key.Matches(msg, a.keys.Items):
		return a.show(screenItems), true
	case key.Matches(msg, a.keys.Surveys):
		return a.show(screenSurveys), true
	case key.Matches(msg, a.keys.Recomm):
		return a.show(screenRecomm), true
	case key.Matches(msg, a.keys.Places):
		return a.show(screenPlaces), true
	case key.Matches(msg, a.keys.Logout):
		c, store := a.ctx.Client, a.ctx.Sessions
		return a.ctx.task("log out", func(ctx context.Context) tea.Msg {
			err := c.Auth.Logout(ctx)
			if store != nil {
				if cerr := store.Clear(); err == nil {
					err = cerr
				}
			}
			if err != nil && !sessionExpired(err) {
				return tea.BatchMsg{func() tea.Msg { return signedOutMsg{} },
					toast("logged out here; the server said " + describe(err))}
			}
			return signedOutMsg{}
		}), true
	}
	return nil, false
}

// show makes id the active screen and starts it when it is entered.
func (a *App) show(id screenID) tea.Cmd {
	if a.active == id {
		return nil
	}
	a.active = id
	a.layout()
	return a.screens[id].Init()
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
	if a.ctx.Session.Token == "" || a.active == screenSignIn || a.active == screenOnboarding {
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
		right = ansiFit(right, max(w-lipgloss.Width(left)-1, 0))
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
		sortStrings(labels)
		status = a.spinner.View() + " " + strings.Join(labels, ", ") + "…"
	}
	if a.hasToast {
		style := t.Toast
		if a.toast.err {
			style = t.ToastError
		}
		if status != "" {
			status += "  "
		}
		status += style.Render(oneLine(a.toast.text))
	}
	status = ansiFit(status, w)
	return lipgloss.JoinVertical(lipgloss.Left, ansiFit(header, w), body, status, a.footer())
}
