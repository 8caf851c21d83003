// Package openapi describes harkd's HTTP interface as an OpenAPI 3.1
// document served at GET /v2/openapi.json. The schemas are derived by
// reflection from the Go types the handlers actually encode, so the shapes
// the contract leaves unshown (sports, events, TV, breakdowns, jobs,
// places) are defined once, in the server's models (DECISIONS §9), and the
// document cannot drift from them.
package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/harkhq/hark/server/accounts"
	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/items"
	"github.com/harkhq/hark/server/onboarding"
	"github.com/harkhq/hark/server/storage"
	"github.com/harkhq/hark/server/surveys"
	"github.com/harkhq/hark/server/tracking"
)

// models are the named schemas of the document.
var models = map[string]any{
	"Error":          apierr.Error{},
	"AccessToken":    accounts.Token{},
	"DialogueAnswer": dialogue.Response{},
	"SurveyEntry":    surveys.Entry{},
	"Survey":         surveys.Detail{},
	"OnboardingStep": onboarding.Step{},
	"ItemList":       items.Envelope{},
	"MovieItem":      items.MovieItem{},
	"RestaurantItem": items.RestaurantItem{},
	"NewsItem":       items.NewsItem{},
	"NewsCategory":   items.NewsCategory{},
	"WeatherItem":    items.WeatherItem{},
	"BreakdownItem":  items.BreakdownItem{},
	"MatchItem":      items.MatchItem{},
	"RankingItem":    items.RankingItem{},
	"MotorItem":      items.MotorItem{},
	"GolfItem":       items.GolfItem{},
	"TennisItem":     items.TennisItem{},
	"BikingItem":     items.BikingItem{},
	"EventItem":      items.EventItem{},
	"TVItem":         items.TVItem{},
	"TrackingJob":    tracking.Job{},
	"Place":          tracking.Place{},
	"FileEntry":      storage.Entry{},
}

// route is one operation: method, path, authentication, what it answers.
type route struct {
	method, path, auth, summary, answer string
	codes                               []string
}

var routes = []route{
	{"POST", "/auth/register", "", "register with e-mail and password", "AccessToken", []string{"201", "400", "401", "403", "409"}},
	{"POST", "/auth/login", "", "log in with e-mail and password", "AccessToken", []string{"200", "400", "401", "429"}},
	{"POST", "/auth/logout", "token", "revoke the access token", "", []string{"204", "401"}},
	{"POST", "/auth/user", "signature", "anonymous register or login by externalId", "AccessToken", []string{"200", "201", "400", "401"}},
	{"POST", "/query/text", "token", "ask the assistant in text", "DialogueAnswer", []string{"200", "400", "401", "429"}},
	{"POST", "/query/audio/data", "token", "ask the assistant with a WAV", "DialogueAnswer", []string{"200", "400", "401", "503"}},
	{"POST", "/query/audio/stream", "token", "ask by streamed WAV; answered with a streamed MP3 and Service-Response-Info", "", []string{"200", "400", "401", "503"}},
	{"GET", "/query/audio/{id}", "", "the spoken answer as MP3", "", []string{"200", "204", "400", "404"}},
	{"GET", "/surveys/", "token", "list the surveys", "SurveyEntry[]", []string{"200", "401"}},
	{"GET", "/surveys/{surveyId}", "token", "a survey with the user's selection", "Survey", []string{"200", "401", "404"}},
	{"POST", "/surveys/{surveyId}", "token", "replace the user's selection", "Survey", []string{"200", "400", "401", "404"}},
	{"GET", "/onboarding/start", "token", "the steps up to the first that waits", "OnboardingStep[]", []string{"200", "401"}},
	{"POST", "/onboarding/{stepId}/response", "token", "answer a waiting step", "OnboardingStep[]", []string{"200", "400", "401"}},
	{"GET", "/items/movies", "token", "movies with theatres and schedules", "ItemList", itemCodes},
	{"GET", "/items/restaurants", "token", "restaurants with open-now", "ItemList", itemCodes},
	{"GET", "/items/news", "token", "personalised news (also /personal, /local, /popular, /category/{id}, any + /more)", "ItemList", itemCodes},
	{"GET", "/items/news/categories", "token", "news categories", "ItemList", itemCodes},
	{"GET", "/items/weather", "token", "current weather, by hour and by day, sun and moon", "ItemList", itemCodes},
	{"GET", "/items/breakdowns", "token", "today in four parts with clothing advice", "ItemList", itemCodes},
	{"GET", "/items/sport/match", "token", "match results", "ItemList", itemCodes},
	{"GET", "/items/sport/soccer/ranking", "token", "league table", "ItemList", itemCodes},
	{"GET", "/items/motor", "token", "motor racing", "ItemList", itemCodes},
	{"GET", "/items/golf", "token", "golf", "ItemList", itemCodes},
	{"GET", "/items/tennis", "token", "tennis", "ItemList", itemCodes},
	{"GET", "/items/biking", "token", "cycling", "ItemList", itemCodes},
	{"GET", "/items/nearevents", "token", "events nearby", "ItemList", itemCodes},
	{"GET", "/items/tv", "token", "TV schedules", "ItemList", itemCodes},
	{"GET", "/datasets/{city}.json", "", "a simulated tracking dataset", "", []string{"200", "404"}},
	{"POST", "/tracking/uploadDataset", "token", "load a dataset (asynchronous)", "TrackingJob", []string{"202", "400", "401"}},
	{"GET", "/tracking/uploadDataset/{requestId}", "token", "state of a dataset load", "TrackingJob", []string{"200", "401", "404"}},
	{"GET", "/tracking/pois", "token", "the user's detected places", "Place[]", []string{"200", "401"}},
	{"POST", "/storage/file/upload/{folder}", "signature", "upload (multipart field file); without {folder}: the root", "", []string{"200", "400", "401", "404"}},
	{"GET", "/storage/file/download/{folder}/{file}", "signature", "download, with Range and ETag", "", []string{"200", "206", "304", "400", "401", "404"}},
	{"GET", "/storage/file/exists/{folder}/{file}", "signature", "whether a file exists", "", []string{"200", "400", "401"}},
	{"DELETE", "/storage/file/delete/{folder}/{file}", "signature", "delete a file", "", []string{"204", "400", "401"}},
	{"DELETE", "/storage/file/deletes/{folder}", "signature", "delete the files named in the form field files", "", []string{"204", "400", "401"}},
	{"GET", "/storage/file/list/{folder}", "signature", "list files (prefix, suffix, from, to, minSize, maxSize)", "FileEntry[]", []string{"200", "400", "401"}},
	{"PUT", "/storage/folder/create/{folder}", "signature", "create a folder", "", []string{"200", "400", "401"}},
	{"GET", "/storage/folder/exists/{folder}", "signature", "whether a folder exists", "", []string{"200", "400", "401"}},
	{"DELETE", "/storage/folder/delete/{folder}", "signature", "delete a folder and its files", "", []string{"204", "400", "401"}},
	{"GET", "/storage/folder/list", "signature", "folder names", "", []string{"200", "401"}},
	{"GET", "/storage/total-size", "signature", "bytes used by the workspace", "", []string{"200", "401"}},
	{"DELETE", "/storage/clear", "signature", "ask for a clear confirmation token", "", []string{"200", "401"}},
	{"DELETE", "/storage/clear/{token}", "signature", "empty the workspace", "", []string{"200", "400", "401"}},
}

