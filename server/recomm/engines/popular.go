package engines

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// minHalfLife bounds the default half-life of the popular engine from below.
const minHalfLife = 24 * time.Hour

// popularModel ranks by popularity, the same list for every subject.
//
// An item's raw score is the number of distinct users with a positive interaction on it, each user
// counting 2^(-age/halfLife) where age is the time from the user's latest positive interaction with
// the item to the reference time (TrainConfig.Now, default the latest interaction). The default
// half-life is the time spanned by the training interactions (at least one day), so the oldest
// interaction counts half whatever the time scale of the catalog; a negative HalfLife turns decay off. A user's raw score (users-to-item, similar users) is the same
// decayed count of distinct items the user interacted with positively: the most active users first.
// Match = 100 * raw / (largest raw score of that side).
type popularModel struct {
	S popularState
}

type popularState struct {
	UserIDs, ItemIDs []string
	ItemScore        []float64
	UserScore        []float64
	ItemMax, UserMax float64
}

func trainPopular(ctx context.Context, ds *Dataset, cfg TrainConfig) (*popularModel, error) {
	first, last := int64(math.MaxInt64), int64(math.MinInt64)
	for _, in := range ds.Interactions {
		first, last = min(first, in.Timestamp), max(last, in.Timestamp)
	}
	now := cfg.Now
	if now == 0 {
		now = last
	}
	halfLife := cfg.HalfLife
	if halfLife == 0 {
		halfLife = max(minHalfLife, time.Duration(last-first)*time.Millisecond)
	}
	decay := func(ts int64) float64 {
		if halfLife < 0 {
			return 1
		}
		age := float64(now-ts) / float64(halfLife.Milliseconds())
		return math.Exp2(-max(age, 0))
	}
	// latest positive interaction per (user, item) pair
	latest := make(map[uint64]int64, len(ds.Interactions))
	for k, in := range ds.Interactions {
		if k%65536 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !in.Positive {
			continue
		}
		key := uint64(uint32(in.User))<<32 | uint64(uint32(in.Item))
		if t, ok := latest[key]; !ok || in.Timestamp > t {
			latest[key] = in.Timestamp
		}
	}
	if len(latest) == 0 {
		return nil, ErrNoInteractions
	}
	s := popularState{UserIDs: ds.UserIDs, ItemIDs: ds.ItemIDs,
		ItemScore: make([]float64, len(ds.ItemIDs)), UserScore: make([]float64, len(ds.UserIDs))}
	keys := make([]uint64, 0, len(latest))
	for key := range latest {
		keys = append(keys, key)
	}
	slices.Sort(keys) // a fixed summation order keeps the scores bit-identical between runs
	for _, key := range keys {
		d := decay(latest[key])
		s.UserScore[key>>32] += d
		s.ItemScore[uint32(key)] += d
	}
	for _, v := range s.ItemScore {
		s.ItemMax = max(s.ItemMax, v)
	}
	for _, v := range s.UserScore {
		s.UserMax = max(s.UserMax, v)
	}
	return &popularModel{S: s}, ctx.Err()
}

func (m *popularModel) afterLoad() error {
	if len(m.S.ItemScore) != len(m.S.ItemIDs) || len(m.S.UserScore) != len(m.S.UserIDs) {
		return fmt.Errorf("popular: inconsistent model")
	}
	return nil
}

func (m *popularModel) Engine() string { return Popular }

func (m *popularModel) Recommend(kind Kind, sub Subject, q Query) ([]Scored, error) {
	return recommend(m, kind, sub, q)
}

func (m *popularModel) items(self int32) scoring {
	return scoring{ids: m.S.ItemIDs, self: self,
		raw:  func(i int32) float64 { return m.S.ItemScore[i] },
		unit: func(r float64) float64 { return r / m.S.ItemMax }}
}

func (m *popularModel) users(self int32) scoring {
	return scoring{ids: m.S.UserIDs, self: self,
		raw:  func(i int32) float64 { return m.S.UserScore[i] },
		unit: func(r float64) float64 { return r / m.S.UserMax }}
}

func (m *popularModel) score(kind Kind, sub Subject) (scoring, error) {
	switch kind {
	case ItemsToUser:
		return m.items(-1), nil
	case UsersToItem:
		return m.users(-1), nil
	case ItemsToItem:
		return m.items(lookup(m.S.ItemIDs, sub.ID)), nil
	default:
		return m.users(lookup(m.S.UserIDs, sub.ID)), nil
	}
}

func (m *popularModel) Save(w io.Writer) error { return writeModel(w, Popular, &m.S) }

// lookup finds an id by linear scan; used where a model keeps no index map.
func lookup(ids []string, id string) int32 {
	for i, v := range ids {
		if v == id {
			return int32(i)
		}
	}
	return -1
}
