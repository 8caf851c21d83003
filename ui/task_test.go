package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/harkhq/hark/client"
)

func TestTaskPanicBecomesAToastWithAReport(t *testing.T) {
	f := newFakePlatform(t)
	opt := testOptions(f.client(t), true)
	var reported []string
	opt.ReportPanic = func(r any, stack []byte) string {
		reported = append(reported, strings.Split(string(stack), "\n")[0])
		return "/state/crash-1.txt"
	}
	a := newTestApp(t, opt, 80, 24)
	cmd := a.ctx.task("exploding", func(context.Context) tea.Msg { panic("boom") })
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
	f := newFakePlatform(t)
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	a.Update(taskBeginMsg{label: "listing files"})
	if strings.Contains(a.View(), "listing files") {
		t.Fatal("a task named before spinnerDelay")
	}
	a.busySince["listing files"] = time.Now().Add(-spinnerDelay)
	if !strings.Contains(a.View(), "listing files…") {
		t.Fatalf("a task running for spinnerDelay is not named:\n%s", a.View())
	}
	a.Update(taskEndMsg{label: "listing files"})
	if strings.Contains(a.View(), "listing files") || len(a.busySince) != 0 {
		t.Fatal("a finished task still named")
	}
}

func BenchmarkKeypressRepaintWhileLoading(b *testing.B) {
	// 10,000 files listed and a refresh in flight (the spinner is up): a
	// key moves the cursor and the whole screen is drawn again.
	a := New(Options{Client: benchClient(b), Now: func() time.Time { return fixedNow }, NoColor: true, StaticCursor: true,
		Session: &Session{Token: "t", Name: "Ann"}, Platform: "bench"})
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	a.show(screenStorage)
	s := a.screens[screenStorage].(*storage)
	files := make([]client.FileEntry, 10000)
	for i := range files {
		files[i] = client.FileEntry{Name: fmt.Sprintf("file-%05d.csv", i), Size: int64(i * 100), LastModified: fixedNow.UnixMilli()}
	}
	s.Update(storageListedMsg{files: files, total: 1 << 30})
	s.loading = true
	a.Update(taskBeginMsg{label: "listing files"})
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

func benchClient(b *testing.B) *client.Client {
	c, err := client.New(client.Config{BaseURL: "http://127.0.0.1:1/v2", PublicKey: "pk", PrivateKey: "sk"})
	if err != nil {
		b.Fatal(err)
	}
	return c
}