var itemCodes = []string{"200", "400", "401", "404", "429"}

var (
	once sync.Once
	doc  []byte
)

// Document returns the OpenAPI document as JSON.
func Document() []byte {
	once.Do(func() {
		schemas := map[string]any{}
		for name, v := range models {
			schemas[name] = schemaOf(reflect.TypeOf(v), 0)
		}
		paths := map[string]map[string]any{}
		for _, r := range routes {
			op := map[string]any{"summary": r.summary, "responses": responses(r)}
			switch r.auth {
			case "token":
				op["security"] = []any{map[string]any{"token": []any{}}}
			case "signature":
				op["security"] = []any{map[string]any{"signature": []any{}}}
			}
			if paths[r.path] == nil {
				paths[r.path] = map[string]any{}
			}
			paths[r.path][strings.ToLower(r.method)] = op
		}
		d := map[string]any{
			"openapi": "3.1.0",
			"info": map[string]any{"title": "hark platform", "version": "2",
				"description": "Accounts, dialogue, surveys, onboarding, domain items, tracking datasets and storage. The recommendation service is under /recomm."},
			"servers": []any{map[string]any{"url": "/v2"}},
			"paths":   paths,
			"components": map[string]any{
				"schemas": schemas,
				"securitySchemes": map[string]any{
					"token":     map[string]any{"type": "http", "scheme": "basic", "description": "Authorization: Basic <access token>"},
					"signature": map[string]any{"type": "apiKey", "in": "header", "name": "X-Service-apikey", "description": "with X-Service-timestamp, X-Service-nonce and X-Service-hmac (HMAC-SHA1)"},
				},
			},
		}
		doc, _ = json.MarshalIndent(d, "", "  ")
	})
	return doc
}

func responses(r route) map[string]any {
	out := map[string]any{}
	for _, c := range r.codes {
		resp := map[string]any{"description": c}
		switch {
		case c[0] >= '4':
			resp["content"] = jsonContent(ref("Error"))
		case r.answer != "" && c[0] == '2' && c != "204":
			if name, ok := strings.CutSuffix(r.answer, "[]"); ok {
				resp["content"] = jsonContent(map[string]any{"type": "array", "items": ref(name)})
			} else {
				resp["content"] = jsonContent(ref(r.answer))
			}
		}
		out[c] = resp
	}
	return out
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }

func jsonContent(schema any) map[string]any {
	return map[string]any{"application/json": map[string]any{"schema": schema}}
}

// schemaOf maps a Go type to a JSON schema as encoding/json would encode it.
func schemaOf(t reflect.Type, depth int) map[string]any {
	if depth > 12 {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		s := schemaOf(t.Elem(), depth+1)
		s["nullable"] = true
		return s
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return map[string]any{"type": "string"}
		}
		return map[string]any{"type": "array", "items": schemaOf(t.Elem(), depth+1)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": schemaOf(t.Elem(), depth+1)}
	case reflect.Struct:
		if t.String() == "time.Time" {
			return map[string]any{"type": "string", "format": "date-time"}
		}
		props := map[string]any{}
		addFields(t, props, depth)
		return map[string]any{"type": "object", "properties": props}
	}
	// interfaces and anything else: any JSON value
	return map[string]any{}
}

func addFields(t reflect.Type, props map[string]any, depth int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || (!f.IsExported() && !f.Anonymous) {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			addFields(f.Type, props, depth)
			continue
		}
		if name == "" {
			name = f.Name
		}
		props[name] = schemaOf(f.Type, depth+1)
	}
}
