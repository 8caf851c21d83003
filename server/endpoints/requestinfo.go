package endpoints

import (
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"time"

	"github.com/harkhq/hark/server/apierr"
)

// requestInfo is the Service-Request-Info header.
type requestInfo struct {
	Lat *float64 `json:"lat"`
	Lon *float64 `json:"lon"`
	Ref int64    `json:"ref"`
}

// readRequestInfo parses Service-Request-Info; absent is empty, malformed
// or out-of-range coordinates are a 400.
func readRequestInfo(r *http.Request) (requestInfo, error) {
	var ri requestInfo
	h := r.Header.Get("Service-Request-Info")
	if h == "" {
		return ri, nil
	}
	if len(h) > 4096 {
		return ri, apierr.BadRequestf("Service-Request-Info is longer than 4096 bytes")
	}
	if err := json.Unmarshal([]byte(h), &ri); err != nil {
		return ri, apierr.BadRequestf("Service-Request-Info is not a JSON object with lat, lon and ref: %v", err)
	}
	if ri.Lat != nil && (math.IsNaN(*ri.Lat) || *ri.Lat < -90 || *ri.Lat > 90) {
		return ri, apierr.InvalidArgumentf("lat %v is outside -90..90", *ri.Lat)
	}
	if ri.Lon != nil && (math.IsNaN(*ri.Lon) || *ri.Lon < -180 || *ri.Lon > 180) {
		return ri, apierr.InvalidArgumentf("lon %v is outside -180..180", *ri.Lon)
	}
	return ri, nil
}

// language reads Accept-Language: "es" when Spanish comes first, else "en".
func language(r *http.Request) string {
	al := r.Header.Get("Accept-Language")
	for i := 0; i < len(al); i++ {
		if al[i] == ' ' {
			continue
		}
		if len(al) >= i+2 && (al[i:i+2] == "es" || al[i:i+2] == "ES" || al[i:i+2] == "Es") {
			return "es"
		}
		break
	}
	return "en"
}

// timeZone reads the Time-Zone header (IANA name); absent is UTC, unknown
// is a 400.
func timeZone(r *http.Request) (*time.Location, error) {
	name := r.Header.Get("Time-Zone")
	if name == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil || len(name) > 64 {
		return nil, apierr.BadRequestf("Time-Zone %q is not an IANA time zone name", name)
	}
	return loc, nil
}

// baseURL is scheme and host of this server as the client reached it, for
// the absolute URLs in answers (audio, icons, music).
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

type baseURLKey struct{}

// withBaseURL carries the request's base URL into services that build
// absolute URLs deep inside (the onboarding's survey items).
func withBaseURL(r *http.Request) context.Context {
	return context.WithValue(r.Context(), baseURLKey{}, baseURL(r))
}

// BaseURL returns the base URL withBaseURL stored, or "".
func BaseURL(ctx context.Context) string {
	s, _ := ctx.Value(baseURLKey{}).(string)
	return s
}

// jsonEncoder writes compact JSON without HTML escaping, so a dialogue
// answer's html reads the same in a header as in a body.
func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc
}
