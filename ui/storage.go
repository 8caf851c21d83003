package ui

import (
	"context"
	"errors"
	"fmt"
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
	Open, Back, Refresh, Upload, Download, Mkdir, Delete, Clear, ListFilter, Yes, No key.Binding
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
)

// transfer is a download or upload in flight.
type transfer struct {
	name        string
	done, total int64
}

// storage browses the workspace's files: folders at the top level, files
// inside them (and root files beside the folders).
type storage struct {
	ctx     *programContext
	keys    storageKeys
	list    rowList
	folder  string // "" is the top level
	entries map[string]storageEntry
	total   int64
	loaded  bool
	loading bool
	errText string

	prompt   storagePrompt
	input    textinput.Model
	confirm  string // the question being asked, "" when none
	onYes    func() tea.Cmd
	clearTok string
	// listOpt and listText are the server-side listing filter.
	listOpt  client.ListOptions
	listText string

	transfers map[int]*transfer
	nextID    int
	width     int
	height    int
}

func newStorage(pc *programContext) *storage {
	in := newInput(pc)
	in.CharLimit = 4096
	return &storage{ctx: pc, list: newRowList(pc), entries: map[string]storageEntry{}, input: in,
		transfers: map[int]*transfer{}, keys: storageKeys{
			Open:       key.NewBinding(key.WithKeys("enter", "right", "l"), key.WithHelp("enter", "open")),
			Back:       key.NewBinding(key.WithKeys("backspace", "left", "h"), key.WithHelp("⌫", "up")),
			Refresh:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
			Upload:     key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "upload")),
			Download:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "download")),
			Mkdir:      key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "new folder")),
			Delete:     key.NewBinding(key.WithKeys("x", "delete"), key.WithHelp("x", "delete")),
			Clear:      key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "clear all")),
			ListFilter: key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "server filter")),
			Yes:        key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "yes")),
			No:         key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n/esc", "no")),
		}}
}

func (s *storage) Init() tea.Cmd {
	if s.loaded || s.loading {
		return nil
	}
	return s.refresh()
}

func (s *storage) SetSize(w, h int) {
	s.width, s.height = w, h
	lw := w
	if s.detailShown() {
		lw = w - detailWidth - 1
	}
	s.list.SetSize(lw, h-3-len(s.transfers))
	s.input.Width = max(w-20, 10)
}

const detailWidth = 34

// detailShown: the detail pane collapses on narrow terminals.
func (s *storage) detailShown() bool { return s.width >= 100 }

func (s *storage) Typing() bool { return s.prompt != promptNone || s.list.Filtering() }

func (s *storage) ShortHelp() []key.Binding {
	if s.confirm != "" {
		return []key.Binding{s.keys.Yes, s.keys.No}
	}
	return []key.Binding{s.keys.Open, s.keys.Upload, s.keys.Download, s.keys.Delete, s.list.keys.Filter}
}

func (s *storage) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{s.keys.Open, s.keys.Back, s.keys.Refresh, s.list.keys.Up, s.list.keys.PageUp},
		{s.keys.Upload, s.keys.Download, s.keys.Mkdir, s.keys.Delete, s.keys.Clear},
		{s.list.keys.Select, s.list.keys.Filter, s.list.keys.ClearFilter, s.keys.ListFilter},
	}
}

type storageListedMsg struct {
	folder  string
	folders []string
	files   []client.FileEntry
	total   int64
	err     error
}

func (m storageListedMsg) failed() error { return m.err }

type storageDoneMsg struct {
	what string
	err  error
}

func (m storageDoneMsg) failed() error { return m.err }

type clearTokenMsg struct {
	tok client.ClearToken
	err error
}

func (m clearTokenMsg) failed() error { return m.err }

type transferMsg struct {
	id          int
	done, total int64
	finished    bool
	result      string
	err         error
	next        <-chan transferMsg
}

func (m transferMsg) failed() error { return m.err }

type completionMsg struct {
	input string
	value string
}

