package recomm

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/client/recommimport"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
)

// importFolder is the storage folder local files go to before their import (as hark recomm
// import does).
const importFolder = "imports"

// movieLensTable is the table a MovieLens directory is loaded into.
const movieLensTable = "movies"

// job is work that runs on the platform after the screen started it: the sample catalog, an
// import or a training; it has parts (imports, trainings) watched until each ends.
type job struct {
	label   string
	next    string          // what to do once it ended well
	upload  *uploadProgress // while a local file goes to storage
	parts   []*jobPart
	summary string
	failed  bool
	ended   bool
}

type jobPart struct {
	what     string // "users", "items", "interactions" or "training"
	table    string
	id       string
	kind     client.ImportKind
	training bool
	status   string
	message  string
	added    int
	notAdded int
	reasons  map[string]int
	first    string
}

func (p *jobPart) ended() bool { return client.StatusEnded(p.status) }

type jobStartedMsg struct {
	job *job
	err error
}

func (m jobStartedMsg) Failed() error { return m.err }

type jobPollMsg struct{ job *job }

// jobStatusMsg carries the statuses of a job's parts, in order (nil for a part not asked).
type jobStatusMsg struct {
	job   *job
	parts []*jobPart
	err   error
}

func (r *Model) jobStarted(msg jobStartedMsg) tea.Cmd {
	if msg.err != nil {
		return common.ToastErr(common.Describe(msg.err))
	}
	r.jobs = append(r.jobs, msg.job)
	r.SetSize(r.width, r.height)
	if msg.job.upload != nil {
		return r.uploadTick(msg.job)
	}
	return tea.Batch(r.reload(), r.pollJob(msg.job))
}

func (r *Model) poll(j *job) tea.Cmd {
	return tea.Tick(300*time.Millisecond, func(time.Time) tea.Msg { return jobPollMsg{job: j} })
}

// pollJob reads the status of the parts not ended yet.
func (r *Model) pollJob(j *job) tea.Cmd {
	rc := r.ctx.Client.Recomm
	var ask []jobPart
	for _, p := range j.parts {
		ask = append(ask, *p)
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(r.ctx.Context, 30*time.Second)
		defer cancel()
		m := jobStatusMsg{job: j}
		for i := range ask {
			p := &ask[i]
			if p.ended() {
				m.parts = append(m.parts, nil)
				continue
			}
			if p.training {
				s, err := rc.TrainStatus(ctx, p.table, p.id)
				if err != nil {
					m.err = err
					return m
				}
				p.status, p.message = s.Status, s.Message
			} else {
				s, err := rc.ImportStatus(ctx, p.kind, p.table, p.id)
				if err != nil {
					m.err = err
					return m
				}
				p.status, p.message, p.added, p.notAdded = s.Status, s.Message, s.Added, s.NotAddedCount
				p.reasons = map[string]int{}
				for _, e := range s.NotAdded() {
					p.reasons[e.Code]++
					if p.first == "" {
						p.first = e.ErrorID + ": " + e.Message
					}
				}
				if p.notAdded == 0 {
					p.notAdded = len(s.NotAdded())
				}
			}
			m.parts = append(m.parts, p)
		}
		return m
	}
}

func (r *Model) jobStatus(msg jobStatusMsg) tea.Cmd {
	j := msg.job
	if msg.err != nil {
		j.ended, j.failed, j.summary = true, true, common.Describe(msg.err)
		return common.ToastErr(j.label + ": " + j.summary)
	}
	for i, p := range msg.parts {
		if p != nil {
			*j.parts[i] = *p
		}
	}
	for _, p := range j.parts {
		if !p.ended() {
			return r.poll(j)
		}
	}
	j.ended = true
	var parts []string
	for _, p := range j.parts {
		if p.status == client.StatusError {
			j.failed = true
		}
		parts = append(parts, p.outcome())
	}
	j.summary = strings.Join(parts, "; ")
	text := j.label + " done: " + j.summary
	if j.next != "" {
		text = j.label + " done: " + j.next
	}
	if j.failed {
		text = j.label + " failed: " + j.summary
	}
	return tea.Batch(func() tea.Msg { return common.ToastMsg{Text: text, Err: j.failed} }, r.reload())
}

