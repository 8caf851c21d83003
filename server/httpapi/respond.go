package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/harkhq/hark/server/apierr"
)

// WriteJSON writes v as the JSON body with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, err = w.Write(body)
	return err
}

// WriteError writes the error body of DECISIONS §4.
func WriteError(w http.ResponseWriter, e *apierr.Error) {
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
	WriteJSON(w, e.Status, e)
}

// DecodeJSON reads the request body into v, bounded by limit bytes
// (limit <= 0 means 1 MiB). Unknown fields are allowed: clients send more
// than the contract names.
func DecodeJSON(r *http.Request, limit int64, v any) error {
	if limit <= 0 {
		limit = 1 << 20
	}
	body := http.MaxBytesReader(nil, r.Body, limit)
	dec := json.NewDecoder(body)
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return apierr.TooLargef("the body is larger than %d bytes", mbe.Limit)
		}
		return apierr.BadRequestf("malformed JSON: unexpected data after the object")
	}
	return nil
}

func jsonError(err error) error {
	var mbe *http.MaxBytesError
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &mbe):
		return apierr.TooLargef("the body is larger than %d bytes", mbe.Limit)
	case errors.Is(err, io.EOF):
		return apierr.BadRequestf("malformed JSON: the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return apierr.BadRequestf("malformed JSON: the body ends too early")
	case errors.As(err, &syn):
		return apierr.BadRequestf("malformed JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ):
		return apierr.BadRequestf("malformed JSON: field %q must be %s", typ.Field, typ.Type)
	default:
		return apierr.BadRequestf("malformed JSON: %s", err.Error())
	}
}

// Bool reads a lenient boolean (DECISIONS §1): JSON true/false or the
// strings true, false, yes, no, 1, 0 in any case.
type Bool bool

func (b *Bool) UnmarshalJSON(data []byte) error {
	v, ok := ParseBool(string(data))
	if !ok {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return apierr.BadRequestf("not a boolean: %s", data)
		}
		if v, ok = ParseBool(s); !ok {
			return apierr.BadRequestf("not a boolean: %q", s)
		}
	}
	*b = Bool(v)
	return nil
}

// ParseBool is the lenient boolean rule of DECISIONS §1.
func ParseBool(s string) (value, ok bool) {
	switch len(s) {
	case 1:
		switch s {
		case "1":
			return true, true
		case "0":
			return false, true
		}
	case 2, 3, 4, 5:
		switch lower(s) {
		case "true", "yes":
			return true, true
		case "false", "no":
			return false, true
		}
	}
	return false, false
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
