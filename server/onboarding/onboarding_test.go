package onboarding

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store/storetest"
)

type surveyCall struct {
	userID   int64
	surveyID int
	items    []int
}

// hooks records what the service asks of the accounts and surveys services.
type hooks struct {
	names      map[int64]string
	surveys    []surveyCall
	itemsAsked []surveyCall
	surveyErr  error
}

func (h *hooks) config() Config {
	h.names = map[int64]string{}
	return Config{
		SetName: func(_ context.Context, userID int64, name string) error {
			h.names[userID] = name
			return nil
		},
		SetSurvey: func(_ context.Context, userID int64, surveyID int, itemIDs []int) error {
			if h.surveyErr != nil {
				return h.surveyErr
			}
			h.surveys = append(h.surveys, surveyCall{userID, surveyID, itemIDs})
			return nil
		},
		SurveyItems: func(_ context.Context, userID int64, surveyID int) ([]SurveyItem, error) {
			h.itemsAsked = append(h.itemsAsked, surveyCall{userID: userID, surveyID: surveyID})
			return []SurveyItem{
				{ID: 1, Text: "World", Image: "http://x/icons/news-world.png"},
				{ID: 4, Text: "Science", Image: "http://x/icons/news-science.png", Selected: true},
				{ID: 5, Text: "Sport", Image: "http://x/icons/news-sport.png"},
			}, nil
		},
	}
}

func openDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := storetest.Open(t, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func newService(t *testing.T, db *sql.DB, cfg Config) *Service {
	t.Helper()
	s, err := New(db, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ids(steps []Step) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.ID)
	}
	return strings.Join(out, ",")
}

func answer(t *testing.T, s *Service, user int64, step, data string, want string) []Step {
	t.Helper()
	steps, err := s.Answer(context.Background(), user, step, json.RawMessage(data))
	if err != nil {
		t.Fatalf("Answer(%s, %s): %v", step, data, err)
	}
	if got := ids(steps); got != want {
		t.Fatalf("Answer(%s, %s) gave steps %q, want %q", step, data, got, want)
	}
	return steps
}

func start(t *testing.T, s *Service, user int64, want string) []Step {
	t.Helper()
	steps, err := s.Start(context.Background(), user)
	if err != nil {
		t.Fatal(err)
	}
	if steps == nil {
		t.Fatal("Start returned nil, want a list")
	}
	if got := ids(steps); got != want {
		t.Fatalf("Start gave steps %q, want %q", got, want)
	}
	return steps
}

func badRequest(t *testing.T, s *Service, user int64, step, data, wantText string) {
	t.Helper()
	_, err := s.Answer(context.Background(), user, step, json.RawMessage(data))
	ae, ok := apierr.As(err)
	if !ok || ae.Status != 400 || !strings.Contains(ae.Description, wantText) {
		t.Fatalf("Answer(%s, %s) = %v, want a 400 about %q", step, data, err, wantText)
	}
}

func preference(t *testing.T, s *Service, user int64, key string) string {
	t.Helper()
	v, ok, err := s.Preference(context.Background(), user, key)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		return "<unset>"
	}
	return v
}