// outcome is one part's ending in words, with the true counts of an import.
func (p *jobPart) outcome() string {
	if p.training {
		s := p.table + " trained"
		if p.status != client.StatusCompleted {
			s = p.table + " training " + strings.ReplaceAll(p.status, "_", " ")
		}
		if p.message != "" {
			s += " (" + p.message + ")"
		}
		return s
	}
	if p.status == client.StatusError {
		return fmt.Sprintf("%s import failed: %s", p.what, p.message)
	}
	s := fmt.Sprintf("%d %s added", p.added, p.what)
	if p.notAdded > 0 {
		var rs []string
		for code, n := range p.reasons {
			rs = append(rs, fmt.Sprintf("%d %s", n, strings.TrimSuffix(code, "Exception")))
		}
		sort.Strings(rs)
		s += fmt.Sprintf(", %d not added (%s; first %s)", p.notAdded, strings.Join(rs, ", "), p.first)
	}
	return s
}

// jobLines are the last jobs under the list: a progress bar over their parts while they run,
// their outcome once they ended.
func (r *Model) jobLines() []string {
	t := r.ctx.Theme
	var out []string
	for _, j := range r.jobs[max(len(r.jobs)-3, 0):] {
		var line string
		switch {
		case j.ended:
			line = j.label + ": " + j.summary
		case j.upload != nil:
			done, total := j.upload.done.Load(), j.upload.total.Load()
			line = fmt.Sprintf("%s uploading %s %s of %s", j.label, components.ProgressBar(float64(done)/float64(max(total, 1)), 12),
				common.HumanSize(done), common.HumanSize(total))
		default:
			done, current := 0, ""
			for _, p := range j.parts {
				if p.ended() {
					done++
				} else if current == "" {
					current = p.what + " " + p.table + " " + strings.ReplaceAll(p.status, "_", " ")
				}
			}
			line = fmt.Sprintf("%s %s %d of %d · %s", j.label, components.ProgressBar(float64(done)/float64(max(len(j.parts), 1)), 12), done, len(j.parts), current)
		}
		style := t.Muted
		if j.failed {
			style = t.Error
		}
		out = append(out, style.Render(common.AnsiFit(common.OneLine(line), r.width)))
	}
	return out
}

// loadSample loads the sample catalog and watches the trainings it queued.
func (r *Model) loadSample() tea.Cmd {
	rc := r.ctx.Client.Recomm
	return r.ctx.Task("loading the sample catalog", func(ctx context.Context) tea.Msg {
		sum, err := rc.LoadSample(ctx)
		if client.IsCode(err, "EntityAlreadyExists") {
			return jobStartedMsg{err: fmt.Errorf("the sample catalog is loaded already: open one of the sandbox- tables")}
		}
		if err != nil {
			return jobStartedMsg{err: err}
		}
		j := &job{label: fmt.Sprintf("sample catalog (%d tables, %d users)", len(sum.Tables), sum.Users),
			next: "open sandbox-movies, rate a few films with 1-5, then tab to For you"}
		for _, t := range sum.Tables {
			j.parts = append(j.parts, &jobPart{what: "training", table: t.TableID, id: t.TrainRequestID, training: true, status: client.StatusQueued})
		}
		return jobStartedMsg{job: j}
	})
}

// train trains the table's engine and watches the training.
func (r *Model) train() tea.Cmd {
	rc, table, engine := r.ctx.Client.Recomm, r.table, r.info.engine
	if engine == "" || engine == client.EngineEnsemble {
		engine = client.EngineHybrid
	}
	return r.ctx.Task("starting a training", func(ctx context.Context) tea.Msg {
		tj, err := rc.Train(ctx, table, client.TrainRequest{Engine: engine})
		return jobStartedMsg{job: &job{label: engine + " training of " + table,
			parts: []*jobPart{{what: "training", table: table, id: tj.RequestID, training: true, status: tj.Status}}}, err: err}
	})
}

// importFile uploads a local file to storage and imports it into the table; the job shows the
// upload's progress, then the import's.
func (r *Model) importFile(kind client.ImportKind, path string) tea.Cmd {
	c, table := r.ctx.Client, r.table
	path = components.ExpandHome(path)
	name := filepath.Base(path)
	j := &job{label: "import of " + name, upload: &uploadProgress{}}
	up := j.upload
	return tea.Batch(func() tea.Msg { return jobStartedMsg{job: j} }, r.ctx.Task("uploading "+name, func(ctx context.Context) tea.Msg {
		fail := func(err error) tea.Msg { return jobUploadedMsg{job: j, err: err} }
		f, err := os.Open(path)
		if err != nil {
			return fail(err)
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return fail(err)
		}
		if info.IsDir() {
			return fail(fmt.Errorf("%s is a directory: choose a CSV or JSON file", path))
		}
		up.total.Store(info.Size())
		if err := c.Storage.CreateFolder(ctx, importFolder); err != nil && !client.IsCode(err, "EntityAlreadyExists") {
			return fail(err)
		}
		if _, err := c.Storage.Upload(ctx, importFolder, name, f, info.Size(), func(done, _ int64) { up.done.Store(done) }); err != nil {
			return fail(fmt.Errorf("upload %s: %w", name, err))
		}
		format := client.FormatCSV
		if strings.EqualFold(filepath.Ext(name), ".json") {
			format = client.FormatJSON
		}
		p, err := startImport(ctx, c.Recomm, kind, table, "storage://"+importFolder+"/"+name, format)
		return jobUploadedMsg{job: j, part: p, err: err}
	}))
}

