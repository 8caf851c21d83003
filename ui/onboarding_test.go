package ui

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// onboardingFlow serves a flow of every step type; answers are recorded
// and the WAIT_INPUT step refuses "bad" the way the server does.
func onboardingFlow(f *fakePlatform, answers *[]map[string]string) {
	step := func(id, typ string, payload map[string]any) map[string]any {
		return map[string]any{"id": id, "type": typ, "payload": payload}
	}
	batches := map[string][]map[string]any{
		"start": {
			step("1", "SHOW_MESSAGE", map[string]any{"message": "Hi, I'm hark."}),
			step("2", "WAIT_ACK", map[string]any{"message": "Accept the terms?", "ack": "I accept", "colorAck": "#2E7D32", "textColorAck": "#FFFFFF"}),
		},
		"2": {step("3", "WAIT_INPUT", map[string]any{"message": "What should I call you?", "parameter": "name", "preference": "USERNAME",
			"validation": map[string]any{"retries": 2, "regExps": []string{`^\S(.{0,38}\S)?$`}}})},
		"3": {
			step("4", "SHOW_MESSAGE", map[string]any{"message": "Nice to meet you, %%USERNAME%%!"}),
			step("5", "WAIT_SELECTION", map[string]any{"message": "Which units?", "parameter": "units",
				"options": []map[string]any{{"key": "metric", "text": "Metric"}, {"key": "imperial", "text": "Imperial"}}}),
		},
		"5": {step("6", "WAIT_PERMISSION", map[string]any{"message": "Permissions, %%USERNAME%%?", "permissions": []string{"LOCATION", "NOTIFICATIONS"}})},
		"6": {step("7", "SHOW_SURVEY", map[string]any{"message": "Topics?", "surveyId": 3, "parameter": "survey", "minOptions": 2,
			"items": []map[string]any{{"id": 11, "text": "Sports"}, {"id": 12, "text": "Science", "selected": true}, {"id": 13, "text": "Arts"}}})},
		"7": {step("8", "END", map[string]any{})},
	}
	f.json("GET /v2/onboarding/start", 200, batches["start"])
	for id := range batches {
		if id == "start" {
			continue
		}
		f.handle("POST /v2/onboarding/"+id+"/response", func(w http.ResponseWriter, r *http.Request) {
			var body struct{ Data string }
			json.NewDecoder(r.Body).Decode(&body)
			var data map[string]string
			json.Unmarshal([]byte(body.Data), &data)
			if data["name"] == "refused" {
				w.WriteHeader(400)
				w.Write([]byte(`{"code":"BadRequest","description":"that name is taken by the house"}`))
				return
			}
			*answers = append(*answers, data)
			json.NewEncoder(w).Encode(batches[id])
		})
	}
}

func TestOnboardingWalksEveryStep(t *testing.T) {
	f := newFakePlatform(t)
	var answers []map[string]string
	onboardingFlow(f, &answers)
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	drive(t, a, openScreen(screenOnboarding))
	if a.active != screenOnboarding || !strings.Contains(a.View(), "[ I accept ]") {
		t.Fatalf("no WAIT_ACK button:\n%s", a.View())
	}
	press(t, a, "enter")
	// WAIT_INPUT: the regular expression refuses a 50-letter name locally.
	o := a.screens[screenOnboarding].(*onboarding)
	typeText(t, a, strings.Repeat("z", 50))
	press(t, a, "enter")
	if !strings.Contains(a.View(), "is not accepted here") || len(answers) != 1 {
		t.Fatalf("local validation did not stop the answer (%d sent):\n%s", len(answers), a.View())
	}
	// The server's own refusal is shown.
	o.input.SetValue("refused")
	press(t, a, "enter")
	if !strings.Contains(a.View(), "that name is taken by the house") {
		t.Fatalf("server refusal not shown:\n%s", a.View())
	}
	o.input.SetValue("Zed")
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
	press(t, a, "enter")
	if a.active != screenConsole {
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
	f := newFakePlatform(t)
	f.json("GET /v2/onboarding/start", 200, []any{})
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	drive(t, a, openScreen(screenOnboarding))
	if a.active != screenConsole {
		t.Fatal("a finished onboarding did not open the console")
	}
	g := newFakePlatform(t) // no onboarding endpoint at all: 404
	b := newTestApp(t, testOptions(g.client(t), true), 80, 24)
	drive(t, b, openScreen(screenOnboarding))
	if b.active != screenConsole || !strings.Contains(b.View(), "set-up skipped") {
		t.Fatalf("a missing onboarding was not skipped with a notice:\n%s", b.View())
	}
}

func TestOnboardingResumesForARememberedSession(t *testing.T) {
	f := newFakePlatform(t)
	var answers []map[string]string
	onboardingFlow(f, &answers)
	a := newTestApp(t, testOptions(f.client(t), true), 80, 24)
	if a.active != screenConsole {
		t.Fatal("a remembered session should open the console first")
	}
	drive(t, a, a.Init())
	if a.active != screenOnboarding || !strings.Contains(a.View(), "I accept") {
		t.Fatalf("half-done set-up not resumed:\n%s", a.View())
	}
	g := newFakePlatform(t) // no onboarding at all: the console stays
	b := newTestApp(t, testOptions(g.client(t), true), 80, 24)
	drive(t, b, b.Init())
	if b.active != screenConsole {
		t.Fatal("a platform without onboarding moved away from the console")
	}
}
