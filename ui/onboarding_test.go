package ui

import (
	"github.com/harkhq/hark/ui/common"
	"github.com/harkhq/hark/ui/internal/uitest"
	"strings"
	"testing"
)

func TestOnboardingWalksEveryStep(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	var answers []map[string]string
	uitest.OnboardingFlow(f, &answers)
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	drive(t, a, common.OpenScreen(common.ScreenOnboarding))
	if a.active != common.ScreenOnboarding || !strings.Contains(a.View(), "[ I accept ]") {
		t.Fatalf("no WAIT_ACK button:\n%s", a.View())
	}
	press(t, a, "enter")
	// WAIT_INPUT: the regular expression refuses a 50-letter name locally.
	clear := func() {
		for range 60 {
			press(t, a, "backspace")
		}
	}
	typeText(t, a, strings.Repeat("z", 50))
	press(t, a, "enter")
	if !strings.Contains(a.View(), "is not accepted here") || len(answers) != 1 {
		t.Fatalf("local validation did not stop the answer (%d sent):\n%s", len(answers), a.View())
	}
	// The server's own refusal is shown.
	clear()
	typeText(t, a, "refused")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "that name is taken by the house") {
		t.Fatalf("server refusal not shown:\n%s", a.View())
	}
	clear()
	typeText(t, a, "Zed")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "Nice to meet you, Zed!") {
		t.Fatalf("%%USERNAME%% not replaced:\n%s", a.View())
	}
	press(t, a, "down")
	press(t, a, "enter") // imperial
	if !strings.Contains(a.View(), "Permissions, Zed?") || !strings.Contains(a.View(), "Location:") {
		t.Fatalf("permissions not explained:\n%s", a.View())
	}
	press(t, a, "down")
	press(t, a, " ") // deny notifications
	press(t, a, "enter")
	// SHOW_SURVEY: one preselected of minOptions 2 is refused locally.
	press(t, a, "enter")
	if !strings.Contains(a.View(), "Choose at least 2 (1 chosen)") {
		t.Fatalf("minOptions not enforced:\n%s", a.View())
	}
	press(t, a, " ") // Sports
	if strings.Contains(a.View(), "Choose at least") {
		t.Fatalf("the refusal stays after choosing two:\n%s", a.View())
	}
	press(t, a, "enter")
	if a.active != common.ScreenConsole {
		t.Fatalf("END did not open the console:\n%s", a.View())
	}
	want := []map[string]string{{}, {"name": "Zed"}, {"units": "imperial"},
		{"LOCATION": "granted", "NOTIFICATIONS": "denied"}, {"survey_id": "3", "item_id_list": "11,12"}}
	if len(answers) != len(want) {
		t.Fatalf("answers %v", answers)
	}
	for i := range want {
		for k, v := range want[i] {
			if answers[i][k] != v {
				t.Errorf("answer %d: %s = %q, want %q", i, k, answers[i][k], v)
			}
		}
	}
	if a.ctx.Session.Name != "Zed" {
		t.Errorf("display name not kept: %q", a.ctx.Session.Name)
	}
}

func TestOnboardingDoneOrMissingOpensTheConsole(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.JSON("GET /v2/onboarding/start", 200, []any{})
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	drive(t, a, common.OpenScreen(common.ScreenOnboarding))
	if a.active != common.ScreenConsole {
		t.Fatal("a finished onboarding did not open the console")
	}
	g := uitest.NewFakePlatform(t) // no onboarding endpoint at all: 404
	b := newTestApp(t, testOptions(g.Client(t), true), 80, 24)
	drive(t, b, common.OpenScreen(common.ScreenOnboarding))
	if b.active != common.ScreenConsole || !strings.Contains(b.View(), "set-up skipped") {
		t.Fatalf("a missing onboarding was not skipped with a notice:\n%s", b.View())
	}
}

func TestOnboardingResumesForARememberedSession(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	var answers []map[string]string
	uitest.OnboardingFlow(f, &answers)
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	if a.active != common.ScreenConsole {
		t.Fatal("a remembered session should open the console first")
	}
	drive(t, a, a.Init())
	if a.active != common.ScreenOnboarding || !strings.Contains(a.View(), "I accept") {
		t.Fatalf("half-done set-up not resumed:\n%s", a.View())
	}
	g := uitest.NewFakePlatform(t) // no onboarding at all: the console stays
	b := newTestApp(t, testOptions(g.Client(t), true), 80, 24)
	drive(t, b, b.Init())
	if b.active != common.ScreenConsole {
		t.Fatal("a platform without onboarding moved away from the console")
	}
}

