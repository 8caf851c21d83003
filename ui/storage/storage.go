package storage

import (
	"context"
	"errors"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
)

type storageKeys struct {
	Open, Back, Refresh, Upload, Download, Mkdir, Delete, Clear, ListFilter key.Binding
}

// storageEntry is a folder (at the top) or a file.
type storageEntry struct {
	folder bool
	name   string
	size   int64
	mod    time.Time
}

// prompt kinds of the storage screen.
type storagePrompt int

const (
	promptNone storagePrompt = iota
	promptUpload
	promptMkdir
	promptListFilter
	promptDownload
)

// transfer is a download or upload in flight.
type transfer struct {
	name        string
	done, total int64
}

// storage browses the workspace's files: folders at the top level, files
// inside them (and root files beside the folders).
type Model struct {
	ctx     *common.Context
	keys    storageKeys
	list    components.RowList
	folder  string // "" is the top level
	entries map[string]storageEntry
	total   int64
	loaded  bool
	loading bool
	errText string

	prompt   storagePrompt
	input    textinput.Model
	confirm  components.Confirm
	clearTok string
	// listOpt and listText are the server-side listing filter.
	listOpt  client.ListOptions
	listText string

	// downloading are the files whose destination is being asked; lastDir
	// is the directory chosen last, offered next time.
	downloading []storageEntry
	lastDir     string

	transfers map[int]*transfer
	nextID    int
	width     int
	height    int
}

func New(pc *common.Context) *Model {
	in := common.NewInput(pc)
	in.CharLimit = 4096
	return &Model{ctx: pc, list: components.NewRowList(pc), entries: map[string]storageEntry{}, input: in,
		transfers: map[int]*transfer{}, keys: storageKeys{
			Open:       key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter", "open")),
			Back:       key.NewBinding(key.WithKeys("backspace", "left", "h", "esc"), key.WithHelp("esc/⌫", "up a folder")),
			Refresh:    common.Keys.Refresh,
			Upload:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "upload")),
			Download:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "download")),
			Mkdir:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new folder")),
			Delete:     key.NewBinding(key.WithKeys("x", "delete"), key.WithHelp("x", "delete")),
			Clear:      key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "clear all")),
			ListFilter: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "server filter")),
		}}
}

// setEmpty says what to do in an empty folder, with the keys.
func (s *Model) setEmpty() {
	if s.folder == "" {
		s.list.SetEmpty("Nothing stored yet: press u to upload a file, or n to make a folder.")
	} else {
		s.list.SetEmpty("This folder is empty: press u to upload a file here, or esc to go up.")
	}
}

func (s *Model) Init() tea.Cmd {
	s.setEmpty()
	if s.loaded || s.loading {
		return nil
	}
	return s.refresh()
}

func (s *Model) SetSize(w, h int) {
	s.width, s.height = w, h
	lw := w
	if s.detailShown() {
		lw = w - components.DetailWidth - 1
	}
	s.list.SetSize(lw, h-3-len(s.transfers))
	s.input.Width = max(w-20, 10)
}

// detailShown: the detail pane collapses on narrow terminals.
func (s *Model) detailShown() bool { return s.width >= 100 }

func (s *Model) Typing() bool {
	return s.prompt != promptNone || s.list.Filtering() || s.confirm.Active()
}

func (s *Model) InputEmpty() bool {
	if s.prompt != promptNone {
		return s.input.Value() == ""
	}
	return s.list.InputEmpty()
}

func (s *Model) ShortHelp() []key.Binding {
	if s.confirm.Active() {
		return s.confirm.Help()
	}
	return []key.Binding{s.keys.Open, s.keys.Upload, s.keys.Download, s.keys.Delete, s.list.Keys.Filter}
}

func (s *Model) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{s.keys.Open, s.keys.Back, s.keys.Refresh, s.list.Keys.Up, s.list.Keys.PageUp},
		{s.keys.Upload, s.keys.Download, s.keys.Mkdir, s.keys.Delete, s.keys.Clear},
		{s.list.Keys.Select, s.list.Keys.Filter, s.list.Keys.ClearFilter, s.keys.ListFilter},
	}
}

type storageListedMsg struct {
	folder  string
	folders []string
	files   []client.FileEntry
	total   int64
	err     error
}

func (m storageListedMsg) Failed() error { return m.err }

