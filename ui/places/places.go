package places

import (
	"context"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/components"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/harkhq/hark/client"
)

type placesKeys struct {
	Up, Down, Upload, Refresh key.Binding
}

// places uploads a city's tracking dataset, watches the job, and draws
// the detected places on a Braille map with their labels.
type Model struct {
	ctx     *common.Context
	keys    placesKeys
	city    int
	job     *client.TrackingJob
	pois    []client.Place
	loaded  bool
	loading bool
	errText string
	width   int
	height  int
}

func New(pc *common.Context) *Model {
	return &Model{ctx: pc, keys: placesKeys{
		Up:      common.WithHelp(common.Keys.Up, "↑/↓", "city"),
		Down:    common.Keys.Down,
		Upload:  key.NewBinding(key.WithKeys("enter", "u"), key.WithHelp("enter", "upload dataset")),
		Refresh: common.WithHelp(common.Keys.Refresh, "r", "refresh places"),
	}}
}

func (p *Model) Init() tea.Cmd {
	if p.loaded || p.loading {
		return nil
	}
	return p.refresh()
}

func (p *Model) SetSize(w, h int) { p.width, p.height = w, h }
func (p *Model) Typing() bool     { return false }
func (p *Model) InputEmpty() bool { return true }
func (p *Model) ShortHelp() []key.Binding {
	return []key.Binding{p.keys.Up, p.keys.Upload, p.keys.Refresh}
}
func (p *Model) FullHelp() [][]key.Binding { return [][]key.Binding{p.ShortHelp()} }

type poisMsg struct {
	pois []client.Place
	err  error
}

func (m poisMsg) Failed() error { return m.err }

type trackingJobMsg struct {
	job client.TrackingJob
	err error
}

func (m trackingJobMsg) Failed() error { return m.err }

type trackingPollMsg struct{ id string }

func (p *Model) refresh() tea.Cmd {
	p.loading = true
	c := p.ctx.Client
	return p.ctx.Task("loading places", func(ctx context.Context) tea.Msg {
		pois, err := c.Tracking.POIs(ctx)
		return poisMsg{pois: pois, err: err}
	})
}

func (p *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case poisMsg:
		p.loading = false
		if msg.err != nil {
			p.errText = common.Describe(msg.err)
			return p, nil
		}
		p.loaded, p.errText, p.pois = true, "", msg.pois
		return p, nil
	case trackingJobMsg:
		if msg.err != nil {
			p.errText = common.Describe(msg.err)
			return p, nil
		}
		job := msg.job
		p.job = &job
		switch job.Status {
		case "completed":
			return p, tea.Batch(common.Toast(fmt.Sprintf("dataset loaded: %d points, %d places", job.Points, job.Places)), p.refresh())
		case "error":
			return p, common.ToastErr("dataset upload failed: " + job.Description)
		}
		id := job.RequestID
		return p, tea.Tick(400*time.Millisecond, func(time.Time) tea.Msg { return trackingPollMsg{id: id} })
	case trackingPollMsg:
		c := p.ctx.Client
		return p, func() tea.Msg {
			ctx, cancel := context.WithTimeout(p.ctx.Context, 30*time.Second)
			defer cancel()
			job, err := c.Tracking.Job(ctx, msg.id)
			return trackingJobMsg{job: job, err: err}
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, p.keys.Up):
			p.city = max(p.city-1, 0)
		case key.Matches(msg, p.keys.Down):
			p.city = min(p.city+1, len(client.DatasetCities)-1)
		case key.Matches(msg, common.Keys.Top):
			p.city = 0
		case key.Matches(msg, common.Keys.Bottom):
			p.city = len(client.DatasetCities) - 1
		case key.Matches(msg, common.Keys.Back):
			return p, common.GoBack
		case key.Matches(msg, p.keys.Refresh):
			return p, p.refresh()
		case key.Matches(msg, p.keys.Upload):
			if p.job != nil && !p.job.Done() {
				return p, common.ToastErr("an upload is still running")
			}
			c, city := p.ctx.Client, client.DatasetCities[p.city]
			return p, p.ctx.Task("uploading "+city, func(ctx context.Context) tea.Msg {
				job, err := c.Tracking.Upload(ctx, c.Tracking.DatasetURL(city))
				return trackingJobMsg{job: job, err: err}
			})
		}
	}
	return p, nil
}

