// Package endpoints maps the platform services of harkd onto HTTP: one file
// per service, each registering its routes on the httpapi.API. Handlers only
// translate between HTTP and the services; the rules live in the services.
package endpoints

import (
	"net/http"
	"strconv"

	"github.com/harkhq/hark/server/apierr"
)

// queryInt64 reads an optional integer query parameter.
func queryInt64(r *http.Request, name string) (*int64, error) {
	s := r.URL.Query().Get(name)
	if s == "" {
		return nil, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return nil, apierr.BadRequestf("the query parameter %s must be an integer, not %q", name, s)
	}
	return &v, nil
}
