package speech

import (
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"
)

// memoryProfiles is a ProfileStore in memory, standing for the database
// (package speakers tests that one).
type memoryProfiles struct {
	mu   sync.Mutex
	kept map[string]Profile
	fail error
}

func (m *memoryProfiles) Load(key string) (*Profile, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	p, ok := m.kept[key]
	if !ok {
		return nil, nil
	}
	return &p, nil
}

func (m *memoryProfiles) Save(key string, p Profile) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.kept == nil {
		m.kept = map[string]Profile{}
	}
	m.kept[key] = p
}

func warpPeak(w float64) []float64 {
	s := make([]float64, len(WarpGrid))
	for i, g := range WarpGrid {
		s[i] = -40 - 10*math.Abs(g-w)
	}
	return s
}

// What one process learnt of a speaker (mean, warp, transform) is where
// the next process starts from; a kept transform is replaced only by one
// estimated from as many utterances; an unreadable profile is reported
// and the speaker starts afresh.
func TestProfileOutlivesThePriors(t *testing.T) {
	store := &memoryProfiles{}
	est := &countingEstimator{}
	first := NewPriors(4)
	first.Profiles, first.Adapt = store, est.estimate
	first.Get("a")
	first.AddWarps("a", warpPeak(1.12), 400)
	first.Add("a", &Prior{Mean: []float32{3, 4}, Frames: 120, Warp: 1.12})
	for range adaptFirst {
		first.AddHeard("a", aSecond, "call mom", 1.12)
	}
	first.Drain(10 * time.Second) // the estimate AddHeard began
	if store.kept["a"].Transform == "" {
		t.Fatalf("Drain returned before the transform was kept: %+v", store.kept["a"])
	}

	second := NewPriors(4)
	second.Profiles, second.Adapt = store, est.estimate
	got := second.Get("a")
	if got.Warp != 1.12 || got.Estimate || !slices.Equal(got.Mean, []float32{3, 4}) || got.Frames != 120 || offset(t, got.Transform) != adaptFirst {
		t.Fatalf("the next process starts from %+v, want warp 1.12 settled, the mean [3 4] of 120 frames and the transform from %d utterances",
			got, adaptFirst)
	}
	if got := second.Get("b"); got.Warp != 0 || got.Mean != nil || got.Transform != "" || !got.Estimate {
		t.Fatalf("a speaker never heard starts from %+v", got)
	}

	// A transform from adaptKeep utterances stays until as many are heard
	// again in this process.
	p := store.kept["a"]
	p.TransformFrom = adaptKeep
	store.Save("c", p)
	third := NewPriors(4)
	third.Profiles, third.Adapt = store, est.estimate
	calls := len(est.seen())
	for i := 1; i <= adaptKeep; i++ {
		third.Get("c")
		third.AddWarps("c", nil, 0) // no estimate came (as after a failed recognition)
		third.AddHeard("c", aSecond, "what time is it", 1.12)
		third.Drain(10 * time.Second)
		if n := len(est.seen()) - calls; (i < adaptKeep && n != 0) || (i == adaptKeep && n != 1) {
			t.Fatalf("after %d utterances of %d: %d estimates", i, adaptKeep, n)
		}
	}
	if got := offset(t, third.Get("c").Transform); got != adaptKeep {
		t.Fatalf("transform from %d utterances, want %d", got, adaptKeep)
	}

	store.fail = errors.New("disk on fire")
	var reported []string
	fourth := NewPriors(4)
	fourth.Profiles = store
	fourth.OnProfileError = func(key string, err error) { reported = append(reported, key+": "+err.Error()) }
	if got := fourth.Get("a"); got.Warp != 0 || got.Transform != "" || !slices.Equal(reported, []string{"a: disk on fire"}) {
		t.Fatalf("unreadable profile: %+v, reported %q", got, reported)
	}
}