type storageDoneMsg struct {
	what string
	err  error
}

func (m storageDoneMsg) Failed() error { return m.err }

type clearTokenMsg struct {
	tok client.ClearToken
	err error
}

func (m clearTokenMsg) Failed() error { return m.err }

type transferMsg struct {
	id          int
	done, total int64
	finished    bool
	result      string
	err         error
	next        <-chan transferMsg
}

func (m transferMsg) Failed() error { return m.err }

type completionMsg struct {
	input string
	value string
}

func (s *Model) refresh() tea.Cmd {
	s.loading = true
	c, folder, opt := s.ctx.Client, s.folder, s.listOpt
	return s.ctx.Task("listing files", func(ctx context.Context) tea.Msg {
		m := storageListedMsg{folder: folder}
		if folder == "" {
			if m.folders, m.err = c.Storage.Folders(ctx); m.err != nil {
				return m
			}
		}
		if m.files, m.err = c.Storage.List(ctx, folder, opt); m.err != nil {
			return m
		}
		m.total, m.err = c.Storage.TotalSize(ctx)
		return m
	})
}

func (s *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case storageListedMsg:
		if msg.folder != s.folder {
			return s, nil
		}
		s.loading = false
		if msg.err != nil {
			s.errText = common.Describe(msg.err)
			return s, nil
		}
		s.loaded, s.errText = true, ""
		s.fill(msg)
		return s, nil
	case storageDoneMsg:
		if msg.err != nil {
			return s, common.ToastErr(msg.what + ": " + common.Describe(msg.err))
		}
		return s, tea.Batch(common.Toast(msg.what), s.refresh())
	case clearTokenMsg:
		if msg.err != nil {
			return s, common.ToastErr("clear: " + common.Describe(msg.err))
		}
		s.clearTok = msg.tok.Token
		s.ask(fmt.Sprintf("Second confirmation: really delete EVERY file and folder (%s)? This cannot be undone. [y/N]",
			common.HumanSize(s.total)), s.clearNow)
		return s, nil
	case transferMsg:
		return s, s.transferred(msg)
	case completionMsg:
		if (s.prompt == promptUpload || s.prompt == promptDownload) && s.input.Value() == msg.input {
			s.input.SetValue(msg.value)
			s.input.CursorEnd()
		}
		return s, nil
	case tea.KeyMsg:
		return s, s.key(msg)
	}
	return s, nil
}

func (s *Model) fill(m storageListedMsg) {
	s.total = m.total
	s.entries = map[string]storageEntry{}
	var rows []components.Row
	sort.Strings(m.folders)
	for _, f := range m.folders {
		e := storageEntry{folder: true, name: f}
		s.entries["d:"+f] = e
		rows = append(rows, components.Row{Key: "d:" + f, Text: s.rowText(e)})
	}
	sort.Slice(m.files, func(i, j int) bool { return m.files[i].Name < m.files[j].Name })
	for _, f := range m.files {
		e := storageEntry{name: f.Name, size: f.Size, mod: time.UnixMilli(f.LastModified)}
		s.entries["f:"+f.Name] = e
		rows = append(rows, components.Row{Key: "f:" + f.Name, Text: s.rowText(e)})
	}
	s.list.SetRows(rows)
}

func (s *Model) rowText(e storageEntry) string {
	if e.folder {
		return "▸ " + common.OneLine(e.name) + "/"
	}
	name := common.OneLine(e.name)
	meta := fmt.Sprintf("%10s  %s", common.HumanSize(e.size), e.mod.In(s.ctx.Now().Location()).Format("2006-01-02 15:04"))
	return fmt.Sprintf("  %-*s %s", max(s.listWidth()-len(meta)-6, 12), name, meta)
}

func (s *Model) listWidth() int {
	if s.detailShown() {
		return s.width - components.DetailWidth - 1
	}
	return max(s.width, 40)
}

func (s *Model) ask(question string, yes func() tea.Cmd) {
	s.confirm.Ask(question, yes, func() { s.clearTok = "" })
}

