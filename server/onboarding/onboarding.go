// Package onboarding walks a user through the initial set-up steps
// (DECISIONS §7). The flow is data: assets/data/onboarding/flow.json, or
// the file Config.FlowFile names. It has no HTTP handlers: the HTTP layer
// calls Start, Answer and Preference.
//
// A user's position is the step that begins the batch last delivered to
// them. A batch is that step and the SHOW_MESSAGE steps chained after it, up
// to and including the first step that waits for an answer (or END). Start
// delivers the current batch again, so a client that restarts resumes
// where the user left off. Answering the waiting step moves the position
// to its successor (for WAIT_SELECTION, the chosen option's next when it
// names one) and returns the new batch. Delivering a batch that ends in
// END completes the onboarding; from then on Start returns no steps.
//
// Answers:
//   - WAIT_ACK: a JSON object.
//   - WAIT_INPUT: {"<parameter>": "<text>"}. The text must match every
//     regExp. A failed attempt answers 400 and counts; after
//     validation.retries failed attempts the next failure takes
//     defaultValue instead and moves on (with no defaultValue, it keeps
//     answering 400). The value is stored as the preference named by
//     payload.preference (or parameter), and a USERNAME preference is also
//     passed to Config.SetName.
//   - WAIT_SELECTION: {"<parameter>": "<option key>"}, stored as the
//     preference named parameter (so Preference(ctx, u, "units") gives
//     "metric" or "imperial").
//   - WAIT_PERMISSION: an object of permission name to answer (a boolean
//     or a string such as "granted"); names must be among the step's
//     permissions. Stored as sent.
//   - SHOW_SURVEY: {"survey_id": "<id>", "item_id_list": "1,4,5"} with at
//     least minOptions distinct ids, applied through Config.SetSurvey.
//
// Anything else (a step that is not waiting, an unknown step, a wrong
// shape) is a 400 and changes nothing.
package onboarding

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/harkhq/hark/assets"
	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/store"
)

// Step is one onboarding step as the client receives it. Next names the
// following step for a SHOW_MESSAGE and is null for every step that waits
// for an answer and for END.
type Step struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	Next    *string         `json:"next"`
}

// Config wires the service to the flow and to the services its answers
// change. Nil hooks are skipped (SurveyItems nil gives an empty item list).
type Config struct {
	// FlowFile, when set, replaces the embedded flow.
	FlowFile string
	// SetName sets the user's display name from the USERNAME answer.
	SetName func(ctx context.Context, userID int64, name string) error
	// SetSurvey applies a SHOW_SURVEY answer as POST /surveys/{id} does; an
	// *apierr.Error it returns reaches the client unchanged.
	SetSurvey func(ctx context.Context, userID int64, surveyID int, itemIDs []int) error
	// SurveyItems gives the items (with the user's selection) shown in a
	// SHOW_SURVEY step.
	SurveyItems func(ctx context.Context, userID int64, surveyID int) ([]SurveyItem, error)
}

// Service keeps each user's progress through the flow.
type Service struct {
	db   *sql.DB
	flow *flow
	cfg  Config
	// preference is prepared once: item requests read the units on every call.
	preference *sql.Stmt
	// One user's requests run one at a time, so a losing concurrent answer
	// never calls the hooks; users share stripes, which only costs waiting.
	stripes [64]sync.Mutex
}

func (s *Service) lock(userID int64) func() {
	m := &s.stripes[uint64(userID)%uint64(len(s.stripes))]
	m.Lock()
	return m.Unlock
}

// PreferenceUsername is the preference the name step sets.
const PreferenceUsername = "USERNAME"

