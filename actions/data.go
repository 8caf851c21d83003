package actions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// maxDataBytes bounds the data of one action; real data is a few hundred bytes.
const maxDataBytes = 64 << 10

// Bounds of the times the scheduler accepts.
const (
	maxAhead    = 10 * 365 * 24 * time.Hour // an alarm or appointment at most ten years ahead
	maxDuration = 366 * 24 * time.Hour      // a timer of at most a year
	pastSlack   = time.Minute               // an alarm this late still rings (clock skew)
)

// Text limits, in runes, of what is shown and stored.
const (
	maxLabel = 120
	maxName  = 64
	maxBody  = 4000
)

// decode reads the data of code into v: an object (or null/absent for all-optional
// shapes), with the right types; unknown fields are allowed so that a newer server does not
// break an older client.
func decode(code string, data json.RawMessage, v any) error {
	if len(data) > maxDataBytes {
		return &DataError{Code: code, Problem: fmt.Sprintf("%d bytes is too large", len(data))}
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	if trimmed[0] != '{' {
		return &DataError{Code: code, Problem: "must be a JSON object"}
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return &DataError{Code: code, Field: te.Field, Problem: "must be " + jsonKind(te.Type.Kind().String())}
		}
		return &DataError{Code: code, Problem: "not valid JSON: " + err.Error()}
	}
	return nil
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "int", "int64", "float64":
		return "a number"
	case "bool":
		return "true or false"
	}
	return "a " + goKind
}

// requiredEpoch is parseEpoch for a field that must be given.
func requiredEpoch(code, field string, raw json.RawMessage) (time.Time, error) {
	t, set, err := parseEpoch(code, field, raw)
	if err == nil && !set {
		err = &DataError{Code: code, Field: field, Problem: "missing"}
	}
	return t, err
}

// parseEpoch reads an epoch in milliseconds, sent as a string by the vendor samples and
// accepted as a number too. Absent, null or "" reports set == false.
func parseEpoch(code, field string, raw json.RawMessage) (t time.Time, set bool, err error) {
	s := string(bytes.TrimSpace(raw))
	if s == "" || s == "null" {
		return time.Time{}, false, nil
	}
	bad := func(problem string) (time.Time, bool, error) {
		return time.Time{}, false, &DataError{Code: code, Field: field, Problem: problem}
	}
	if strings.HasPrefix(s, `"`) {
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return bad("must be epoch milliseconds")
		}
		s = strings.TrimSpace(str)
		if s == "" {
			return time.Time{}, false, nil
		}
	}
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return bad(fmt.Sprintf("%.40q is not epoch milliseconds", s))
		}
		ms = int64(f)
	}
	// Years 1970..9999: anything else is garbage, and keeps time arithmetic far from overflow.
	if ms < 0 || ms > 253402300799999 {
		return bad(fmt.Sprintf("%d is out of range", ms))
	}
	return time.UnixMilli(ms), true, nil
}

// Shapes of the data of DECISIONS §5.
type (
	// alarmData: DELETE_ALARM may carry all (every alarm) or hour12 (the
	// time was said without AM/PM or day; an alarm at the same 12-hour
	// reading is the one meant when none is at the instant itself).
	alarmData struct {
		Time   json.RawMessage `json:"time"`
		Label  string          `json:"label"`
		All    bool            `json:"all"`
		Hour12 bool            `json:"hour12"`
	}
	// cancelTimerData is DELETE_TIMER: the timers labelled label, or every
	// timer when label is "".
	cancelTimerData struct {
		Label string `json:"label"`
	}
	// cronoData is RESET_CRONO: restart sets the stopwatch to zero and keeps
	// it running.
	cronoData struct {
		Restart bool `json:"restart"`
	}
	timerData struct {
		Duration json.RawMessage `json:"duration"`
		Label    string          `json:"label"`
	}
	appointmentData struct {
		Title string          `json:"title"`
		Start json.RawMessage `json:"start"`
		End   json.RawMessage `json:"end"`
	}
	musicData struct {
		URL    string `json:"url"`
		Title  string `json:"title"`
		Artist string `json:"artist"`
	}
	powerData struct {
		Device string `json:"device"`
		State  string `json:"state"`
	}
	channelData struct {
		Channel json.RawMessage `json:"channel"`
	}
	callData struct {
		Contact string `json:"contact"`
		Number  string `json:"number"`
	}
	levelData struct {
		Level json.RawMessage `json:"level"`
		Delta json.RawMessage `json:"delta"`
	}
	featureData struct {
		Feature string `json:"feature"`
	}
	appData struct {
		App string `json:"app"`
	}
	urlData struct {
		URL string `json:"url"`
	}
	navigateData struct {
		Destination string   `json:"destination"`
		Lat         *float64 `json:"lat"`
		Lon         *float64 `json:"lon"`
	}
	smsData struct {
		Contact string `json:"contact"`
		Text    string `json:"text"`
	}
	emailData struct {
		To      string `json:"to"`
		Subject string `json:"subject"`
		Body    string `json:"body"`
	}
)

