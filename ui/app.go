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
	// Typing tells the root that a text field (or a dialog) has the keys,
	// so plain letters such as q belong to it rather than to global keys.
	Typing() bool
	// InputEmpty tells that the focused field is empty (or there is none):
	// then "?" opens the help instead of being typed.
	InputEmpty() bool
}

// tabTaker is a screen whose own tabs (or fields) tab and shift+tab move
// through; on the others they move through the screens.
type tabTaker interface{ TakesTab() bool }

var screenTitles = map[common.ScreenID]string{
	common.ScreenSignIn: "Sign in", common.ScreenOnboarding: "Welcome", common.ScreenConsole: "Console", common.ScreenStorage: "Storage",
	common.ScreenItems: "Items", common.ScreenSurveys: "Surveys", common.ScreenRecomm: "Recommendations", common.ScreenPlaces: "Places",
}

type globalKeys struct {
	Quit, QuitQ, Help, Back, NextTab, PrevTab                key.Binding
	Console, Storage, Items, Surveys, Recomm, Places, Logout key.Binding
	Language                                                 key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Quit:     common.Keys.Quit,
		QuitQ:    common.WithHelp(common.Keys.QuitQ, "q", "quit (outside text fields)"),
		Help:     key.NewBinding(key.WithKeys("f1", "?"), key.WithHelp("?/f1", "help")),
		Back:     common.WithHelp(common.Keys.Back, "esc", "back, close, clear filter"),
		NextTab:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab/shift+tab", "next/previous screen")),
		PrevTab:  key.NewBinding(key.WithKeys("shift+tab")),
		Console:  key.NewBinding(key.WithKeys("alt+c"), key.WithHelp("alt+c", "console")),
		Storage:  key.NewBinding(key.WithKeys("alt+s"), key.WithHelp("alt+s", "storage")),
		Items:    key.NewBinding(key.WithKeys("alt+i"), key.WithHelp("alt+i", "items")),
		Surveys:  key.NewBinding(key.WithKeys("alt+u"), key.WithHelp("alt+u", "surveys")),
		Recomm:   key.NewBinding(key.WithKeys("alt+r"), key.WithHelp("alt+r", "recommendations")),
		Places:   key.NewBinding(key.WithKeys("alt+p"), key.WithHelp("alt+p", "places")),
		Logout:   key.NewBinding(key.WithKeys("alt+l"), key.WithHelp("alt+l", "log out")),
		Language: key.NewBinding(key.WithKeys("alt+g"), key.WithHelp("alt+g", "language")),
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
	fullHelp      bool
	helpPage      int
	spinner       spinner.Model
	busy          map[string]int
	// busySince is when each busy label began. The wall clock, not
	// Options.Now: that one may be fixed (tests) while tasks take real time.
	busySince map[string]time.Time

	screens map[common.ScreenID]screen
	active  common.ScreenID
	// resume is where to go back after a re-login prompt.
	resume common.ScreenID
	// previous is where esc goes back to from the top of a screen.
	previous common.ScreenID

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
	settings  common.Settings
}