func (s *storage) refresh() tea.Cmd {
	s.loading = true
	c, folder, opt := s.ctx.Client, s.folder, s.listOpt
	return s.ctx.task("listing files", func(ctx context.Context) tea.Msg {
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

func (s *storage) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case storageListedMsg:
		if msg.folder != s.folder {
			return s, nil
		}
		s.loading = false
		if msg.err != nil {
			s.errText = describe(msg.err)
			return s, nil
		}
		s.loaded, s.errText = true, ""
		s.fill(msg)
		return s, nil
	case storageDoneMsg:
		if msg.err != nil {
			return s, toastErr(msg.what + ": " + describe(msg.err))
		}
		return s, tea.Batch(toast(msg.what), s.refresh())
	case clearTokenMsg:
		if msg.err != nil {
			return s, toastErr("clear: " + describe(msg.err))
		}
		s.clearTok = msg.tok.Token
		s.ask(fmt.Sprintf("Second confirmation: really delete EVERY file and folder (%s)? This cannot be undone. [y/N]",
			humanSize(s.total)), s.clearNow)
		return s, nil
	case transferMsg:
		return s, s.transferred(msg)
	case completionMsg:
		if s.prompt == promptUpload && s.input.Value() == msg.input {
			s.input.SetValue(msg.value)
			s.input.CursorEnd()
		}
		return s, nil
	case tea.KeyMsg:
		return s, s.key(msg)
	}
	return s, nil
}

func toastErr(text string) tea.Cmd { return func() tea.Msg { return toastMsg{text: text, err: true} } }

func (s *storage) fill(m storageListedMsg) {
	s.total = m.total
	s.entries = map[string]storageEntry{}
	var rows []listRow
	sort.Strings(m.folders)
	for _, f := range m.folders {
		e := storageEntry{folder: true, name: f}
		s.entries["d:"+f] = e
		rows = append(rows, listRow{Key: "d:" + f, Text: s.rowText(e)})
	}
	sort.Slice(m.files, func(i, j int) bool { return m.files[i].Name < m.files[j].Name })
	for _, f := range m.files {
		e := storageEntry{name: f.Name, size: f.Size, mod: time.UnixMilli(f.LastModified)}
		s.entries["f:"+f.Name] = e
		rows = append(rows, listRow{Key: "f:" + f.Name, Text: s.rowText(e)})
	}
	s.list.SetRows(rows)
}

func (s *storage) rowText(e storageEntry) string {
	if e.folder {
		return "▸ " + oneLine(e.name) + "/"
	}
	name := oneLine(e.name)
	meta := fmt.Sprintf("%10s  %s", humanSize(e.size), e.mod.In(s.ctx.now().Location()).Format("2006-01-02 15:04"))
	return fmt.Sprintf("  %-*s %s", max(s.listWidth()-len(meta)-6, 12), name, meta)
}

func (s *storage) listWidth() int {
	if s.detailShown() {
		return s.width - detailWidth - 1
	}
	return max(s.width, 40)
}

func (s *storage) ask(question string, yes func() tea.Cmd) {
	s.confirm, s.onYes = question, yes
}

func (s *storage) key(msg tea.KeyMsg) tea.Cmd {
	if s.confirm != "" {
		switch {
		case key.Matches(msg, s.keys.Yes):
			yes := s.onYes
			s.confirm, s.onYes = "", nil
			return yes()
		case key.Matches(msg, s.keys.No), msg.String() == "enter":
			s.confirm, s.onYes, s.clearTok = "", nil, ""
			return toast("cancelled")
		}
		return nil
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
			return s.download(s.entries[cur.Key])
		}
	case key.Matches(msg, s.keys.Back):
		if s.folder != "" {
			return s.enter("")
		}
	case key.Matches(msg, s.keys.Download):
		var cmds []tea.Cmd
		for _, r := range s.list.Selection() {
			if e := s.entries[r.Key]; !e.folder {
				cmds = append(cmds, s.download(e))
			}
		}
		return tea.Batch(cmds...)
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
			return toastErr("folders live at the top level: press ⌫ first")
		}
		s.prompt = promptMkdir
		s.input.Prompt = "new folder name: "
		s.input.SetValue("")
		return s.input.Focus()
	case key.Matches(msg, s.keys.Delete):
		return s.confirmDelete()
	case key.Matches(msg, s.keys.Clear):
		c := s.ctx.Client
		s.ask(fmt.Sprintf("Delete EVERY file and folder of this workspace (%s in total)? [y/N]", humanSize(s.total)), func() tea.Cmd {
			return s.ctx.task("asking to clear", func(ctx context.Context) tea.Msg {
				tok, err := c.Storage.RequestClear(ctx)
				return clearTokenMsg{tok: tok, err: err}
			})
		})
	}
	return nil
}