// On the real flow: the step count, the answers kept in view, esc saying
// why it cannot go back, and imperial units asking the temperature scale
// once (the units option no longer claims Fahrenheit).
func TestOnboardingRealFlowCountsStepsAndKeepsAnswers(t *testing.T) {
	c := uitest.PlatformClient(t)
	a := newTestApp(t, testOptions(c, false), 100, 40)
	press(t, a, "ctrl+n")
	fillSignIn(t, a, "zoe@example.com", "correct horse", "Zoe")
	if a.active != common.ScreenOnboarding {
		t.Fatalf("no set-up after register:\n%s", a.View())
	}
	if !strings.Contains(a.View(), "Set-up: step 1 of 5") {
		t.Fatalf("no step count:\n%s", a.View())
	}
	press(t, a, "esc")
	if !strings.Contains(a.View(), "cannot go back") || a.active != common.ScreenOnboarding {
		t.Fatalf("esc did not explain:\n%s", a.View())
	}
	press(t, a, "enter") // I accept
	press(t, a, "enter") // the name suggested (Zoe)
	if v := a.View(); !strings.Contains(v, "› I accept") || !strings.Contains(v, "› Zoe") || !strings.Contains(v, "step 3 of 5") {
		t.Fatalf("earlier answers or the count not shown:\n%s", v)
	}
	press(t, a, "down")
	if strings.Contains(a.View(), "Fahrenheit") {
		t.Fatalf("the units option already names the temperature scale:\n%s", a.View())
	}
	press(t, a, "enter") // imperial
	v := a.View()
	if strings.Count(v, "Fahrenheit") != 2 || !strings.Contains(v, "Fahrenheit or Celsius?") || !strings.Contains(v, "step 4 of 6") {
		t.Fatalf("the temperature question after imperial:\n%s", v)
	}
}

// A set-up left half done and resumed in a new session goes on counting
// where it stopped, not from 1.
func TestOnboardingResumedCountsOnWhereItStopped(t *testing.T) {
	c := uitest.PlatformClient(t)
	opts := testOptions(c, false)
	a := newTestApp(t, opts, 100, 40)
	press(t, a, "ctrl+n")
	fillSignIn(t, a, "zoe@example.com", "correct horse", "Zoe")
	press(t, a, "enter") // I accept
	press(t, a, "enter") // the name suggested (Zoe)
	saved := opts.Sessions.(*uitest.MemSessions).Saved
	if len(saved) == 0 {
		t.Fatal("the session was not remembered")
	}
	opts.Session = &Session{Token: saved[len(saved)-1].Token, Name: "Zoe", Email: "zoe@example.com"}
	b := newTestApp(t, opts, 100, 40)
	drive(t, b, b.Init())
	if v := b.View(); b.active != common.ScreenOnboarding || !strings.Contains(v, "Which units") || !strings.Contains(v, "Set-up: step 3 of 5") {
		t.Fatalf("the resumed set-up does not count on from step 3:\n%s", v)
	}
}

// The set-up's farewell is a notice of the console: it survives the move
// there and goes once another screen opens.
func TestOnboardingFarewellStaysOnTheConsoleOnly(t *testing.T) {
	f := uitest.NewFakePlatform(t)
	f.JSON("GET /v2/onboarding/start", 200, []map[string]any{
		{"id": "8", "type": "SHOW_MESSAGE", "payload": map[string]any{"message": "All set, %%USERNAME%%."}},
		{"id": "9", "type": "END", "payload": map[string]any{}}})
	uitest.StorageFixture(f)
	a := newTestApp(t, testOptions(f.Client(t), true), 80, 24)
	drive(t, a, common.OpenScreen(common.ScreenOnboarding))
	if a.active != common.ScreenConsole || !strings.Contains(a.View(), "All set, Ann.") {
		t.Fatalf("no farewell on the console:\n%s", a.View())
	}
	press(t, a, "alt+s")
	if strings.Contains(a.View(), "All set") {
		t.Fatalf("the farewell followed to storage:\n%s", a.View())
	}
}