func (s *Model) key(msg tea.KeyMsg) tea.Cmd {
	if s.confirm.Active() {
		return s.confirm.Update(msg)
	}
	if s.prompt != promptNone {
		return s.promptKey(msg)
	}
	if used, cmd := s.list.Update(msg); used {
		return cmd
	}
	cur := s.list.Current()
	switch {
	case key.Matches(msg, s.keys.Refresh):
		return s.refresh()
	case key.Matches(msg, s.keys.Open):
		if cur != nil && strings.HasPrefix(cur.Key, "d:") {
			return s.enter(strings.TrimPrefix(cur.Key, "d:"))
		}
		if cur != nil {
			return s.askDestination([]storageEntry{s.entries[cur.Key]})
		}
	case key.Matches(msg, s.keys.Back):
		if s.folder != "" {
			return s.enter("")
		}
		if msg.String() == "esc" {
			return common.GoBack
		}
	case key.Matches(msg, s.keys.Download):
		var files []storageEntry
		for _, r := range s.list.Selection() {
			if e := s.entries[r.Key]; !e.folder {
				files = append(files, e)
			}
		}
		return s.askDestination(files)
	case key.Matches(msg, s.keys.Upload):
		s.prompt = promptUpload
		s.input.Prompt = "upload local file: "
		s.input.SetValue("")
		return s.input.Focus()
	case key.Matches(msg, s.keys.ListFilter):
		s.prompt = promptListFilter
		s.input.Prompt = "list only: "
		s.input.Placeholder = "prefix=rep suffix=.csv min=1KiB max=10MiB since=2026-01-31 until=2026-12-31 (empty: all)"
		s.input.SetValue(s.listText)
		s.input.CursorEnd()
		return s.input.Focus()
	case key.Matches(msg, s.keys.Mkdir):
		if s.folder != "" {
			return common.ToastErr("folders live at the top level: press ⌫ first")
		}
		s.prompt = promptMkdir
		s.input.Prompt = "new folder name: "
		s.input.SetValue("")
		return s.input.Focus()
	case key.Matches(msg, s.keys.Delete):
		return s.confirmDelete()
	case key.Matches(msg, s.keys.Clear):
		c := s.ctx.Client
		s.ask(fmt.Sprintf("Delete EVERY file and folder of this workspace (%s in total)? [y/N]", common.HumanSize(s.total)), func() tea.Cmd {
			return s.ctx.Task("asking to clear", func(ctx context.Context) tea.Msg {
				tok, err := c.Storage.RequestClear(ctx)
				return clearTokenMsg{tok: tok, err: err}
			})
		})
	}
	return nil
}

func (s *Model) enter(folder string) tea.Cmd {
	s.folder = folder
	s.setEmpty()
	s.list.Reset()
	s.loaded = false
	return s.refresh()
}

// confirmDelete names exactly what goes before anything is deleted.
func (s *Model) confirmDelete() tea.Cmd {
	sel := s.list.Selection()
	if len(sel) == 0 {
		return nil
	}
	var folders, files []string
	for _, r := range sel {
		e := s.entries[r.Key]
		if e.folder {
			folders = append(folders, e.name)
		} else {
			files = append(files, e.name)
		}
	}
	var parts []string
	if len(folders) > 0 {
		parts = append(parts, fmt.Sprintf("folder%s %s (with all their files)", common.Plural(len(folders)), listNames(folders)))
	}
	if len(files) > 0 {
		where := "the top level"
		if s.folder != "" {
			where = s.folder + "/"
		}
		parts = append(parts, fmt.Sprintf("file%s %s from %s", common.Plural(len(files)), listNames(files), where))
	}
	c, folder := s.ctx.Client, s.folder
	s.ask("Delete "+strings.Join(parts, " and ")+"? [y/N]", func() tea.Cmd {
		return s.ctx.Task("deleting", func(ctx context.Context) tea.Msg {
			for _, f := range folders {
				if err := c.Storage.DeleteFolder(ctx, f); err != nil {
					return storageDoneMsg{what: "delete folder " + f, err: err}
				}
			}
			switch len(files) {
			case 0:
			case 1:
				if err := c.Storage.Delete(ctx, folder, files[0]); err != nil {
					return storageDoneMsg{what: "delete " + files[0], err: err}
				}
			default:
				if err := c.Storage.DeleteMany(ctx, folder, files); err != nil {
					return storageDoneMsg{what: "delete files", err: err}
				}
			}
			return storageDoneMsg{what: fmt.Sprintf("deleted %d item%s", len(folders)+len(files), common.Plural(len(folders)+len(files)))}
		})
	})
	return nil
}

