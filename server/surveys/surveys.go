// Package surveys keeps the interest surveys of harkd (news topics, music,
// cuisine, sports, movie genres) and each user's answers to them.
//
// The survey catalogue is embedded data (assets/data/surveys/surveys.json);
// answers live in SQLite. Every item carries a weight from 0 to 1, the
// user's interest strength (DECISIONS §8): selecting an item sets it to 1,
// deselecting it sets it to 0, and use nudges it towards 1 with
//
//	weight ← weight + NudgeStep·(1 − weight)
//
// so repeated use approaches 1 without passing it and a strong interest
// moves less than a weak one. Profile turns the weights into category keys
// ("news:technology", "cuisine:italian", "sport:soccer", "music:jazz",
// "movie:comedy") that the domain items use for ordering.
package surveys

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/harkhq/hark/assets"
	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/items/pictogram"
	"github.com/harkhq/hark/server/store"
)

// NudgeStep is the fraction of the remaining distance to 1 that one use adds
// to an item's weight.
const NudgeStep = 0.25

// Entry is one row of GET /surveys/.
type Entry struct {
	SurveyID int    `json:"surveyId"`
	Title    string `json:"title"`
}

// Item is one answer option of a survey detail.
type Item struct {
	ID       int     `json:"id"`
	Texto    string  `json:"texto"`
	Imagen   string  `json:"imagen"`
	Selected bool    `json:"selected"`
	Weight   float64 `json:"weight"`
}

// Detail is the answer of GET and POST /surveys/{id}.
type Detail struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	Items []Item `json:"items"`
}

// Profile maps category keys ("music:jazz") to interest weights in (0, 1].
type Profile map[string]float64

type catalogueItem struct {
	ID    int    `json:"id"`
	Key   string `json:"key"`
	Texto string `json:"texto"`
	Shape string `json:"shape"`
	Color string `json:"color"`
}

type survey struct {
	ID       int             `json:"id"`
	Title    string          `json:"title"`
	Category string          `json:"category"`
	Items    []catalogueItem `json:"items"`
}

func (s *survey) item(id int) *catalogueItem {
	for i := range s.Items {
		if s.Items[i].ID == id {
			return &s.Items[i]
		}
	}
	return nil
}

// categoryKey is the profile key of an item, e.g. "cuisine:italian".
func (s *survey) categoryKey(it *catalogueItem) string { return s.Category + ":" + it.Key }

// iconName is the media name of an item's icon, e.g. "cuisine-italian".
func (s *survey) iconName(it *catalogueItem) string { return s.Category + "-" + it.Key }

// catalogue is parsed once: it is embedded, immutable data.
var catalogue = sync.OnceValues(func() ([]survey, error) { return loadCatalogue(assets.Sub("surveys")) })

