package surveys

import (
	"strings"
	"testing"

	"github.com/harkhq/hark/ui/internal/uitest"
)

func TestSurveysToggleSaveWeights(t *testing.T) {
	a, s := newScreen(t, uitest.SignedInClient(t), 100, 30)
	if len(s.entries) == 0 {
		t.Fatalf("no surveys:\n%s", a.View())
	}
	press(t, a, "enter")
	if s.open == nil || len(s.open.Items) == 0 {
		t.Fatalf("survey did not open:\n%s", a.View())
	}
	first := s.open.Items[0]
	press(t, a, " ")
	if !strings.Contains(a.View(), "not saved") {
		t.Fatal("toggle did not mark the survey unsaved")
	}
	press(t, a, "s")
	if s.dirty || s.open.Items[0].Selected == first.Selected {
		t.Fatalf("save did not change the selection:\n%s", a.View())
	}
	if s.open.Items[0].Selected && s.open.Items[0].Weight != 1 {
		t.Errorf("a selected item weighs %v", s.open.Items[0].Weight)
	}
	if !strings.Contains(a.View(), "■■■■■■■■■■ 1.00") && s.open.Items[0].Selected {
		t.Errorf("weight bar not drawn:\n%s", a.View())
	}
}