// listNames quotes up to five names and counts the rest.
func listNames(names []string) string {
	var q []string
	for i, n := range names {
		if i == 5 {
			q = append(q, fmt.Sprintf("and %d more", len(names)-5))
			break
		}
		q = append(q, fmt.Sprintf("%q", common.OneLine(n)))
	}
	return strings.Join(q, ", ")
}

func (s *Model) clearNow() tea.Cmd {
	c, tok := s.ctx.Client, s.clearTok
	s.clearTok = ""
	return s.ctx.Task("clearing", func(ctx context.Context) tea.Msg {
		res, err := c.Storage.Clear(ctx, tok)
		return storageDoneMsg{what: fmt.Sprintf("cleared %d files and %d folders", res.Files, res.Folders), err: err}
	})
}

func (s *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		s.prompt, s.downloading = promptNone, nil
		s.input.Blur()
		return nil
	case "tab":
		if s.prompt == promptUpload || s.prompt == promptDownload {
			typed := s.input.Value()
			return func() tea.Msg { return completionMsg{input: typed, value: components.CompletePath(typed)} }
		}
		return nil
	case "enter":
		v := strings.TrimSpace(s.input.Value())
		kind := s.prompt
		s.prompt = promptNone
		s.input.Blur()
		if kind == promptListFilter {
			opt, err := parseListFilter(v, s.ctx.Now().Location())
			if err != nil {
				return common.ToastErr(err.Error())
			}
			s.listOpt, s.listText = opt, v
			return s.refresh()
		}
		if v == "" {
			return nil
		}
		if kind == promptDownload {
			return s.downloadTo(v)
		}
		if kind == promptMkdir {
			c := s.ctx.Client
			return s.ctx.Task("creating folder", func(ctx context.Context) tea.Msg {
				return storageDoneMsg{what: "created folder " + v, err: c.Storage.CreateFolder(ctx, v)}
			})
		}
		return s.upload(v)
	}
	if msg.Paste {
		msg.Runes = []rune(common.OneLine(string(msg.Runes)))
	}
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	return cmd
}

// tildeHome writes the home directory as "~" (shorter to read and edit).
func tildeHome(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && home != "/" {
		if p == home {
			return "~"
		}
		if strings.HasPrefix(p, home+string(filepath.Separator)) {
			return "~" + strings.TrimPrefix(p, home)
		}
	}
	return p
}

// streamTransfer records a transfer and returns the command that runs work
// in a goroutine, turning its progress into a chain of messages, one
// command per message.
func (s *Model) streamTransfer(name string, work func(ctx context.Context, progress client.Progress) (string, error)) tea.Cmd {
	s.nextID++
	id := s.nextID
	s.transfers[id] = &transfer{name: name, total: -1}
	s.SetSize(s.width, s.height)
	ctx := s.ctx.Context
	return func() tea.Msg {
		ch := make(chan transferMsg, 16)
		go func() {
			last := time.Time{}
			result, err := work(ctx, func(done, total int64) {
				if time.Since(last) < 50*time.Millisecond && done != total {
					return
				}
				last = time.Now()
				select {
				case ch <- transferMsg{id: id, done: done, total: total}:
				default: // the UI is behind; the next update carries the news
				}
			})
			ch <- transferMsg{id: id, finished: true, result: result, err: err}
			close(ch)
		}()
		return waitTransfer(id, ch)()
	}
}

func waitTransfer(id int, ch <-chan transferMsg) tea.Cmd {
	return func() tea.Msg {
		m, ok := <-ch
		if !ok {
			return nil
		}
		m.next = ch
		return m
	}
}

func (s *Model) transferred(m transferMsg) tea.Cmd {
	tr := s.transfers[m.id]
	if tr == nil {
		return nil
	}
	if !m.finished {
		tr.done, tr.total = m.done, m.total
		return waitTransfer(m.id, m.next)
	}
	delete(s.transfers, m.id)
	s.SetSize(s.width, s.height)
	if m.err != nil {
		return common.ToastErr(tr.name + ": " + common.Describe(m.err))
	}
	return tea.Batch(common.Toast(m.result), s.refresh())
}