func loadCatalogue(fsys fs.FS) ([]survey, error) {
	raw, err := fs.ReadFile(fsys, "surveys.json")
	if err != nil {
		return nil, fmt.Errorf("read survey catalogue: %w", err)
	}
	var doc struct {
		Surveys []survey `json:"surveys"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("parse survey catalogue: %w", err)
	}
	seen := map[int]bool{}
	for _, s := range doc.Surveys {
		if seen[s.ID] || s.Category == "" || len(s.Items) == 0 {
			return nil, fmt.Errorf("survey catalogue: survey %d is duplicated, has no category or no items", s.ID)
		}
		seen[s.ID] = true
		ids := map[int]bool{}
		for _, it := range s.Items {
			if ids[it.ID] || it.Key == "" || it.Texto == "" {
				return nil, fmt.Errorf("survey %d: item %d is duplicated or lacks key/texto", s.ID, it.ID)
			}
			ids[it.ID] = true
		}
	}
	return doc.Surveys, nil
}

// icons are drawn once, on first use, and kept in memory.
var icons = sync.OnceValues(func() (map[string][]byte, error) {
	surveys, err := catalogue()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for i := range surveys {
		s := &surveys[i]
		for j := range s.Items {
			it := &s.Items[j]
			png, err := pictogram.Draw(it.Shape, it.Color)
			if err != nil {
				return nil, fmt.Errorf("icon of survey %d item %d: %w", s.ID, it.ID, err)
			}
			out[s.iconName(it)] = png
		}
	}
	return out, nil
})

// Icon returns the PNG icon named name (without ".png"), as served at
// <baseURL>/v2/media/icons/<name>.png.
func Icon(name string) ([]byte, bool) {
	all, err := icons()
	if err != nil {
		return nil, false
	}
	b, ok := all[name]
	return b, ok
}

// Service answers survey requests for the users of one harkd.
type Service struct {
	db      *sql.DB
	surveys []survey
	// profile is prepared once: every item request reads the profile, and
	// parsing the SQL each time cost more than running it.
	profile *sql.Stmt
}

var migrations = []store.Step{
	{SQLite: `CREATE TABLE survey_answers (
		user_id   INTEGER NOT NULL,
		survey_id INTEGER NOT NULL,
		item_id   INTEGER NOT NULL,
		selected  INTEGER NOT NULL,
		weight    REAL NOT NULL,
		PRIMARY KEY (user_id, survey_id, item_id))`,
		Postgres: `CREATE TABLE survey_answers (
		user_id   BIGINT NOT NULL,
		survey_id BIGINT NOT NULL,
		item_id   BIGINT NOT NULL,
		selected  BIGINT NOT NULL,
		weight    DOUBLE PRECISION NOT NULL,
		PRIMARY KEY (user_id, survey_id, item_id))`},
}

// New migrates the surveys tables and draws the icons, so a broken
// catalogue fails at start rather than on a request.
func New(db *sql.DB) (*Service, error) {
	surveys, err := catalogue()
	if err != nil {
		return nil, err
	}
	if _, err := icons(); err != nil {
		return nil, err
	}
	if err := Migrate(context.Background(), db); err != nil {
		return nil, err
	}
	profile, err := db.Prepare(`SELECT survey_id, item_id, weight FROM survey_answers WHERE user_id = $1 AND weight > 0`)
	if err != nil {
		return nil, fmt.Errorf("surveys: %w", err)
	}
	return &Service{db: db, surveys: surveys, profile: profile}, nil
}

func (s *Service) survey(id int) (*survey, error) {
	for i := range s.surveys {
		if s.surveys[i].ID == id {
			return &s.surveys[i], nil
		}
	}
	return nil, apierr.NotFoundf("survey %d does not exist", id)
}

// List returns every survey, in catalogue order.
func (s *Service) List(ctx context.Context, userID int64) ([]Entry, error) {
	out := make([]Entry, len(s.surveys))
	for i, sv := range s.surveys {
		out[i] = Entry{SurveyID: sv.ID, Title: sv.Title}
	}
	return out, nil
}

type answer struct {
	selected bool
	weight   float64
}

func (s *Service) answers(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, userID int64, surveyID int) (map[int]answer, error) {
	rows, err := q.QueryContext(ctx, `SELECT item_id, selected, weight FROM survey_answers
		WHERE user_id = $1 AND survey_id = $2`, userID, surveyID)
	if err != nil {
		return nil, fmt.Errorf("read answers of survey %d: %w", surveyID, err)
	}
	defer rows.Close()
	out := map[int]answer{}
	for rows.Next() {
		var id int
		var a answer
		if err := rows.Scan(&id, &a.selected, &a.weight); err != nil {
			return nil, fmt.Errorf("read answers of survey %d: %w", surveyID, err)
		}
		out[id] = a
	}
	return out, rows.Err()
}

// Get returns the survey with the user's answers. Image URLs are
// <baseURL>/v2/media/icons/<name>.png; baseURL is scheme and host, and a
// trailing /v2 on it is accepted too.
func (s *Service) Get(ctx context.Context, userID int64, surveyID int, baseURL string) (Detail, error) {
	sv, err := s.survey(surveyID)
	if err != nil {
		return Detail{}, err
	}
	ans, err := s.answers(ctx, s.db, userID, surveyID)
	if err != nil {
		return Detail{}, err
	}
	return s.detail(sv, ans, baseURL), nil
}

func (s *Service) detail(sv *survey, ans map[int]answer, baseURL string) Detail {
	d := Detail{ID: sv.ID, Title: sv.Title, Items: make([]Item, len(sv.Items))}
	base := strings.TrimSuffix(strings.TrimSuffix(baseURL, "/"), "/v2")
	for i := range sv.Items {
		it := &sv.Items[i]
		a := ans[it.ID]
		d.Items[i] = Item{ID: it.ID, Texto: it.Texto, Imagen: base + "/v2/media/icons/" + sv.iconName(it) + ".png",
			Selected: a.selected, Weight: a.weight}
	}
	return d
}

// Select replaces the user's selection for the survey: the listed items are
// selected with weight 1, items selected before and not listed now are
// deselected with weight 0, and the rest keep the weight use gave them. An
// id that is not in the survey fails the whole request (400) and changes
// nothing. The answer is the updated detail.
func (s *Service) Select(ctx context.Context, userID int64, surveyID int, itemIDs []int, baseURL string) (Detail, error) {
	sv, err := s.survey(surveyID)
	if err != nil {
		return Detail{}, err
	}
	chosen := map[int]bool{}
	for _, id := range itemIDs {
		if sv.item(id) == nil {
			return Detail{}, apierr.InvalidArgumentf("item %d is not in survey %d", id, surveyID)
		}
		chosen[id] = true
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Detail{}, fmt.Errorf("select survey %d: %w", surveyID, err)
	}
	defer tx.Rollback()
	ans, err := s.answers(ctx, tx, userID, surveyID)
	if err != nil {
		return Detail{}, err
	}
	for _, it := range sv.Items {
		a, had := ans[it.ID]
		switch {
		case chosen[it.ID]:
			a = answer{selected: true, weight: 1}
		case had && a.selected:
			a = answer{selected: false, weight: 0}
		default:
			continue
		}
		ans[it.ID] = a
		if _, err := tx.ExecContext(ctx, `INSERT INTO survey_answers(user_id, survey_id, item_id, selected, weight)
			VALUES($1, $2, $3, $4, $5) ON CONFLICT(user_id, survey_id, item_id)
			DO UPDATE SET selected = excluded.selected, weight = excluded.weight`,
			userID, surveyID, it.ID, store.Flag(a.selected), a.weight); err != nil {
			return Detail{}, fmt.Errorf("select survey %d: %w", surveyID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Detail{}, fmt.Errorf("select survey %d: %w", surveyID, err)
	}
	return s.detail(sv, ans, baseURL), nil
}

// Nudge records one use of a topic: every item matching it moves
// NudgeStep of the way towards weight 1, without changing its selection.
// topic is a category key ("music:jazz") or an item key or text in any case
// ("jazz", "Hip hop"). It returns how many items matched; zero is not an
// error, because callers nudge with whatever topic a user talked about.
func (s *Service) Nudge(ctx context.Context, userID int64, topic string) (int, error) {
	type target struct{ survey, item int }
	var targets []target
	t := strings.ToLower(strings.TrimSpace(topic))
	for i := range s.surveys {
		sv := &s.surveys[i]
		for j := range sv.Items {
			it := &sv.Items[j]
			if t != "" && (t == sv.categoryKey(it) || t == it.Key || t == strings.ToLower(it.Texto)) {
				targets = append(targets, target{sv.ID, it.ID})
			}
		}
	}
	if len(targets) == 0 {
		return 0, nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("nudge %q: %w", topic, err)
	}
	defer tx.Rollback()
	for _, tg := range targets {
		if _, err := tx.ExecContext(ctx, `INSERT INTO survey_answers(user_id, survey_id, item_id, selected, weight)
			VALUES($1, $2, $3, 0, $4) ON CONFLICT(user_id, survey_id, item_id)
			DO UPDATE SET weight = survey_answers.weight + $5 * (1 - survey_answers.weight)`,
			userID, tg.survey, tg.item, NudgeStep, NudgeStep); err != nil {
			return 0, fmt.Errorf("nudge %q: %w", topic, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("nudge %q: %w", topic, err)
	}
	return len(targets), nil
}

// Profile returns the user's positive interest weights by category key.
func (s *Service) Profile(ctx context.Context, userID int64) (Profile, error) {
	rows, err := s.profile.QueryContext(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("read profile: %w", err)
	}
	defer rows.Close()
	p := Profile{}
	for rows.Next() {
		var sid, iid int
		var w float64
		if err := rows.Scan(&sid, &iid, &w); err != nil {
			return nil, fmt.Errorf("read profile: %w", err)
		}
		sv, err := s.survey(sid)
		if err != nil {
			continue // answers of a survey the catalogue no longer has
		}
		if it := sv.item(iid); it != nil {
			p[sv.categoryKey(it)] = max(p[sv.categoryKey(it)], w)
		}
	}
	return p, rows.Err()
}

// Migrate brings the surveys tables of db up to this harkd's schema.
func Migrate(ctx context.Context, db *sql.DB) error {
	return store.MigrateSteps(ctx, db, "surveys", migrations)
}
