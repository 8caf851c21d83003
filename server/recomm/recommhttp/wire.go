package recommhttp

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/recomm/catalog"
	"github.com/harkhq/hark/server/recomm/rsql"
)

// number is a JSON number that public clients may also send quoted.
type number struct {
	v   float64
	set bool
}

func (n *number) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if s == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return apierr.InvalidArgumentf("%s is not a number", b)
	}
	n.v, n.set = f, true
	return nil
}

func (n number) ptr() *float64 {
	if !n.set {
		return nil
	}
	v := n.v
	return &v
}

type attributeJSON struct {
	AttributeID string        `json:"attributeId"`
	Type        string        `json:"type"`
	Indexed     *httpapi.Bool `json:"indexed,omitempty"`
	Values      []string      `json:"values,omitempty"`
}

func (a attributeJSON) attribute() (catalog.Attribute, error) {
	t, ok := rsql.ParseType(a.Type)
	if !ok {
		return catalog.Attribute{}, apierr.InvalidArgumentf("attribute %q: type %q is not one of int, double, string, boolean, timestamp, set, category, categoryList, image, imageList", a.AttributeID, a.Type)
	}
	out := catalog.Attribute{ID: a.AttributeID, Type: t, Values: a.Values}
	if a.Indexed != nil {
		out.Indexed = bool(*a.Indexed)
	}
	return out, nil
}

func attributesFrom(list []attributeJSON) ([]catalog.Attribute, error) {
	out := make([]catalog.Attribute, 0, len(list))
	for _, a := range list {
		x, err := a.attribute()
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func attributeInfo(a catalog.Attribute) attributeJSON {
	out := attributeJSON{AttributeID: a.ID, Type: a.Type.String(), Values: a.Values}
	b := httpapi.Bool(a.Indexed)
	out.Indexed = &b
	return out
}

type interactionJSON struct {
	InteractionID string        `json:"interactionId"`
	Weight        *number       `json:"weight,omitempty"`
	Cumulative    *httpapi.Bool `json:"cumulative,omitempty"`
	Type          string        `json:"type,omitempty"`
	Polarity      string        `json:"polarity,omitempty"`
	MaxValue      *number       `json:"maxValue,omitempty"`
	MinValue      *number       `json:"minValue,omitempty"`
}

type interactionInfo struct {
	InteractionID string  `json:"interactionId"`
	Weight        float64 `json:"weight"`
	Cumulative    bool    `json:"cumulative"`
	Type          string  `json:"type"`
	Polarity      string  `json:"polarity"`
	MinValue      float64 `json:"minValue"`
	MaxValue      float64 `json:"maxValue"`
}

// infoOf always carries minValue and maxValue, as the vendor's answers do: the defaults of the type
// when they were not given. JSON has no infinity, so the open ends of a continuous interaction are
// written as the largest finite doubles.
func infoOf(d catalog.InteractionDef) interactionInfo {
	lo, hi := d.Bounds()
	return interactionInfo{InteractionID: d.ID, Weight: d.Weight, Cumulative: d.Cumulative, Type: d.Type,
		Polarity: d.Polarity, MinValue: max(lo, -math.MaxFloat64), MaxValue: min(hi, math.MaxFloat64)}
}

// timestampLayout is the local date-time of trainConfig timestamps.
const timestampLayout = "2006-01-02T15:04:05.000"

// jsonValue renders a catalog value; timestamps become ISO 8601 UTC.
func jsonValue(t rsql.Type, v any) any {
	if t == rsql.Timestamp {
		if ms, ok := v.(int64); ok {
			return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
		}
	}
	return v
}

func entityJSON(idKey string, e catalog.Entity, schema rsql.Schema, only []string) map[string]any {
	out := map[string]any{idKey: e.ID}
	for k, v := range e.Values {
		if only != nil && !contains(only, k) {
			continue
		}
		out[k] = jsonValue(schema[k], v)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// decode reads a JSON body with the API's size limit.
func (s *Service) decode(r *http.Request, v any) error {
	return httpapi.DecodeJSON(r, s.maxJSON, v)
}

// listQuery reads filter, sort, limit and afterId.
func listQuery(r *http.Request) (catalog.ListQuery, error) {
	q := r.URL.Query()
	lq := catalog.ListQuery{Filter: q.Get("filter"), Sort: q.Get("sort"), AfterID: q.Get("afterId"), Search: q.Get("search")}
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			return lq, apierr.InvalidArgumentf("limit must be a positive integer, not %q", l)
		}
		lq.Limit = n
	}
	return lq, nil
}

// attributesParam reads `(a,b,c)` (parentheses optional); nil when absent.
func attributesParam(r *http.Request) []string {
	raw, ok := r.URL.Query()["attributes"]
	if !ok {
		return nil
	}
	s := strings.TrimSpace(strings.Join(raw, ","))
	s = strings.TrimSuffix(strings.TrimPrefix(s, "("), ")")
	out := []string{}
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func noContent(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func created(w http.ResponseWriter) error {
	w.WriteHeader(http.StatusCreated)
	return nil
}

func boolParam(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	b, ok := httpapi.ParseBool(v)
	if !ok {
		return false, apierr.InvalidArgumentf("%s must be true or false, not %q", name, v)
	}
	return b, nil
}

// jobStatus is the status answer of the three kinds of request.
func jobStatus(id, status string) map[string]any {
	return map[string]any{"requestId": id, "status": status}
}

func decodeResult[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 {
		return v, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("decode job result: %w", err)
	}
	return v, nil
}