func (s *storage) enter(folder string) tea.Cmd {
	s.folder = folder
	s.list.selected = map[string]bool{}
	s.list.cursor, s.list.offset = 0, 0
	s.list.SetRows(nil)
	s.loaded = false
	return s.refresh()
}

// confirmDelete names exactly what goes before anything is deleted.
func (s *storage) confirmDelete() tea.Cmd {
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
		parts = append(parts, fmt.Sprintf("folder%s %s (with all their files)", plural(len(folders)), listNames(folders)))
	}
	if len(files) > 0 {
		where := "the top level"
		if s.folder != "" {
			where = s.folder + "/"
		}
		parts = append(parts, fmt.Sprintf("file%s %s from %s", plural(len(files)), listNames(files), where))
	}
	c, folder := s.ctx.Client, s.folder
	s.ask("Delete "+strings.Join(parts, " and ")+"? [y/N]", func() tea.Cmd {
		return s.ctx.task("deleting", func(ctx context.Context) tea.Msg {
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
			return storageDoneMsg{what: fmt.Sprintf("deleted %d item%s", len(folders)+len(files), plural(len(folders)+len(files)))}
		})
	})
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// listNames quotes up to five names and counts the rest.
func listNames(names []string) string {
	var q []string
	for i, n := range names {
		if i == 5 {
			q = append(q, fmt.Sprintf("and %d more", len(names)-5))
			break
		}
		q = append(q, fmt.Sprintf("%q", oneLine(n)))
	}
	return strings.Join(q, ", ")
}

func (s *storage) clearNow() tea.Cmd {
	c, tok := s.ctx.Client, s.clearTok
	s.clearTok = ""
	return s.ctx.task("clearing", func(ctx context.Context) tea.Msg {
		res, err := c.Storage.Clear(ctx, tok)
		return storageDoneMsg{what: fmt.Sprintf("cleared %d files and %d folders", res.Files, res.Folders), err: err}
	})
}

func (s *storage) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		s.prompt = promptNone
		s.input.Blur()
		return nil
	case "tab":
		if s.prompt == promptUpload {
			typed := s.input.Value()
			return func() tea.Msg { return completionMsg{input: typed, value: completePath(typed)} }
		}
		return nil
	case "enter":
		v := strings.TrimSpace(s.input.Value())
		kind := s.prompt
		s.prompt = promptNone
		s.input.Blur()
		if kind == promptListFilter {
			opt, err := parseListFilter(v, s.ctx.now().Location())
			if err != nil {
				return toastErr(err.Error())
			}
			s.listOpt, s.listText = opt, v
			return s.refresh()
		}
		if v == "" {
			return nil
		}
		if kind == promptMkdir {
			c := s.ctx.Client
			return s.ctx.task("creating folder", func(ctx context.Context) tea.Msg {
				return storageDoneMsg{what: "created folder " + v, err: c.Storage.CreateFolder(ctx, v)}
			})
		}
		return s.upload(v)
	}
	if msg.Paste {
		msg.Runes = []rune(oneLine(string(msg.Runes)))
	}
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	return cmd
}

// completePath extends a local path to the longest unambiguous prefix of
// the directory's entries (a directory gets its trailing slash).
func completePath(typed string) string {
	expanded := typed
	if strings.HasPrefix(typed, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			expanded = filepath.Join(home, typed[2:])
		}
	}
	dir, prefix := filepath.Split(expanded)
	readDir := dir
	if readDir == "" {
		readDir = "."
	}
	ents, err := os.ReadDir(readDir)
	if err != nil {
		return typed
	}
	var matches []os.DirEntry
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), prefix) {
			matches = append(matches, e)
		}
	}
	if len(matches) == 0 {
		return typed
	}
	common := matches[0].Name()
	for _, m := range matches[1:] {
		for !strings.HasPrefix(m.Name(), common) {
			common = common[:len(common)-1]
		}
	}
	out := dir + common
	if len(matches) == 1 && matches[0].IsDir() {
		out += string(filepath.Separator)
	}
	if strings.HasPrefix(typed, "~/") && expanded != typed {
		if home, err := os.UserHomeDir(); err == nil {
			out = "~" + strings.TrimPrefix(out, home)
		}
	}
	return out
}

