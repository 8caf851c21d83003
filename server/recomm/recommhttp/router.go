package recommhttp

import (
	"net/http"
	"strings"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/httpapi"
)

// handler is one endpoint; params holds the path's {names}.
type handler func(w http.ResponseWriter, r *http.Request, ws int64, params map[string]string) error

type route struct {
	method string
	parts  []string // literal segments, or "{name}"
	h      handler
}

type router struct{ routes []route }

// add registers a route; routes are tried in the order added, so literal
// routes must be added before the wildcard routes they overlap.
func (rt *router) add(method, pattern string, h handler) {
	rt.routes = append(rt.routes, route{method: method, parts: strings.Split(strings.Trim(pattern, "/"), "/"), h: h})
}

func (rt *router) serve(w http.ResponseWriter, r *http.Request) error {
	rest := strings.TrimPrefix(r.URL.Path, "/v2/recomm/")
	segs := strings.Split(strings.TrimSuffix(rest, "/"), "/")
	pathKnown := false
	for _, ro := range rt.routes {
		params, ok := ro.match(segs)
		if !ok {
			continue
		}
		if ro.method != r.Method {
			pathKnown = true
			continue
		}
		return ro.h(w, r, httpapi.Workspace(r.Context()), params)
	}
	if pathKnown {
		return apierr.New(http.StatusMethodNotAllowed, apierr.BadRequest, "%s is not allowed on %s", r.Method, r.URL.Path)
	}
	return apierr.NotFoundf("no endpoint %s %s", r.Method, r.URL.Path)
}

func (ro route) match(segs []string) (map[string]string, bool) {
	if len(segs) != len(ro.parts) {
		return nil, false
	}
	var params map[string]string
	for i, p := range ro.parts {
		if strings.HasPrefix(p, "{") {
			if segs[i] == "" {
				return nil, false
			}
			if params == nil {
				params = map[string]string{}
			}
			params[p[1:len(p)-1]] = segs[i]
			continue
		}
		if p != segs[i] {
			return nil, false
		}
	}
	return params, true
}