// New builds the console. A remembered session opens the console at once;
// otherwise the sign-in screen comes first.
func New(opt Options) *App {
	pc := common.NewContext(opt.common())
	a := &App{ctx: pc, platformReady: opt.PlatformReady, toastLife: 5 * time.Second, keys: newGlobalKeys(),
		busy: map[string]int{}, busySince: map[string]time.Time{}, spinner: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
	if info := opt.Client.RequestInfo(); info.Lat == nil || info.Lon == nil {
		common.SetCity(opt.Client, 0) // items and answers need a position; c on the items page changes it
	}
	a.signingIn = signin.New(pc)
	a.onboard = onboarding.New(pc)
	a.screens = map[common.ScreenID]screen{
		common.ScreenSignIn:     a.signingIn,
		common.ScreenOnboarding: a.onboard,
		common.ScreenConsole:    newConsole(pc, opt),
		common.ScreenStorage:    storage.New(pc),
		common.ScreenItems:      items.New(pc),
		common.ScreenSurveys:    surveys.New(pc),
		common.ScreenRecomm:     recomm.New(pc),
		common.ScreenPlaces:     places.New(pc),
	}
	a.active = common.ScreenSignIn
	start := common.ScreenConsole
	if opt.Settings != nil {
		// Read once before the program starts: the settings decide the
		// first screen. A file that cannot be read is as none.
		if s, err := opt.Settings.Load(); err == nil {
			start = a.applySettings(s)
		}
	}
	if opt.Recorder != nil {
		start = common.ScreenConsole // recording is the console's: open there, whatever was last
	}
	if opt.Session != nil && opt.Session.Token != "" {
		pc.Session = *opt.Session
		opt.Client.SetToken(opt.Session.Token)
		a.active = start
	}
	a.resume = common.ScreenConsole
	a.layout()
	return a
}

// newConsole is the console screen, recording its turns when opt says so.
func newConsole(pc *common.Context, opt Options) *console.Model {
	c := console.New(pc, opt.Voice)
	if opt.Recorder != nil {
		c.SetRecorder(opt.Recorder)
	}
	return c
}

// Init starts the active screen.
func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{route(a.active, a.screens[a.active].Init()), a.spinner.Tick}
	if a.signedIn() {
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
		if msg.Type == tea.KeyRunes && !msg.Paste && len(msg.Runes) > 1 {
			// The terminal reader reports the runes of one read as one key
			// ("jjj" from a held key, a fast hand or a script). Every binding
			// is a single key, so each rune is pressed on its own, as if it
			// had arrived alone; a bracketed paste stays whole.
			cmds := make([]tea.Cmd, len(msg.Runes))
			for i, r := range msg.Runes {
				k := msg
				k.Runes = []rune{r}
				_, cmds[i] = a.Update(k)
			}
			return a, tea.Batch(cmds...)
		}
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
	case common.GoBackMsg:
		if !a.signedIn() || a.active == common.ScreenConsole {
			return nil, true
		}
		back := a.previous
		if back == a.active || back == common.ScreenSignIn || back == common.ScreenOnboarding {
			back = common.ScreenConsole
		}
		return a.show(back), true
	case resumeOnboardingMsg:
		if !a.signedIn() || a.touched {
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
	case common.CityChangedMsg, common.LanguageChangedMsg:
		return a.remember(), true
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

// screenKey tells whether msg opens a screen of the tab bar (or logs out).
func (a *App) screenKey(msg tea.KeyMsg) bool {
	k := a.keys
	return key.Matches(msg, k.Console, k.Items, k.Storage, k.Surveys, k.Recomm, k.Places, k.Logout)
}

func (a *App) signedIn() bool {
	return a.ctx.Session.Token != "" && a.active != common.ScreenSignIn && a.active != common.ScreenOnboarding
}

func (a *App) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	sc := a.screens[a.active]
	typing := sc.Typing()
	switch {
	case key.Matches(msg, a.keys.Quit), !typing && key.Matches(msg, a.keys.QuitQ):
		a.quitting = true
		return tea.Quit, true
	case msg.String() == "f1" || (sc.InputEmpty() && key.Matches(msg, a.keys.Help)):
		a.fullHelp, a.helpPage = !a.fullHelp, 0
		a.layout()
		return nil, true
	}
	if a.fullHelp && a.signedIn() && a.screenKey(msg) {
		a.fullHelp = false // a screen's key closes the help and opens it
		a.layout()
	}
	if a.fullHelp {
		// The help is over the screen: its keys close it or turn its pages.
		switch msg.String() {
		case "esc", "q":
			a.fullHelp = false
			a.layout()
		case "pgdown", "down", "j", " ":
			a.helpPage++
		case "pgup", "up", "k":
			a.helpPage--
		}
		return nil, true
	}
	if !a.signedIn() {
		return nil, false
	}
	if tt, ok := sc.(tabTaker); !typing && (!ok || !tt.TakesTab()) || a.active == common.ScreenConsole {
		tabs := a.tabs()
		i := 0
		for n, tb := range tabs {
			if tb.id == a.active {
				i = n
			}
		}
		switch {
		case key.Matches(msg, a.keys.NextTab):
			return a.show(tabs[(i+1)%len(tabs)].id), true
		case key.Matches(msg, a.keys.PrevTab):
			return a.show(tabs[(i+len(tabs)-1)%len(tabs)].id), true
		}
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
	case key.Matches(msg, a.keys.Language):
		next := languages[0]
		for i, l := range languages {
			if l.code == a.ctx.Client.Config().Language {
				next = languages[(i+1)%len(languages)]
			}
		}
		a.ctx.Client.SetLanguage(next.code)
		text := "answers are now in " + next.name + ": alt+g switches the language"
		if next.code == "" {
			text = "answers are now in the language of each question (auto): alt+g switches the language"
		}
		return tea.Batch(common.Toast(text),
			func() tea.Msg { return common.LanguageChangedMsg{Lang: next.code} }), true
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

// show makes id the active screen and starts it when it is entered. A
// notice of the screen left behind is stale on the next one.
func (a *App) show(id common.ScreenID) tea.Cmd {
	if a.active == id {
		return nil
	}
	a.previous, a.active = a.active, id
	a.fullHelp = false
	if a.hasToast && !a.toast.Err {
		a.hasToast = false
	}
	a.layout()
	return tea.Batch(route(id, a.screens[id].Init()), a.remember())
}

// layout gives every screen the body size left by the tab bar, the
// status line and the help line.
func (a *App) layout() {
	for _, s := range a.screens {
		s.SetSize(a.ctx.Width, a.bodyHeight())
	}
}

func (a *App) bodyHeight() int {
	return max(a.ctx.Height-2-lipgloss.Height(a.footer()), 1)
}

// footer is the short help on one line: help and quit always, the
// screen's own keys before them as many as fit (the full help has all).
func (a *App) footer() string {
	t := a.ctx.Theme
	item := func(b key.Binding) string { return t.Key.Render(b.Help().Key) + " " + t.Muted.Render(b.Help().Desc) }
	sep := t.Muted.Render(" · ")
	if a.fullHelp {
		return common.AnsiFit(item(common.WithHelp(a.keys.Back, "esc/?", "close help"))+sep+item(a.keys.Quit), a.ctx.Width)
	}
	tail := item(common.WithHelp(a.keys.Help, "?", "help")) + sep + item(common.WithHelp(a.keys.Quit, "ctrl+c", "quit"))
	line := tail
	var head []string
	for _, b := range a.screens[a.active].ShortHelp() {
		if !b.Enabled() || b.Help().Key == "" {
			continue
		}
		next := strings.Join(append(head, item(b)), sep) + sep + tail
		if lipgloss.Width(next) > a.ctx.Width {
			break
		}
		head = append(head, item(b))
		line = next
	}
	return common.AnsiFit(line, a.ctx.Width)
}

// View draws the tab bar, the active screen (or the full help), the
// status line and the help line.
func (a *App) View() string {
	if a.quitting {
		return ""
	}
	w := a.ctx.Width
	t := a.ctx.Theme
	header := a.tabBar(w)

	bodyH := a.bodyHeight()
	var body string
	if a.fullHelp {
		body = a.helpView(w, bodyH)
	} else {
		body = a.screens[a.active].View()
	}
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
	// Who is signed in where, on the right while the line has room.
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
	if gap := w - lipgloss.Width(status) - lipgloss.Width(right); gap >= 2 {
		status += strings.Repeat(" ", gap) + t.Muted.Render(right)
	}
	status = common.AnsiFit(status, w)
	return lipgloss.JoinVertical(lipgloss.Left, header, body, status, a.footer())
}