// askDestination asks where the files go, offering the last place chosen
// (at first the download directory); nothing is written before enter.
func (s *Model) askDestination(files []storageEntry) tea.Cmd {
	if len(files) == 0 {
		return common.Toast("choose a file first: move to it with j/k (space selects several); folders are not downloaded")
	}
	s.downloading = files
	s.prompt = promptDownload
	what := common.OneLine(files[0].name)
	if len(files) > 1 {
		what = fmt.Sprintf("%d files", len(files))
	}
	s.input.Prompt = "save " + what + " in: "
	s.input.Placeholder = ""
	dir := s.lastDir
	if dir == "" {
		dir = s.ctx.DownloadDir
	}
	s.input.SetValue(tildeHome(dir) + string(filepath.Separator))
	s.input.CursorEnd()
	return s.input.Focus()
}

// downloadTo downloads the files asked about to dest: a directory (made if
// missing), or for one file a new file name. An existing file is never
// overwritten: "name (2)" is made beside it.
func (s *Model) downloadTo(dest string) tea.Cmd {
	files := s.downloading
	s.downloading = nil
	// A trailing slash says "a directory" (expanding ~ would drop it).
	isDir := strings.HasSuffix(dest, string(filepath.Separator)) || dest == "~"
	dest = components.ExpandHome(dest)
	dir, name := dest, ""
	if st, err := os.Stat(dest); len(files) == 1 && !isDir && (err != nil || !st.IsDir()) {
		dir, name = filepath.Dir(dest), filepath.Base(dest)
	}
	s.lastDir = dir
	var cmds []tea.Cmd
	for _, e := range files {
		n := name
		if n == "" {
			n = filepath.Base(e.name)
		}
		cmds = append(cmds, s.download(e, dir, n))
	}
	return tea.Batch(cmds...)
}

func (s *Model) download(e storageEntry, dir, name string) tea.Cmd {
	if e.folder || e.name == "" {
		return nil
	}
	c, folder := s.ctx.Client, s.folder
	return s.streamTransfer("download "+e.name, func(ctx context.Context, progress client.Progress) (string, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		dest, f, err := createFresh(dir, name)
		if err != nil {
			return "", err
		}
		n, err := c.Storage.Download(ctx, folder, e.name, f, progress)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dest)
			return "", err
		}
		return fmt.Sprintf("downloaded %s (%s) to %s", e.name, common.HumanSize(n), dest), nil
	})
}

// createFresh creates dir/name, or "name (2)" and so on when it exists,
// so a download never overwrites a local file.
func createFresh(dir, name string) (string, *os.File, error) {
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 1; i < 1000; i++ {
		candidate := name
		if i > 1 {
			candidate = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		p := filepath.Join(dir, candidate)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		return p, f, err
	}
	return "", nil, fmt.Errorf("too many copies of %s in %s", name, dir)
}

func (s *Model) upload(path string) tea.Cmd {
	path = components.ExpandHome(path)
	c, folder := s.ctx.Client, s.folder
	return s.streamTransfer("upload "+filepath.Base(path), func(ctx context.Context, progress client.Progress) (string, error) {
		f, err := os.Open(path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", fmt.Errorf("%s does not exist", path)
			}
			return "", err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return "", err
		}
		if st.IsDir() {
			return "", fmt.Errorf("%s is a directory; choose a file", path)
		}
		name := filepath.Base(path)
		if _, err := c.Storage.Upload(ctx, folder, name, io.Reader(f), st.Size(), progress); err != nil {
			return "", err
		}
		where := folder
		if where == "" {
			where = "the top level"
		}
		return fmt.Sprintf("uploaded %s (%s) to %s", name, common.HumanSize(st.Size()), where), nil
	})
}