var migrations = []store.Step{
	{SQLite: `CREATE TABLE onboarding_progress (
		user_id    INTEGER PRIMARY KEY,
		position   TEXT NOT NULL,            -- first step of the current batch
		failures   INTEGER NOT NULL DEFAULT 0, -- failed WAIT_INPUT attempts at the current step
		completed  INTEGER NOT NULL DEFAULT 0,
		updated_ms INTEGER NOT NULL
	);
	CREATE TABLE onboarding_answers (
		user_id     INTEGER NOT NULL,
		step_id     TEXT NOT NULL,
		answer      TEXT NOT NULL, -- JSON as received (after unwrapping a JSON string)
		answered_ms INTEGER NOT NULL,
		PRIMARY KEY (user_id, step_id)
	) WITHOUT ROWID;
	CREATE TABLE onboarding_preferences (
		user_id INTEGER NOT NULL,
		key     TEXT NOT NULL,
		value   TEXT NOT NULL,
		PRIMARY KEY (user_id, key)
	) WITHOUT ROWID;`,
		Postgres: `CREATE TABLE onboarding_progress (
		user_id    BIGINT PRIMARY KEY,
		position   TEXT NOT NULL,            -- first step of the current batch
		failures   BIGINT NOT NULL DEFAULT 0, -- failed WAIT_INPUT attempts at the current step
		completed  BIGINT NOT NULL DEFAULT 0,
		updated_ms BIGINT NOT NULL
	);
	CREATE TABLE onboarding_answers (
		user_id     BIGINT NOT NULL,
		step_id     TEXT NOT NULL,
		answer      TEXT NOT NULL, -- JSON as received (after unwrapping a JSON string)
		answered_ms BIGINT NOT NULL,
		PRIMARY KEY (user_id, step_id)
	) ;
	CREATE TABLE onboarding_preferences (
		user_id BIGINT NOT NULL,
		key     TEXT NOT NULL,
		value   TEXT NOT NULL,
		PRIMARY KEY (user_id, key)
	) ;`},
}

// New loads and checks the flow and migrates the "onboarding" tables.
func New(db *sql.DB, cfg Config) (*Service, error) {
	var data []byte
	var err error
	if cfg.FlowFile != "" {
		data, err = os.ReadFile(cfg.FlowFile)
	} else {
		data, err = fs.ReadFile(assets.Sub("onboarding"), "flow.json")
	}
	if err != nil {
		return nil, fmt.Errorf("onboarding flow: %w", err)
	}
	fl, err := parseFlow(data)
	if err != nil {
		return nil, err
	}
	if err := Migrate(context.Background(), db); err != nil {
		return nil, err
	}
	preference, err := db.Prepare(`SELECT value FROM onboarding_preferences WHERE user_id = $1 AND key = $2`)
	if err != nil {
		return nil, fmt.Errorf("onboarding: %w", err)
	}
	return &Service{db: db, flow: fl, cfg: cfg, preference: preference}, nil
}

// progress is a user's row; a user without one has not started.
type progress struct {
	position  string // where to deliver from
	stored    string // position as the row holds it (differs after a flow change)
	failures  int
	completed bool
	exists    bool
}

func (s *Service) progress(ctx context.Context, userID int64) (progress, error) {
	var p progress
	err := s.db.QueryRowContext(ctx, `SELECT position, failures, completed FROM onboarding_progress WHERE user_id = $1`,
		userID).Scan(&p.position, &p.failures, &p.completed)
	if errors.Is(err, sql.ErrNoRows) {
		return progress{position: s.flow.start}, nil
	}
	if err != nil {
		return progress{}, fmt.Errorf("onboarding: read progress: %w", err)
	}
	p.exists = true
	p.stored = p.position
	if s.flow.steps[p.position] == nil {
		// The operator replaced the flow and the step is gone: start over.
		p.position, p.failures = s.flow.start, 0
	}
	return p, nil
}

// batch lists the steps delivered from position: messages up to and
// including the first waiting step or END. parseFlow guarantees that every
// chain of messages ends; the bound only keeps a broken flow from hanging.
func (s *Service) batch(position string) []*step {
	var out []*step
	for st := s.flow.steps[position]; len(out) <= len(s.flow.steps); st = s.flow.steps[st.next] {
		out = append(out, st)
		if st.typ != ShowMessage {
			break
		}
	}
	return out
}

// Start returns the user's current steps, or none once onboarding is done.
func (s *Service) Start(ctx context.Context, userID int64) ([]Step, error) {
	defer s.lock(userID)()
	p, err := s.progress(ctx, userID)
	if err != nil {
		return nil, err
	}
	if p.completed {
		return []Step{}, nil
	}
	return s.deliver(ctx, userID, p, p.position)
}

