package console

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/harkhq/hark/client"
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

// The explain view of a real spoken turn, from a real in-process platform:
// flite's kal16 "text anna", which the domain decoder of short commands
// hears as said (understood, without its message) and the full model
// otherwise; the full model's readings are turned down for dropping those
// words or being too far behind, the domain decoder's other readings for
// being too far behind its best path, and those turned down by that
// acoustic gate fold into one line (heardLines)
// (testdata/TestSpokenExplainGolden.golden; go test ./ui/console -run
// SpokenExplain -update rewrites it).
func TestSpokenExplainGolden(t *testing.T) {
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite is not installed (make test installs it)")
	}
	wavPath := filepath.Join(t.TempDir(), "text-anna.wav")
	if out, err := exec.Command("flite", "-voice", "kal16", "-t", "text anna", "-o", wavPath).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, out)
	}
	wav, err := os.ReadFile(wavPath)
	if err != nil {
		t.Fatal(err)
	}
	c := uitest.SignedInClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := c.Dialogue.Audio(ctx, bytes.NewReader(wav), int64(len(wav)), 16000, 0, client.Explain())
	if err != nil {
		t.Fatal(err)
	}
	// How long the turn waited for the platform's speech engines depends on
	// when the platform started (TestExplainShowsSpokenHypotheses shows its line).
	resp.Explain.SpeechWaitMs = 0
	view := strings.Join(explainLines(resp.Explain, common.NewTheme(true), 120), "\n") + "\n"
	golden.RequireEqual(t, []byte(view))
}