// level is a decoded VOLUME_UPDATE or BRIGHTNESS_UPDATE: an absolute level or a change.
type level struct {
	absolute bool
	value    int
}

// apply gives the new level from the current one, clamped to 0..100.
func (l level) apply(current int) int {
	v := l.value
	if !l.absolute {
		v = current + l.value
	}
	return max(0, min(100, v))
}

func decodeLevel(code string, data json.RawMessage) (level, error) {
	var d levelData
	if err := decode(code, data, &d); err != nil {
		return level{}, err
	}
	hasLevel, hasDelta := present(d.Level), present(d.Delta)
	switch {
	case hasLevel && hasDelta:
		return level{}, &DataError{Code: code, Problem: "has both level and delta"}
	case hasLevel:
		v, err := wholeNumber(d.Level, 0, 100)
		if err != nil {
			return level{}, &DataError{Code: code, Field: "level", Problem: err.Error()}
		}
		return level{absolute: true, value: v}, nil
	case hasDelta:
		v, err := wholeNumber(d.Delta, -100, 100)
		if err != nil {
			return level{}, &DataError{Code: code, Field: "delta", Problem: err.Error()}
		}
		return level{value: v}, nil
	}
	return level{}, &DataError{Code: code, Problem: "needs level (0..100) or delta (-100..100)"}
}

// present tells whether a field was given a value other than null.
func present(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && string(raw) != "null"
}

// number reads a JSON number, or a string holding one (some vendors quote every value).
func number(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	s := string(raw)
	if strings.HasPrefix(s, `"`) {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, false
		}
		s = strings.TrimSpace(s)
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}

// wholeNumber reads an integer in lo..hi; 40.0 counts, 40.5 does not.
func wholeNumber(raw json.RawMessage, lo, hi int) (int, error) {
	f, ok := number(raw)
	if !ok || f != math.Trunc(f) {
		return 0, fmt.Errorf("%.40s is not a whole number", raw)
	}
	if f < float64(lo) || f > float64(hi) {
		return 0, fmt.Errorf("%s is outside %d..%d", strconv.FormatFloat(f, 'f', -1, 64), lo, hi)
	}
	return int(f), nil
}

// decodeDuration reads SET_TIMER's duration in milliseconds.
func decodeDuration(code string, raw json.RawMessage) (time.Duration, error) {
	if !present(raw) {
		return 0, &DataError{Code: code, Field: "duration", Problem: "missing"}
	}
	f, ok := number(raw)
	if !ok {
		return 0, &DataError{Code: code, Field: "duration", Problem: "must be milliseconds"}
	}
	if f <= 0 || f > float64(maxDuration/time.Millisecond) {
		return 0, &DataError{Code: code, Field: "duration", Problem: fmt.Sprintf("%.40s ms is outside 1 ms..366 days", raw)}
	}
	return time.Duration(f * float64(time.Millisecond)), nil
}

// channelText accepts the channel as a string or a number ("5" or 5).
func channelText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", errors.New("missing")
	}
	var s string
	if raw[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", errors.New("must be a string")
		}
	} else {
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return "", errors.New("must be a string or a number")
		}
		s = n.String()
	}
	s = cleanText(s, maxName)
	if s == "" {
		return "", errors.New("missing")
	}
	return s, nil
}