// deliver renders the batch at position and records it as the user's
// position, completing the onboarding when the batch reaches END. from is
// the progress the caller read; if another request moved the user on in
// between, this one answers 400 instead of overwriting it.
func (s *Service) deliver(ctx context.Context, userID int64, from progress, position string) ([]Step, error) {
	steps := s.batch(position)
	out := make([]Step, 0, len(steps))
	for _, st := range steps {
		rendered, err := s.render(ctx, userID, st)
		if err != nil {
			return nil, err
		}
		out = append(out, rendered)
	}
	completed := steps[len(steps)-1].typ == End
	if !from.exists || from.stored != position || completed {
		if err := s.move(ctx, userID, from, position, completed, nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// render builds the client form of a step; a survey step gets its items.
func (s *Service) render(ctx context.Context, userID int64, st *step) (Step, error) {
	out := Step{ID: st.id, Type: st.typ, Payload: st.raw}
	if st.typ == ShowMessage {
		next := st.next
		out.Next = &next
	}
	switch {
	case st.selection != nil:
		// Branch targets are the server's business, not the client's.
		type wireOption struct {
			Key          string `json:"key"`
			Text         string `json:"text"`
			ColorAck     string `json:"colorAck"`
			TextColorAck string `json:"textColorAck"`
		}
		p := struct {
			Message   string       `json:"message"`
			Parameter string       `json:"parameter"`
			Options   []wireOption `json:"options"`
		}{Message: st.selection.Message, Parameter: st.selection.Parameter}
		for _, o := range st.selection.Options {
			p.Options = append(p.Options, wireOption{o.Key, o.Text, o.ColorAck, o.TextColorAck})
		}
		b, err := json.Marshal(p)
		if err != nil {
			return Step{}, fmt.Errorf("onboarding: render step %s: %w", st.id, err)
		}
		out.Payload = b
	case st.survey != nil:
		p := *st.survey
		p.Items = []SurveyItem{}
		if s.cfg.SurveyItems != nil {
			items, err := s.cfg.SurveyItems(ctx, userID, p.SurveyID)
			if err != nil {
				return Step{}, fmt.Errorf("onboarding: items of survey %d: %w", p.SurveyID, err)
			}
			if items != nil {
				p.Items = items
			}
		}
		b, err := json.Marshal(p)
		if err != nil {
			return Step{}, fmt.Errorf("onboarding: render step %s: %w", st.id, err)
		}
		out.Payload = b
	}
	return out, nil
}

// pending is what an accepted answer writes besides the new position.
type pending struct {
	stepID string
	answer []byte
	prefs  map[string]string
}

// move sets the user's position, provided it is still what from says, and
// writes the answer of the step being left.
func (s *Service) move(ctx context.Context, userID int64, from progress, position string, completed bool, ans *pending) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("onboarding: save: %w", err)
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	var res sql.Result
	if from.exists {
		res, err = tx.ExecContext(ctx, `UPDATE onboarding_progress SET position = $1, failures = 0, completed = $2, updated_ms = $3
			WHERE user_id = $4 AND position = $5 AND failures = $6 AND completed = 0`,
			position, store.Flag(completed), now, userID, from.stored, from.failures)
	} else {
		res, err = tx.ExecContext(ctx, `INSERT INTO onboarding_progress(user_id, position, completed, updated_ms) VALUES($1, $2, $3, $4)
			ON CONFLICT(user_id) DO NOTHING`, userID, position, store.Flag(completed), now)
	}
	if err != nil {
		return fmt.Errorf("onboarding: save: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return apierr.BadRequestf("the onboarding moved on in another request; fetch the current steps again")
	}
	if ans != nil {
		if _, err := tx.ExecContext(ctx, `INSERT INTO onboarding_answers(user_id, step_id, answer, answered_ms) VALUES($1, $2, $3, $4)
			ON CONFLICT(user_id, step_id) DO UPDATE SET answer = excluded.answer, answered_ms = excluded.answered_ms`,
			userID, ans.stepID, string(ans.answer), now); err != nil {
			return fmt.Errorf("onboarding: save answer: %w", err)
		}
		for k, v := range ans.prefs {
			if _, err := tx.ExecContext(ctx, `INSERT INTO onboarding_preferences(user_id, key, value) VALUES($1, $2, $3)
				ON CONFLICT(user_id, key) DO UPDATE SET value = excluded.value`, userID, k, v); err != nil {
				return fmt.Errorf("onboarding: save preference: %w", err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("onboarding: save: %w", err)
	}
	return nil
}

// Preference returns a value the user chose during onboarding ("units",
// "temperature", "USERNAME", ...).
func (s *Service) Preference(ctx context.Context, userID int64, key string) (string, bool, error) {
	var v string
	err := s.preference.QueryRowContext(ctx, userID, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("onboarding: read preference: %w", err)
	}
	return v, true, nil
}

// Answer takes the user's answer to a waiting step and returns the steps
// that follow. data is the JSON object, or a JSON string holding its text.
func (s *Service) Answer(ctx context.Context, userID int64, stepID string, data json.RawMessage) ([]Step, error) {
	defer s.lock(userID)()
	p, err := s.progress(ctx, userID)
	if err != nil {
		return nil, err
	}
	st := s.flow.steps[stepID]
	if st == nil {
		return nil, apierr.BadRequestf("unknown onboarding step %q", stepID)
	}
	if p.completed {
		return nil, apierr.BadRequestf("onboarding is already complete")
	}
	current := s.batch(p.position)
	if waiting := current[len(current)-1]; waiting != st || !st.waits() {
		if waiting.waits() {
			return nil, apierr.BadRequestf("step %q is not waiting for an answer; step %q is", stepID, waiting.id)
		}
		return nil, apierr.BadRequestf("step %q is not waiting for an answer", stepID)
	}
	answer, err := decodeData(data)
	if err != nil {
		return nil, err
	}

	ans := &pending{stepID: st.id, answer: answer, prefs: map[string]string{}}
	next := st.next
	switch st.typ {
	case WaitAck:
		// Any object acknowledges.
	case WaitInput:
		value, err := s.checkInput(ctx, userID, p, st, answer)
		if err != nil {
			return nil, err
		}
		ans.answer, _ = json.Marshal(map[string]string{st.input.Parameter: value})
		key := st.input.Preference
		if key == "" {
			key = st.input.Parameter
		}
		ans.prefs[key] = value
		if key == PreferenceUsername && s.cfg.SetName != nil {
			if err := s.cfg.SetName(ctx, userID, value); err != nil {
				return nil, fmt.Errorf("onboarding: set name: %w", err)
			}
		}
	case WaitSelection:
		key, err := stringField(answer, st.selection.Parameter)
		if err != nil {
			return nil, err
		}
		var chosen *option
		for i := range st.selection.Options {
			if st.selection.Options[i].Key == key {
				chosen = &st.selection.Options[i]
			}
		}
		if chosen == nil {
			return nil, apierr.InvalidArgumentf("%q is not an option of step %q", key, st.id)
		}
		ans.prefs[st.selection.Parameter] = key
		if chosen.Next != "" {
			next = chosen.Next
		}
	case WaitPermission:
		if err := checkPermissions(answer, st.permission.Permissions); err != nil {
			return nil, err
		}
	case ShowSurvey:
		ids, err := surveyAnswer(answer, st.survey)
		if err != nil {
			return nil, err
		}
		if s.cfg.SetSurvey != nil {
			if err := s.cfg.SetSurvey(ctx, userID, st.survey.SurveyID, ids); err != nil {
				if ae, ok := apierr.As(err); ok {
					return nil, ae
				}
				return nil, fmt.Errorf("onboarding: set survey %d: %w", st.survey.SurveyID, err)
			}
		}
	}
	if err := s.move(ctx, userID, p, next, false, ans); err != nil {
		return nil, err
	}
	moved := progress{position: next, stored: next, exists: true}
	return s.deliver(ctx, userID, moved, next)
}

// checkInput validates a WAIT_INPUT answer and returns the value to keep:
// the input, or defaultValue once the retries are spent.
func (s *Service) checkInput(ctx context.Context, userID int64, p progress, st *step, answer []byte) (string, error) {
	value, err := stringField(answer, st.input.Parameter)
	if err != nil {
		return "", err
	}
	value = strings.TrimSpace(value)
	ok := value != ""
	for _, re := range st.patterns {
		ok = ok && re.MatchString(value)
	}
	if ok {
		return value, nil
	}
	v := st.input.Validation
	if p.failures >= v.Retries && st.input.DefaultValue != "" {
		return st.input.DefaultValue, nil
	}
	// Count the failure, only if nobody moved the user on meanwhile.
	if !p.exists || p.stored != p.position {
		if err := s.move(ctx, userID, p, p.position, false, nil); err != nil {
			return "", err
		}
		p.failures = 0
	}
	res, err := s.db.ExecContext(ctx, `UPDATE onboarding_progress SET failures = failures + 1, updated_ms = $1
		WHERE user_id = $2 AND position = $3 AND failures = $4 AND completed = 0`,
		time.Now().UnixMilli(), userID, p.position, p.failures)
	if err != nil {
		return "", fmt.Errorf("onboarding: count failed attempt: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return "", apierr.BadRequestf("the onboarding moved on in another request; fetch the current steps again")
	}
	left := v.Retries - p.failures - 1
	if st.input.DefaultValue == "" || left > 0 {
		return "", apierr.InvalidArgumentf("%q is not a valid %s; attempts left: %d", value, st.input.Parameter, max(left, 0))
	}
	return "", apierr.InvalidArgumentf("%q is not a valid %s; a further invalid answer takes %q", value, st.input.Parameter, st.input.DefaultValue)
}

// decodeData accepts the answer as a JSON object, or as a JSON string
// holding the object's text (the form field of the sample). Empty data is
// the empty object, which is what acknowledging steps expect.
func decodeData(data json.RawMessage) ([]byte, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return []byte(`{}`), nil
	}
	if data[0] == '"' {
		var text string
		if err := json.Unmarshal(data, &text); err != nil {
			return nil, apierr.BadRequestf("data is not valid JSON")
		}
		data = bytes.TrimSpace([]byte(text))
		if len(data) == 0 {
			return []byte(`{}`), nil
		}
	}
	var obj map[string]json.RawMessage
	if data[0] != '{' || json.Unmarshal(data, &obj) != nil {
		return nil, apierr.BadRequestf("data must be a JSON object")
	}
	compact := new(bytes.Buffer)
	if err := json.Compact(compact, data); err != nil {
		return nil, apierr.BadRequestf("data must be a JSON object")
	}
	return compact.Bytes(), nil
}

// stringField reads the string value of key in a JSON object.
func stringField(obj []byte, key string) (string, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return "", apierr.BadRequestf("data must be a JSON object")
	}
	raw, ok := m[key]
	if !ok {
		return "", apierr.BadRequestf("data must hold the key %q", key)
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", apierr.BadRequestf("%q must be a string", key)
	}
	return v, nil
}

// checkPermissions accepts permission names of the step mapped to a
// boolean or a string.
func checkPermissions(obj []byte, allowed []string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(obj, &m); err != nil {
		return apierr.BadRequestf("data must be a JSON object")
	}
	for k, raw := range m {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return apierr.InvalidArgumentf("%q is not a permission this step asks for (%s)", k, strings.Join(allowed, ", "))
		}
		var b bool
		var s string
		if json.Unmarshal(raw, &b) != nil && json.Unmarshal(raw, &s) != nil {
			return apierr.BadRequestf("the answer for %s must be a boolean or a string", k)
		}
	}
	return nil
}

// surveyAnswer reads {"survey_id": "3", "item_id_list": "1,4,5"} for the
// step's survey and returns the distinct item ids in the order given.
func surveyAnswer(obj []byte, sp *surveyPayload) ([]int, error) {
	var a struct {
		SurveyID json.RawMessage `json:"survey_id"`
		Items    *string         `json:"item_id_list"`
	}
	if err := json.Unmarshal(obj, &a); err != nil {
		return nil, apierr.BadRequestf("data must be {\"survey_id\": \"<id>\", \"item_id_list\": \"<ids separated by commas>\"}")
	}
	var idText string
	if err := json.Unmarshal(a.SurveyID, &idText); err != nil {
		// A number is fine too.
		var n json.Number
		if json.Unmarshal(a.SurveyID, &n) != nil {
			return nil, apierr.BadRequestf("survey_id must be the survey id as a string")
		}
		idText = n.String()
	}
	if id, err := strconv.Atoi(strings.TrimSpace(idText)); err != nil || id != sp.SurveyID {
		return nil, apierr.InvalidArgumentf("survey_id %q is not the survey of this step (%d)", idText, sp.SurveyID)
	}
	if a.Items == nil {
		return nil, apierr.BadRequestf("data must hold item_id_list, the selected item ids separated by commas")
	}
	ids := []int{}
	seen := map[int]bool{}
	for _, part := range strings.Split(*a.Items, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, err := strconv.Atoi(part)
		if err != nil || id <= 0 {
			return nil, apierr.InvalidArgumentf("item id %q is not a positive integer", part)
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	if len(ids) < sp.MinOptions {
		return nil, apierr.InvalidArgumentf("select at least %d items (%d selected)", sp.MinOptions, len(ids))
	}
	return ids, nil
}

// Migrate brings the onboarding tables of db up to this harkd's schema.
func Migrate(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "onboarding", migrations)
}