func (p *Model) View() string {
	t := p.ctx.Theme
	var side []string
	side = append(side, t.Header.Render("Dataset city"))
	for i, c := range client.DatasetCities {
		if i == p.city {
			side = append(side, t.Selected.Render("> "+c))
		} else {
			side = append(side, "  "+c)
		}
	}
	if p.job != nil {
		side = append(side, "", fmt.Sprintf("job %s", p.job.Status))
		if p.job.Points > 0 || p.job.Places > 0 {
			side = append(side, fmt.Sprintf("%d points, %d places", p.job.Points, p.job.Places))
		}
		if p.job.Description != "" {
			side = append(side, common.Wrap(common.OneLine(p.job.Description), 20)...)
		}
	}
	if p.errText != "" {
		side = append(side, "")
		side = append(side, common.Wrap(t.Error.Render(p.errText), 20)...)
	}
	sideW := 22
	mapW, mapH := p.width-sideW-1, p.height
	legendH := min(len(p.pois), max(mapH/3, 1))
	var right string
	switch {
	case len(p.pois) == 0:
		right = t.Muted.Render(strings.Join(common.Wrap("No places yet: choose a city with j/k and press enter to upload its dataset.", max(mapW, 20)), "\n"))
	case mapW < 20:
		right = p.legend(len(p.pois), max(p.width-sideW-1, 10))
	default:
		right = placesMap(p.pois, mapW, max(mapH-legendH-1, 4)) + "\n" + p.legend(legendH, mapW)
	}
	if p.width < 60 {
		return strings.Join(side, "\n") + "\n" + right
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.NewStyle().Width(sideW).Render(strings.Join(side, "\n")), " ", right)
}

func (p *Model) legend(n, width int) string {
	var lines []string
	for i, pl := range p.pois[:min(n, len(p.pois))] {
		lines = append(lines, common.AnsiFit(fmt.Sprintf("%d %-6s %.4f,%.4f  %d visits, %d min", i+1, common.OneLine(pl.Label), pl.Lat, pl.Lon, pl.Visits, pl.DwellMinutes), width))
	}
	return strings.Join(lines, "\n")
}

// placesMap projects the places (equirectangular, corrected for latitude)
// into a Braille canvas framed by a margin, each with its number and label.
func placesMap(pois []client.Place, w, h int) string {
	minLat, maxLat, minLon, maxLon := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, p := range pois {
		minLat, maxLat = math.Min(minLat, p.Lat), math.Max(maxLat, p.Lat)
		minLon, maxLon = math.Min(minLon, p.Lon), math.Max(maxLon, p.Lon)
	}
	midLat := (minLat + maxLat) / 2
	kx := math.Cos(midLat * math.Pi / 180)
	spanX := math.Max((maxLon-minLon)*kx, 1e-4) * 1.2
	spanY := math.Max(maxLat-minLat, 1e-4) * 1.2
	dotsW, dotsH := float64(2*w), float64(4*h)
	// One scale for both axes keeps distances true; dots are about twice
	// as tall as wide, which 2x4 dots per cell of 1:2 already accounts for.
	scale := math.Min(dotsW/spanX, dotsH/spanY)
	cx, cy := (minLon+maxLon)/2, midLat
	c := components.NewCanvas(w, h)
	type spot struct{ x, y int }
	spots := make([]spot, len(pois))
	for i, p := range pois {
		x := int(dotsW/2 + (p.Lon-cx)*kx*scale)
		y := int(dotsH/2 - (p.Lat-cy)*scale)
		spots[i] = spot{x, y}
		c.Disc(x, y, 1.5)
	}
	for i, p := range pois {
		label := fmt.Sprintf("%d %s", i+1, common.OneLine(p.Label))
		col, row := spots[i].x/2, spots[i].y/4
		if !c.Write(col+2, row, label) && !c.Write(col-len([]rune(label))-1, row, label) {
			c.Write(col+2, row+1, label)
		}
	}
	return c.String()
}