// streamTransfer records a transfer and returns the command that runs work
// in a goroutine, turning its progress into a chain of messages, one
// command per message.
func (s *storage) streamTransfer(name string, work func(ctx context.Context, progress client.Progress) (string, error)) tea.Cmd {
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

func (s *storage) transferred(m transferMsg) tea.Cmd {
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
		return toastErr(tr.name + ": " + describe(m.err))
	}
	return tea.Batch(toast(m.result), s.refresh())
}

func (s *storage) download(e storageEntry) tea.Cmd {
	if e.folder || e.name == "" {
		return nil
	}
	c, folder, dir := s.ctx.Client, s.folder, s.ctx.DownloadDir
	return s.streamTransfer("download "+e.name, func(ctx context.Context, progress client.Progress) (string, error) {
		dest, f, err := createFresh(dir, filepath.Base(e.name))
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
		return fmt.Sprintf("downloaded %s (%s) to %s", e.name, humanSize(n), dest), nil
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

func (s *storage) upload(path string) tea.Cmd {
	if strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[2:])
		}
	}
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
		return fmt.Sprintf("uploaded %s (%s) to %s", name, humanSize(st.Size()), where), nil
	})
}

func (s *storage) View() string {
	t := s.ctx.Theme
	loc := "/"
	if s.folder != "" {
		loc = "/" + s.folder + "/"
	}
	head := fmt.Sprintf("%s  %d entries  %s in the workspace", loc, len(s.list.rows), humanSize(s.total))
	if n := len(s.list.selected); n > 0 {
		head += fmt.Sprintf("  %d selected", n)
	}
	if s.listText != "" {
		head += "  only " + s.listText
	}
	if s.loading && !s.loaded {
		head += "  loading…"
	}
	out := []string{t.Header.Render(ansiFit(head, s.width))}
	body := s.list.View()
	if s.errText != "" && !s.loaded {
		body = t.Error.Render(ansiFit(s.errText, s.width)) + "\n" + t.Muted.Render("press r to try again")
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
		out = append(out, ansiFit(fmt.Sprintf("%s %3.0f%% %s", progressBar(pct, 20), pct*100, tr.name), s.width))
	}
	switch {
	case s.confirm != "":
		for _, l := range wrap(s.confirm, s.width) {
			out = append(out, t.Warn.Render(l))
		}
	case s.prompt != promptNone:
		hint := ""
		if s.prompt == promptUpload {
			hint = t.Muted.Render("  tab completes, esc cancels")
		}
		out = append(out, s.input.View()+hint)
	}
	return strings.Join(out, "\n")
}

func (s *storage) detail() string {
	t := s.ctx.Theme
	cur := s.list.Current()
	var lines []string
	if cur == nil {
		lines = []string{t.Muted.Render("nothing here yet: press u to upload")}
	} else if e := s.entries[cur.Key]; e.folder {
		lines = []string{t.Header.Render("Folder"), oneLine(e.name), "", t.Muted.Render("enter opens it, x deletes it")}
	} else {
		lines = []string{t.Header.Render("File"), oneLine(e.name), "",
			"size      " + humanSize(e.size) + " (" + itoa(e.size) + " B)",
			"modified  " + e.mod.In(s.ctx.now().Location()).Format("2006-01-02 15:04:05"),
			"folder    " + map[bool]string{true: "(top level)", false: s.folder}[s.folder == ""],
			"", t.Muted.Render("d downloads to " + s.ctx.DownloadDir)}
	}
	return t.Border.Render("│") + " " + strings.Join(lines, "\n"+t.Border.Render("│")+" ")
}

// progressBar draws a fraction as a bar of width cells.
func progressBar(frac float64, width int) string {
	n := int(frac*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return "[" + strings.Repeat("#", n) + strings.Repeat(".", width-n) + "]"
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
