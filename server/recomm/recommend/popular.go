package recommend

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/harkhq/hark/server/apierr"
)

// PopularCut is popularFilter: N entities or P percent of them.
type PopularCut struct {
	n   int
	pct float64
}

// ParsePopular reads `N` or `N%` (a JSON number or string).
func ParsePopular(v any) (PopularCut, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return PopularCut{}, nil
	case string:
		s = strings.TrimSpace(x)
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return PopularCut{}, apierr.InvalidArgumentf("popularFilter is N or N%%")
	}
	if s == "" {
		return PopularCut{}, nil
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(p, 64)
		if err != nil || f < 0 || f > 100 {
			return PopularCut{}, apierr.InvalidArgumentf("popularFilter %q: a percentage is 0%% to 100%%", s)
		}
		return PopularCut{pct: f}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return PopularCut{}, apierr.InvalidArgumentf("popularFilter %q is not N or N%%", s)
	}
	return PopularCut{n: n}, nil
}

// Excluded returns the ids the cut leaves out: the most interacted first.
func (p PopularCut) Excluded(counts map[string]int) map[string]bool {
	k := p.n
	if p.pct > 0 {
		k = int(math.Round(float64(len(counts)) * p.pct / 100))
	}
	if k <= 0 {
		return nil
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		if counts[ids[i]] != counts[ids[j]] {
			return counts[ids[i]] > counts[ids[j]]
		}
		return ids[i] < ids[j]
	})
	out := map[string]bool{}
	for _, id := range ids[:min(k, len(ids))] {
		out[id] = true
	}
	return out
}

// ModelName names the stored model of a training: the engine, plus the
// interactions it was restricted to. Recommendations with interactionId
// look for the model of that one interaction first.
func ModelName(engine string, interactions []string) string {
	if len(interactions) == 0 {
		return engine
	}
	ids := slices.Clone(interactions)
	slices.Sort(ids)
	return engine + "@" + strings.Join(slices.Compact(ids), "+")
}