// uploadProgress is written by the upload's command and read when the screen is drawn.
type uploadProgress struct{ done, total atomic.Int64 }

type jobUploadedMsg struct {
	job  *job
	part *jobPart
	err  error
}

func (m jobUploadedMsg) Failed() error { return m.err }

type uploadTickMsg struct{ job *job }

func (r *Model) uploadTick(j *job) tea.Cmd {
	return tea.Tick(200*time.Millisecond, func(time.Time) tea.Msg { return uploadTickMsg{job: j} })
}

func (r *Model) jobUploaded(msg jobUploadedMsg) tea.Cmd {
	j := msg.job
	j.upload = nil
	if msg.err != nil {
		j.ended, j.failed, j.summary = true, true, common.Describe(msg.err)
		return common.ToastErr(j.label + " failed: " + j.summary)
	}
	j.parts = []*jobPart{msg.part}
	return r.pollJob(j)
}

func startImport(ctx context.Context, rc *client.RecommService, kind client.ImportKind, table, url, format string) (*jobPart, error) {
	req := client.ImportRequest{URL: url, Format: format}
	var j client.ImportJob
	var err error
	switch kind {
	case client.ImportItems:
		j, err = rc.ImportItems(ctx, table, req)
	case client.ImportUsers:
		j, err = rc.ImportUsers(ctx, req)
	default:
		j, err = rc.ImportInteractions(ctx, table, req)
	}
	return &jobPart{what: kind.String(), table: table, id: j.RequestID, kind: kind, status: j.Status}, err
}

// importMovieLens loads a MovieLens directory into the movies table, as hark recomm import
// movielens does: the table and its rating type when missing, users, movies and ratings, then a
// hybrid training.
func (r *Model) importMovieLens(dir string) tea.Cmd {
	c := r.ctx.Client
	dir = components.ExpandHome(dir)
	return r.ctx.Task("reading MovieLens", func(ctx context.Context) tea.Msg {
		ml, err := recommimport.Open(dir)
		if err != nil {
			return jobStartedMsg{err: err}
		}
		if _, err := recommimport.EnsureTable(ctx, c.Recomm, movieLensTable, ml.HasTags()); err != nil {
			return jobStartedMsg{err: err}
		}
		if err := c.Storage.CreateFolder(ctx, importFolder); err != nil && !client.IsCode(err, "EntityAlreadyExists") {
			return jobStartedMsg{err: err}
		}
		j := &job{label: "MovieLens into " + movieLensTable, next: "open " + movieLensTable + " and rate a few films with 1-5"}
		// jobs of a workspace start in the order they were accepted: users and movies before
		// the ratings that name them, the training last
		for _, s := range ml.Steps() {
			body := recommimport.Generate(s.Fill)
			_, err := c.Storage.Upload(ctx, importFolder, s.Name, body, -1, nil)
			body.Close()
			if err != nil {
				return jobStartedMsg{err: fmt.Errorf("upload %s: %w", s.Name, err)}
			}
			p, err := startImport(ctx, c.Recomm, s.Kind, movieLensTable, "storage://"+importFolder+"/"+s.Name, client.FormatCSV)
			if err != nil {
				return jobStartedMsg{err: err}
			}
			p.what = map[client.ImportKind]string{client.ImportUsers: "users", client.ImportItems: "movies", client.ImportInteractions: "ratings"}[s.Kind]
			j.parts = append(j.parts, p)
		}
		tj, err := c.Recomm.Train(ctx, movieLensTable, client.TrainRequest{Engine: client.EngineHybrid})
		if err != nil {
			return jobStartedMsg{err: err}
		}
		j.parts = append(j.parts, &jobPart{what: "training", table: movieLensTable, id: tj.RequestID, training: true, status: tj.Status})
		return jobStartedMsg{job: j}
	})
}
