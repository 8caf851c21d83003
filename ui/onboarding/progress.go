package onboarding

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/harkhq/hark/assets"
	"github.com/harkhq/hark/ui/common"
)

// flowStep is what "step n of m" needs of a step of the default flow.
type flowStep struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Next    string `json:"next"`
	Payload struct {
		Options []struct {
			Next string `json:"next"`
		} `json:"options"`
	} `json:"payload"`
}

var (
	flowOnce  sync.Once
	flow      map[string]flowStep
	flowStart string // the id of the flow's first step
)

// defaultFlow is the platform's default set-up (assets/data/onboarding),
// by step id; nil when it cannot be read.
func defaultFlow() map[string]flowStep {
	flowOnce.Do(func() {
		b, err := fs.ReadFile(assets.Sub("onboarding"), "flow.json")
		if err != nil {
			return
		}
		var f struct{ Steps []flowStep }
		if json.Unmarshal(b, &f) != nil {
			return
		}
		flow = map[string]flowStep{}
		if len(f.Steps) > 0 {
			flowStart = f.Steps[0].ID
		}
		for _, s := range f.Steps {
			flow[s.ID] = s
		}
	})
	return flow
}

func waits(typ string) bool { return strings.HasPrefix(typ, "WAIT_") || typ == "SHOW_SURVEY" }

// progress is "Set-up: step n of m". The protocol sends steps one batch at
// a time, so m comes from the default flow when the server follows it
// (counting the steps that wait for an answer, from this one to the end
// along the default branches); a flow of its own gets "step n". n counts
// the answers given in this session, or the step's place on the default
// branches when that is further, so that a set-up resumed in a new session
// goes on counting where it stopped.
func (o *Model) progress() string {
	n := o.answered + 1
	f := defaultFlow()
	cur, ok := f[o.step.ID]
	if !ok || cur.Type != o.step.Type {
		return fmt.Sprintf("Set-up: step %d", n)
	}
	if at, ok := placeOnDefaultPath(f, o.step.ID); ok {
		n = max(n, at) // more answers in this session: an option's branch added steps
	}
	left := 0
	for id, seen := o.step.ID, map[string]bool{}; id != "" && !seen[id]; id = f[id].Next {
		seen[id] = true
		s, ok := f[id]
		if !ok {
			return fmt.Sprintf("Set-up: step %d", n)
		}
		if waits(s.Type) {
			left++
		}
	}
	return fmt.Sprintf("Set-up: step %d of %d", n, n-1+left)
}

// placeOnDefaultPath is the place of step id among the steps that wait
// for an answer, from the flow's first step along the default branches.
func placeOnDefaultPath(f map[string]flowStep, id string) (int, bool) {
	n := 0
	for at, seen := flowStart, map[string]bool{}; at != "" && !seen[at]; at = f[at].Next {
		seen[at] = true
		s, ok := f[at]
		if !ok {
			return 0, false
		}
		if waits(s.Type) {
			n++
		}
		if at == id {
			return n, waits(s.Type)
		}
	}
	return 0, false
}

// ackText is how an acknowledgement is shown among the answers.
func ackText(ack string) string {
	if ack = common.OneLine(ack); ack == "" {
		return "OK"
	}
	return ack
}

// permissionName is the short name of a permission ("Location").
func permissionName(perm string) string {
	if r := permissionReasons[perm]; r != "" {
		if name, _, ok := strings.Cut(r, ":"); ok {
			return name
		}
	}
	return strings.ToLower(perm)
}
