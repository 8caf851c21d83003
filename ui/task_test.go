package ui

import (
	"context"
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

func TestTaskPanicBecomesAToastWithAReport(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	opt := testOptions(f.Client(t), true)
	var reported []string
	opt.ReportPanic = func(r any, stack []byte) string {
		reported = append(reported, strings.Split(string(stack), "\n")[0])
		return "/state/crash-1.txt"
	}
	a := newTestApp(t, opt, 80, 24)
	cmd := a.ctx.Task("exploding", func(context.Context) tea.Msg { panic("boom") })
	drive(t, a, cmd)
	if len(reported) != 1 {
		t.Fatalf("report written %d times", len(reported))
	}
	if v := a.View(); !strings.Contains(v, "exploding failed unexpectedly (report: /state/crash-1.txt)") {
		t.Fatalf("panic not shown:\n%s", v)
	}
	if len(a.busy) != 0 {
		t.Fatalf("spinner left running: %v", a.busy)
	}
}

func TestStatusLineNamesOnlyTasksThatTakeAWhile(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	a.Update(common.TaskBeginMsg{Label: "listing files"})
	if strings.Contains(a.View(), "listing files") {
		t.Fatal("a task named before spinnerDelay")
	}
	a.busySince["listing files"] = time.Now().Add(-spinnerDelay)
	if !strings.Contains(a.View(), "listing files…") {
		t.Fatalf("a task running for spinnerDelay is not named:\n%s", a.View())
	}
	a.Update(common.TaskEndMsg{Label: "listing files"})
	if strings.Contains(a.View(), "listing files") || len(a.busySince) != 0 {
		t.Fatal("a finished task still named")
	}
}

func BenchmarkKeypressRepaintWhileLoading(b *testing.B) {
	// 10,000 files listed and a refresh in flight (the spinner is up): a
	// key moves the cursor and the whole screen is drawn again.
	f := uitest.NewFakePlatform(b)
	files := make([]map[string]any, 10000)
	for i := range files {
		files[i] = map[string]any{"name": fmt.Sprintf("file-%05d.csv", i), "size": i * 100, "lastModified": fixedNow.UnixMilli()}
	}
	f.JSON("GET /v2/storage/folder/list", 200, []string{})
	f.JSON("GET /v2/storage/file/list", 200, files)
	f.JSON("GET /v2/storage/total-size", 200, 1<<30)
	a := New(Options{Client: f.Client(b), Now: func() time.Time { return fixedNow }, NoColor: true, StaticCursor: true,
		Session: &Session{Token: "t", Name: "Ann"}, Platform: "bench"})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	uitest.Drive(b, a, a.show(common.ScreenStorage))
	if !strings.Contains(a.View(), "file-00000.csv") {
		b.Fatalf("not listed:\n%s", a.View())
	}
	a.Update(common.TaskBeginMsg{Label: "listing files"})
	down, up := keyMsg("down"), keyMsg("up")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		k := down
		if i%2 == 1 {
			k = up
		}
		a.Update(k)
		_ = a.View()
	}
}
