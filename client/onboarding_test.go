package client_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/harkhq/hark/client"
)

// TestOnboardingWalk walks the default flow through the client, with the
// imperial branch, a refused name and the survey step.
func TestOnboardingWalk(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	steps, err := c.Onboarding.Start(ctx)
	if err != nil || len(steps) < 2 {
		t.Fatalf("start: %+v %v", steps, err)
	}
	if steps[0].Type != "SHOW_MESSAGE" || steps[0].Next != steps[1].ID || steps[1].Type != "WAIT_ACK" || steps[1].Next != "" ||
		steps[1].Payload.Ack == "" || steps[1].Payload.ColorAck == "" {
		t.Fatalf("first steps: %+v", steps)
	}
	// Answering a step that is not waiting changes nothing.
	_, err = c.Onboarding.Answer(ctx, "5", map[string]string{"units": "metric"})
	want400(t, err)
	_, err = c.Onboarding.Answer(ctx, "no-such-step", nil)
	want400(t, err)

	steps, err = c.Onboarding.Answer(ctx, steps[1].ID, nil)
	if err != nil || steps[len(steps)-1].Type != "WAIT_INPUT" {
		t.Fatalf("after ack: %+v %v", steps, err)
	}
	input := steps[len(steps)-1]
	if input.Payload.Parameter != "name" || input.Payload.Validation == nil || len(input.Payload.Validation.RegExps) == 0 {
		t.Fatalf("input step %+v", input)
	}
	_, err = c.Onboarding.Answer(ctx, input.ID, map[string]string{"name": "<script>"})
	want400(t, err)
	_, err = c.Onboarding.Answer(ctx, input.ID, map[string]int{"name": 7})
	want400(t, err)
	// Resuming shows the same waiting step.
	again, err := c.Onboarding.Start(ctx)
	if err != nil || again[len(again)-1].ID != input.ID {
		t.Fatalf("resume: %+v %v", again, err)
	}
	steps, err = c.Onboarding.Answer(ctx, input.ID, map[string]string{"name": "Marta"})
	if err != nil || !strings.Contains(steps[0].Payload.Message, "%%USERNAME%%") {
		t.Fatalf("after name: %+v %v", steps, err)
	}
	sel := steps[len(steps)-1]
	if sel.Type != "WAIT_SELECTION" || len(sel.Payload.Options) != 2 {
		t.Fatalf("selection step %+v", sel)
	}
	steps, err = c.Onboarding.Answer(ctx, sel.ID, map[string]string{"units": "imperial"})
	if err != nil || steps[0].ID != "5a" {
		t.Fatalf("imperial branch: %+v %v", steps, err)
	}
	steps, err = c.Onboarding.Answer(ctx, "5a", map[string]string{"temperature": steps[0].Payload.Options[0].Key})
	if err != nil || steps[0].Type != "WAIT_PERMISSION" || len(steps[0].Payload.Permissions) == 0 {
		t.Fatalf("after branch: %+v %v", steps, err)
	}
	steps, err = c.Onboarding.Answer(ctx, steps[0].ID, map[string]bool{"LOCATION": true, "NOTIFICATIONS": false})
	if err != nil || steps[0].Type != "SHOW_SURVEY" || len(steps[0].Payload.Items) < 2 {
		t.Fatalf("survey step: %+v %v", steps, err)
	}
	survey := steps[0]
	_, err = c.Onboarding.Answer(ctx, survey.ID, map[string]string{"survey_id": string(survey.Payload.SurveyID), "item_id_list": "1"})
	want400(t, err)
	ids := []string{}
	for _, it := range survey.Payload.Items[:2] {
		ids = append(ids, strconv.Itoa(it.ID))
	}
	steps, err = c.Onboarding.Answer(ctx, survey.ID, map[string]string{"survey_id": string(survey.Payload.SurveyID), "item_id_list": strings.Join(ids, ",")})
	if err != nil || steps[len(steps)-1].Type != "END" {
		t.Fatalf("after survey: %+v %v", steps, err)
	}
	// The survey answer reached the survey; onboarding is over.
	sid, _ := strconv.Atoi(strings.Trim(string(survey.Payload.SurveyID), `"`))
	s, _ := c.Surveys.Get(ctx, sid)
	selected := 0
	for _, it := range s.Items {
		if it.Selected {
			selected++
		}
	}
	if selected != 2 {
		t.Fatalf("survey after onboarding has %d selected", selected)
	}
	if steps, err := c.Onboarding.Start(ctx); err != nil || len(steps) != 0 {
		t.Fatalf("start after END: %+v %v", steps, err)
	}
	// Imperial units reach the weather item.
	at(c, 40.7128, -74.006)
	w, err := c.Items.List(ctx, "weather", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var weather struct{ Metric int }
	if err := w.Decode(0, &weather); err != nil || weather.Metric != 0 {
		t.Fatalf("metric after choosing imperial: %+v %v", weather, err)
	}
}

// The sample's form-encoded body is accepted as well.
func TestOnboardingFormAnswer(t *testing.T) {
	c := signedIn(t)
	ctx := ctxT(t)
	steps, err := c.Onboarding.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ack := steps[len(steps)-1]
	req, _ := http.NewRequest("POST", c.Config().BaseURL+"/onboarding/"+ack.ID+"/response",
		strings.NewReader(url.Values{"data": {"{}"}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Basic "+c.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("form answer: %d", resp.StatusCode)
	}
	steps, _ = c.Onboarding.Start(ctx)
	if steps[len(steps)-1].Type != "WAIT_INPUT" {
		t.Fatalf("after the form answer: %+v", steps)
	}
}

// want400 accepts either 400 code: the onboarding answers BadRequest for a
// wrong step or shape and InvalidArgument for a value that fails validation.
func want400(t *testing.T, err error) {
	t.Helper()
	if e, ok := err.(*client.APIError); ok && e.Code == "InvalidArgument" {
		wantCode(t, err, 400, "InvalidArgument")
		return
	}
	wantCode(t, err, 400, "BadRequest")
}