func (s *Model) View() string {
	t := s.ctx.Theme
	loc := "/"
	if s.folder != "" {
		loc = "/" + s.folder + "/"
	}
	head := fmt.Sprintf("%s  %d entr%s  %s in the workspace", loc, s.list.Len(), map[bool]string{true: "y", false: "ies"}[s.list.Len() == 1], common.HumanSize(s.total))
	if n := s.list.SelectedCount(); n > 0 {
		head += fmt.Sprintf("  %d selected", n)
	}
	if s.listText != "" {
		head += "  only " + s.listText
	}
	if s.loading && !s.loaded {
		head += "  loading…"
	}
	out := []string{t.Header.Render(common.AnsiFit(head, s.width))}
	body := s.list.View()
	if s.errText != "" && !s.loaded {
		body = t.Error.Render(common.AnsiFit(s.errText, s.width)) + "\n" + t.Muted.Render("press r to try again")
	}
	if s.detailShown() {
		body = lipgloss.JoinHorizontal(lipgloss.Top,
			lipgloss.NewStyle().Width(s.listWidth()).Render(body), " ", s.detail())
	}
	out = append(out, body)
	ids := make([]int, 0, len(s.transfers))
	for id := range s.transfers {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		tr := s.transfers[id]
		pct := 0.0
		if tr.total > 0 {
			pct = float64(tr.done) / float64(tr.total)
		}
		out = append(out, common.AnsiFit(fmt.Sprintf("%s %3.0f%% %s", components.ProgressBar(pct, 20), pct*100, tr.name), s.width))
	}
	switch {
	case s.confirm.Active():
		out = append(out, s.confirm.View(t, s.width))
	case s.prompt != promptNone:
		hint := ""
		if s.prompt == promptUpload || s.prompt == promptDownload {
			hint = t.Muted.Render("  tab completes, esc cancels")
		}
		// The field leaves room for its hint, so both stay on one line.
		in := s.input
		in.Width = max(s.width-common.CellWidth(in.Prompt)-common.CellWidth(hint)-2, 10)
		out = append(out, in.View()+hint)
	}
	return strings.Join(out, "\n")
}

func (s *Model) detail() string {
	t := s.ctx.Theme
	cur := s.list.Current()
	var lines []string
	if cur == nil {
		lines = []string{t.Muted.Render("nothing here yet: press u to upload a file")}
	} else if e := s.entries[cur.Key]; e.folder {
		lines = []string{t.Header.Render("Folder"), common.OneLine(e.name), "", t.Muted.Render("enter opens it, x deletes it")}
	} else {
		lines = []string{t.Header.Render("File"), common.OneLine(e.name), "",
			"size      " + common.HumanSize(e.size) + " (" + common.Itoa(e.size) + " B)",
			"modified  " + e.mod.In(s.ctx.Now().Location()).Format("2006-01-02 15:04:05"),
			"folder    " + map[bool]string{true: "(top level)", false: s.folder}[s.folder == ""],
			""}
		lines = append(lines, t.Muted.Render("d downloads it (asks where)"))
	}
	// The pane's lines stay inside it: long names wrap at its width.
	var fitted []string
	for _, l := range lines {
		fitted = append(fitted, common.Wrap(l, components.DetailWidth-2)...)
	}
	return t.Border.Render("│") + " " + strings.Join(fitted, "\n"+t.Border.Render("│")+" ")
}

// parseListFilter reads "prefix=a suffix=.csv min=1KiB max=2MiB
// since=2026-01-02 until=2026-02-01" into listing options; dates are
// local days (until includes its whole day).
func parseListFilter(v string, loc *time.Location) (client.ListOptions, error) {
	var opt client.ListOptions
	for _, w := range strings.Fields(v) {
		k, val, ok := strings.Cut(w, "=")
		if !ok || val == "" {
			return opt, fmt.Errorf("%q: write key=value (prefix, suffix, min, max, since, until)", w)
		}
		switch k {
		case "prefix":
			opt.Prefix = val
		case "suffix":
			opt.Suffix = val
		case "min", "max":
			n, err := parseSize(val)
			if err != nil {
				return opt, err
			}
			if k == "min" {
				opt.MinSize = &n
			} else {
				opt.MaxSize = &n
			}
		case "since", "until":
			d, err := time.ParseInLocation("2006-01-02", val, loc)
			if err != nil {
				return opt, fmt.Errorf("%s=%s: write a date like 2026-01-31", k, val)
			}
			ms := d.UnixMilli()
			if k == "since" {
				opt.From = &ms
			} else {
				ms = d.AddDate(0, 0, 1).UnixMilli() - 1
				opt.To = &ms
			}
		default:
			return opt, fmt.Errorf("unknown filter %q: use prefix, suffix, min, max, since or until", k)
		}
	}
	return opt, nil
}

// parseSize reads 1234, 10KiB, 2.5MiB, 1GiB (or KB/MB/GB, taken as binary).
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := 1.0
	num := s
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			num, mult = s[:len(s)-len(u.suffix)], u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f*mult > 1<<62 {
		return 0, fmt.Errorf("size %q: write a number with an optional unit, e.g. 10KiB", s)
	}
	return int64(f * mult), nil
}