func TestWholeFlow(t *testing.T) {
	h := &hooks{}
	s := newService(t, openDB(t), h.config())
	const u = 11

	first := start(t, s, u, "1,2")
	b, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"1","type":"SHOW_MESSAGE","payload":{"message":"Hi, I'm hark, your assistant. Let's get you set up: it takes a minute."},"next":"2"},` +
		`{"id":"2","type":"WAIT_ACK","payload":{"message":"hark keeps your answers, your places, your conversations and what it learns of your voice on this server to personalise what it tells you. Do you accept these terms?","ack":"I accept","colorAck":"#2E7D32","textColorAck":"#FFFFFF"},"next":null}]`
	if string(b) != want {
		t.Fatalf("first steps\n got %s\nwant %s", b, want)
	}

	answer(t, s, u, "2", `{}`, "3")
	steps := answer(t, s, u, "3", `{"name": "Ada Lovelace"}`, "4,5")
	if h.names[u] != "Ada Lovelace" {
		t.Errorf("SetName got %q", h.names[u])
	}
	if !strings.Contains(string(steps[0].Payload), "%%USERNAME%%") {
		t.Errorf("the placeholder was replaced: %s", steps[0].Payload)
	}
	if *steps[0].Next != "5" || steps[1].Next != nil {
		t.Errorf("next links %v %v", *steps[0].Next, steps[1].Next)
	}
	if strings.Contains(string(steps[1].Payload), `"next"`) {
		t.Errorf("branch targets leaked into the payload: %s", steps[1].Payload)
	}
	steps = answer(t, s, u, "5", `{"units": "metric"}`, "6")
	if preference(t, s, u, "units") != "metric" || preference(t, s, u, PreferenceUsername) != "Ada Lovelace" {
		t.Errorf("preferences units=%s USERNAME=%s", preference(t, s, u, "units"), preference(t, s, u, PreferenceUsername))
	}
	var perm permissionPayload
	if err := json.Unmarshal(steps[0].Payload, &perm); err != nil || !reflect.DeepEqual(perm.Permissions, []string{"LOCATION", "NOTIFICATIONS"}) {
		t.Errorf("permission payload %s", steps[0].Payload)
	}

	steps = answer(t, s, u, "6", `{"LOCATION": true, "NOTIFICATIONS": "denied"}`, "7")
	var stored string
	if err := s.db.QueryRow(`SELECT answer FROM onboarding_answers WHERE user_id = $1 AND step_id = '6'`, u).Scan(&stored); err != nil ||
		stored != `{"LOCATION":true,"NOTIFICATIONS":"denied"}` {
		t.Errorf("stored permissions answer %q (%v)", stored, err)
	}
	var survey surveyPayload
	if err := json.Unmarshal(steps[0].Payload, &survey); err != nil {
		t.Fatal(err)
	}
	if survey.SurveyID != 1 || survey.MinOptions != 2 || survey.Parameter != "interests" || len(survey.Items) != 3 || !survey.Items[1].Selected {
		t.Errorf("survey payload %s", steps[0].Payload)
	}
	if len(h.itemsAsked) != 1 || h.itemsAsked[0].userID != u || h.itemsAsked[0].surveyID != 1 {
		t.Errorf("SurveyItems calls %+v", h.itemsAsked)
	}

	badRequest(t, s, u, "7", `{"survey_id": "1", "item_id_list": "4"}`, "at least 2")
	steps = answer(t, s, u, "7", `{"survey_id": "1", "item_id_list": "1, 4,5,4"}`, "8,9")
	if len(h.surveys) != 1 || !reflect.DeepEqual(h.surveys[0], surveyCall{u, 1, []int{1, 4, 5}}) {
		t.Errorf("SetSurvey calls %+v", h.surveys)
	}
	if steps[1].Type != End || steps[1].Next != nil || string(steps[1].Payload) != `{}` {
		t.Errorf("END step %+v", steps[1])
	}
	start(t, s, u, "")
	badRequest(t, s, u, "2", `{}`, "already complete")

	// Another user is untouched by all this.
	start(t, s, u+1, "1,2")
	if preference(t, s, u+1, "units") != "<unset>" {
		t.Error("preferences leak between users")
	}
}

func TestResumeAfterRestart(t *testing.T) {
	db := openDB(t)
	h := &hooks{}
	s := newService(t, db, h.config())
	start(t, s, 3, "1,2")
	answer(t, s, 3, "2", `{}`, "3")
	answer(t, s, 3, "3", `{"name": "Grace"}`, "4,5")

	s2 := newService(t, db, h.config())
	start(t, s2, 3, "4,5")
	start(t, s2, 3, "4,5") // delivering again changes nothing
	answer(t, s2, 3, "5", `{"units": "metric"}`, "6")
	if preference(t, s2, 3, PreferenceUsername) != "Grace" {
		t.Error("the name did not survive the restart")
	}
}

func TestBranch(t *testing.T) {
	s := newService(t, openDB(t), (&hooks{}).config())
	start(t, s, 4, "1,2")
	answer(t, s, 4, "2", `{}`, "3")
	answer(t, s, 4, "3", `{"name": "Lin"}`, "4,5")
	badRequest(t, s, 4, "5", `{"units": "nautical"}`, "not an option")
	answer(t, s, 4, "5", `{"units": "imperial"}`, "5a")
	badRequest(t, s, 4, "6", `{}`, `step "5a" is`)
	answer(t, s, 4, "5a", `{"temperature": "celsius"}`, "6")
	if preference(t, s, 4, "units") != "imperial" || preference(t, s, 4, "temperature") != "celsius" {
		t.Errorf("units=%s temperature=%s", preference(t, s, 4, "units"), preference(t, s, 4, "temperature"))
	}
}

func TestInputValidationThenDefault(t *testing.T) {
	h := &hooks{}
	s := newService(t, openDB(t), h.config())
	answer(t, s, 5, "2", `{}`, "3") // answering before Start works from the first step
	badRequest(t, s, 5, "3", `{"name": "   "}`, "attempts left: 1")
	badRequest(t, s, 5, "3", `{"name": "<script>"}`, `takes "friend"`)
	if _, ok := h.names[5]; ok {
		t.Fatal("SetName called for an invalid name")
	}
	start(t, s, 5, "3") // still waiting on the name
	answer(t, s, 5, "3", `{"name": "{{}}"}`, "4,5")
	if h.names[5] != "friend" || preference(t, s, 5, PreferenceUsername) != "friend" {
		t.Errorf("after the retries the name is %q / %q, want the default", h.names[5], preference(t, s, 5, PreferenceUsername))
	}

	// A valid answer after one failure is taken as is, and resets the count.
	answer(t, s, 6, "2", `{}`, "3")
	badRequest(t, s, 6, "3", `{"name": "a/b"}`, "attempts left: 1")
	answer(t, s, 6, "3", `{"name": "  Zoë  "}`, "4,5")
	if h.names[6] != "Zoë" {
		t.Errorf("name %q", h.names[6])
	}
}

func TestWrongStepChangesNothing(t *testing.T) {
	s := newService(t, openDB(t), (&hooks{}).config())
	start(t, s, 7, "1,2")
	badRequest(t, s, 7, "nope", `{}`, "unknown onboarding step")
	badRequest(t, s, 7, "1", `{}`, `step "2" is`)
	badRequest(t, s, 7, "3", `{"name": "Ada"}`, `step "2" is`)
	badRequest(t, s, 7, "9", `{}`, `step "2" is`)
	start(t, s, 7, "1,2")
}

func TestWrongShape(t *testing.T) {
	h := &hooks{}
	s := newService(t, openDB(t), h.config())
	const u = 8
	for _, data := range []string{`[1]`, `"not json"`, `42`, `"[]"`, `{"a":`, `"{\"a\":"`} {
		badRequest(t, s, u, "2", data, "")
	}
	answer(t, s, u, "2", `"{}"`, "3") // JSON text inside a JSON string
	badRequest(t, s, u, "3", `{"name": 5}`, "must be a string")
	badRequest(t, s, u, "3", `{"nom": "Ada"}`, `key "name"`)
	start(t, s, u, "3")
	answer(t, s, u, "3", `"{\"name\": \"Ada\"}"`, "4,5")
	badRequest(t, s, u, "5", `{"units": ["metric"]}`, "must be a string")
	answer(t, s, u, "5", `{"units": "metric"}`, "6")
	badRequest(t, s, u, "6", `{"CAMERA": true}`, "not a permission")
	badRequest(t, s, u, "6", `{"LOCATION": {"x": 1}}`, "boolean or a string")
	answer(t, s, u, "6", ``, "7")
	for data, why := range map[string]string{
		`{"survey_id": "2", "item_id_list": "1,4"}`:  "not the survey",
		`{"survey_id": "1"}`:                         "item_id_list",
		`{"survey_id": "1", "item_id_list": "1,x"}`:  "not a positive integer",
		`{"survey_id": "1", "item_id_list": "1,-4"}`: "not a positive integer",
		`{"survey_id": true, "item_id_list": "1,4"}`: "survey_id",
		`{"survey_id": "1", "item_id_list": 14}`:     "survey_id",
	} {
		badRequest(t, s, u, "7", data, why)
	}
	// The surveys service refusing an item is the client's 400 too.
	h.surveyErr = apierr.InvalidArgumentf("item 99 is not in survey 1")
	badRequest(t, s, u, "7", `{"survey_id": 1, "item_id_list": "1,99"}`, "item 99")
	h.surveyErr = nil
	if len(h.surveys) != 0 {
		t.Fatalf("SetSurvey applied refused answers: %+v", h.surveys)
	}
	start(t, s, u, "7")
	answer(t, s, u, "7", `{"survey_id": 1, "item_id_list": "1,99"}`, "8,9")
}

const customFlow = `{"steps": [
 {"id": "a", "type": "WAIT_SELECTION", "payload": {"message": "Pick", "parameter": "p",
   "options": [{"key": "x", "text": "X", "colorAck": "#000", "textColorAck": "#fff", "next": "end"}, {"key": "y", "text": "Y", "colorAck": "#000", "textColorAck": "#fff"}]}, "next": "b"},
 {"id": "b", "type": "SHOW_MESSAGE", "payload": {"message": "You picked y"}, "next": "end"},
 {"id": "end", "type": "END", "payload": {"message": "bye"}}
]}`

func TestFlowFileOverride(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "flow.json")
	if err := os.WriteFile(path, []byte(customFlow), 0o600); err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	s := newService(t, db, Config{FlowFile: path})
	start(t, s, 1, "a")
	answer(t, s, 1, "a", `{"p": "y"}`, "b,end")
	start(t, s, 1, "")
	start(t, s, 2, "a")
	answer(t, s, 2, "a", `{"p": "x"}`, "end")
	start(t, s, 3, "a")

	// The operator replaces the flow and the step user 3 waits on is gone:
	// they start over at the new first step.
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(customFlow, `"id": "a"`, `"id": "a2"`)), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := newService(t, db, Config{FlowFile: path})
	start(t, s2, 3, "a2")
	answer(t, s2, 3, "a2", `{"p": "x"}`, "end")
	start(t, s2, 1, "") // completed users stay completed

	if _, err := New(db, Config{FlowFile: filepath.Join(dir, "missing.json")}); err == nil {
		t.Error("a missing flow file was accepted")
	}
}

func TestBadFlowsAreRefused(t *testing.T) {
	for name, flow := range map[string]string{
		"empty":         `{"steps": []}`,
		"unknown type":  `{"steps": [{"id": "1", "type": "DANCE", "payload": {}, "next": "2"}, {"id": "2", "type": "END"}]}`,
		"dangling next": `{"steps": [{"id": "1", "type": "WAIT_ACK", "payload": {}, "next": "7"}, {"id": "2", "type": "END"}]}`,
		"duplicate id":  `{"steps": [{"id": "1", "type": "WAIT_ACK", "payload": {}, "next": "1"}, {"id": "1", "type": "END"}]}`,
		"bad regexp":    `{"steps": [{"id": "1", "type": "WAIT_INPUT", "payload": {"parameter": "n", "validation": {"regExps": ["("]}}, "next": "2"}, {"id": "2", "type": "END"}]}`,
		"message loop":  `{"steps": [{"id": "1", "type": "SHOW_MESSAGE", "payload": {"message": "a"}, "next": "2"}, {"id": "2", "type": "SHOW_MESSAGE", "payload": {"message": "b"}, "next": "1"}, {"id": "3", "type": "END"}]}`,
		"no next":       `{"steps": [{"id": "1", "type": "WAIT_ACK", "payload": {}}, {"id": "2", "type": "END"}]}`,
		"unknown field": `{"steps": [{"id": "1", "type": "WAIT_ACK", "payload": {"colour": "red"}, "next": "2"}, {"id": "2", "type": "END"}]}`,
		"no end":        `{"steps": [{"id": "1", "type": "WAIT_ACK", "payload": {}, "next": "1"}]}`,
		"survey items":  `{"steps": [{"id": "1", "type": "SHOW_SURVEY", "payload": {"surveyId": 1, "parameter": "i", "items": [{"id": 1}]}, "next": "2"}, {"id": "2", "type": "END"}]}`,
		"repeated key":  `{"steps": [{"id": "1", "type": "WAIT_SELECTION", "payload": {"parameter": "p", "options": [{"key": "a"}, {"key": "a"}]}, "next": "2"}, {"id": "2", "type": "END"}]}`,
		"not json":      `steps: []`,
	} {
		if _, err := parseFlow([]byte(flow)); err == nil {
			t.Errorf("%s: flow accepted", name)
		}
	}
}

func FuzzDecodeData(f *testing.F) {
	for _, seed := range []string{``, `{}`, `"{}"`, `{"name": "Ada"}`, `"{\"name\": \"Ada\"}"`, `[1]`, `"`, `"\"{}\""`, `null`, ` {"a": [1, {"b": null}]} `} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj, err := decodeData(data)
		if err != nil {
			if ae, ok := apierr.As(err); !ok || ae.Status != 400 {
				t.Fatalf("error %v is not a 400", err)
			}
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(obj, &m); err != nil {
			t.Fatalf("accepted %q as %q, which is not an object", data, obj)
		}
	})
}

func FuzzParseFlow(f *testing.F) {
	f.Add([]byte(customFlow))
	f.Add([]byte(`{"steps": [{"id": "1", "type": "END"}]}`))
	f.Add([]byte(`{"steps": [{"id": "1", "type": "SHOW_MESSAGE", "payload": {"message": "a"}, "next": "1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := parseFlow(data)
		if err != nil {
			return
		}
		// Every accepted flow delivers finite batches from every step.
		s := &Service{flow: fl}
		for id := range fl.steps {
			b := s.batch(id)
			if len(b) > len(fl.steps) {
				t.Fatalf("batch from %s repeats steps", id)
			}
			if last := b[len(b)-1]; last.typ == ShowMessage {
				t.Fatalf("batch from %s ends on a message", id)
			}
		}
	})
}

func TestConcurrentAnswersMoveOnce(t *testing.T) {
	h := &hooks{}
	s := newService(t, openDB(t), h.config())
	start(t, s, 9, "1,2")
	answer(t, s, 9, "2", `{}`, "3")
	errs := make(chan error, 4)
	for _, name := range []string{"Ann", "Bob", "Cy", "Di"} {
		go func() {
			_, err := s.Answer(context.Background(), 9, "3", json.RawMessage(`{"name": "`+name+`"}`))
			errs <- err
		}()
	}
	ok := 0
	for range 4 {
		err := <-errs
		if err == nil {
			ok++
			continue
		}
		if ae, isAPI := apierr.As(err); !isAPI || ae.Status != 400 {
			t.Errorf("a losing answer failed with %v, want a 400", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d concurrent answers accepted, want 1", ok)
	}
	start(t, s, 9, "4,5")
	if len(h.names) != 1 || h.names[9] != preference(t, s, 9, PreferenceUsername) {
		t.Errorf("display names set %v, stored %q: losing answers reached the hook", h.names, preference(t, s, 9, PreferenceUsername))
	}
}
