package evaluate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/harkhq/hark/server/recomm/engines"
)

// Shape describes a synthetic implicit-feedback catalog. The zero value of a field takes the value of
// SparseShape.
type Shape struct {
	Users, Items int
	Topics       int     // latent tastes; each item belongs mostly to one
	History      int     // median number of distinct items per user (log-normal around it)
	Zipf         float64 // exponent of the power-law item popularity
	Explore      float64 // share of a user's items drawn by popularity alone, whatever the taste
	ColdItems    int     // items nobody interacted with (they keep their attributes)
	TagNoise     float64 // share of items whose "tag" attribute names a random topic
}

// SparseShape is the shape of a sparse play-count catalog: about 2,000 users, 17,000 items, a few
// dozen items per user, so most items are seen by one or two users and a fixed setting tuned on a
// dense catalog fails.
var SparseShape = Shape{Users: 2000, Items: 17000, Topics: 60, History: 45, Zipf: 1.0, Explore: 0.15,
	ColdItems: 150, TagNoise: 0.4}

// Synthetic generates a catalog of the given shape, deterministically from seed: users have a few
// latent tastes (topics), items a power-law popularity and one main topic, and a user's items are
// drawn from the user's tastes weighted by popularity, plus some drawn by popularity alone. Each
// pair carries a play count: log-normal, larger for items closer to the user's taste, so that the
// values carry signal but a heavy tail. Items have a categorical "tag" attribute naming their topic
// (wrong for TagNoise of them); cold items have no interactions. All interactions share one
// timestamp, as aggregated play counts do, so splits of this catalog are random.
func Synthetic(shape Shape, seed uint64) *engines.Dataset {
	sh := shape.withDefaults()
	rng := rand.New(rand.NewPCG(seed, 0x5ca1ab1e))
	userIDs := make([]string, sh.Users)
	for u := range userIDs {
		userIDs[u] = "u" + strconv.Itoa(u)
	}
	itemIDs := make([]string, sh.Items)
	for i := range itemIDs {
		itemIDs[i] = "a" + strconv.Itoa(i)
	}
	ds := engines.NewDataset(userIDs, itemIDs)

	// items: a random rank gives the power-law popularity; a main topic and a weaker second one
	rank := rng.Perm(sh.Items)
	pop := make([]float64, sh.Items)
	topic := make([]int, sh.Items)
	second := make([]int, sh.Items)
	for i := range sh.Items {
		pop[i] = math.Pow(float64(rank[i]+1), -sh.Zipf)
		topic[i] = rng.IntN(sh.Topics)
		second[i] = rng.IntN(sh.Topics)
		tag := topic[i]
		if rng.Float64() < sh.TagNoise {
			tag = rng.IntN(sh.Topics)
		}
		ds.AddItemTokens("tag", int32(i), "t"+strconv.Itoa(tag))
	}
	cold := map[int]bool{}
	for _, i := range rng.Perm(sh.Items)[:sh.ColdItems] {
		cold[i] = true
	}
	// per topic, the items that belong to it (main topic weight 1, second 0.3), for weighted draws
	type member struct {
		item int
		w    float64
	}
	byTopic := make([][]member, sh.Topics)
	for i := range sh.Items {
		if cold[i] {
			continue
		}
		byTopic[topic[i]] = append(byTopic[topic[i]], member{i, pop[i]})
		if second[i] != topic[i] {
			byTopic[second[i]] = append(byTopic[second[i]], member{i, 0.3 * pop[i]})
		}
	}
	topicDraw := make([]*sampler, sh.Topics)
	for t, ms := range byTopic {
		w := make([]float64, len(ms))
		ids := make([]int, len(ms))
		for k, m := range ms {
			w[k], ids[k] = m.w, m.item
		}
		topicDraw[t] = newSampler(ids, w)
	}
	var warm []int
	var warmPop []float64
	for i := range sh.Items {
		if !cold[i] {
			warm = append(warm, i)
			warmPop = append(warmPop, pop[i])
		}
	}
	global := newSampler(warm, warmPop)

	for u := range sh.Users {
		// 1 to 3 tastes with decreasing weights
		nt := 1 + rng.IntN(3)
		tastes := make([]int, nt)
		weights := make([]float64, nt)
		for k := range nt {
			tastes[k] = rng.IntN(sh.Topics)
			weights[k] = math.Pow(0.5, float64(k))
		}
		taste := newSampler(tastes, weights)
		n := int(math.Round(float64(sh.History) * math.Exp(0.6*rng.NormFloat64())))
		n = max(3, min(n, 4*sh.History))
		level := rng.NormFloat64() // the user's overall listening volume
		seen := map[int]bool{}
		for tries := 0; len(seen) < n && tries < 20*n; tries++ {
			var i int
			if rng.Float64() < sh.Explore {
				i = global.draw(rng)
			} else {
				i = topicDraw[taste.draw(rng)].draw(rng)
			}
			if i < 0 || seen[i] {
				continue
			}
			seen[i] = true
			affinity := 0.0
			for k, t := range tastes {
				if topic[i] == t {
					affinity = max(affinity, weights[k])
				} else if second[i] == t {
					affinity = max(affinity, 0.3*weights[k])
				}
			}
			plays := math.Exp(4 + 0.8*level + 1.5*affinity + 1.2*rng.NormFloat64())
			ds.Add(int32(u), int32(i), math.Max(1, math.Round(plays)), 1, true, 0, "plays")
		}
	}
	return ds
}

func (s Shape) withDefaults() Shape {
	d := SparseShape
	pick := func(v, def int) int {
		if v > 0 {
			return v
		}
		return def
	}
	pickF := func(v, def float64) float64 {
		if v > 0 {
			return v
		}
		return def
	}
	s.Users, s.Items, s.Topics = pick(s.Users, d.Users), pick(s.Items, d.Items), pick(s.Topics, d.Topics)
	s.History, s.ColdItems = pick(s.History, d.History), min(pick(s.ColdItems, d.ColdItems), s.Items/2)
	s.Zipf, s.Explore, s.TagNoise = pickF(s.Zipf, d.Zipf), pickF(s.Explore, d.Explore), pickF(s.TagNoise, d.TagNoise)
	return s
}

func (s Shape) String() string {
	return fmt.Sprintf("%d users, %d items, %d topics, ~%d items per user", s.Users, s.Items, s.Topics, s.History)
}

// sampler draws ids with probability proportional to their weights (inverse CDF by binary search).
type sampler struct {
	ids []int
	cum []float64
}

func newSampler(ids []int, w []float64) *sampler {
	s := &sampler{ids: ids, cum: make([]float64, len(w))}
	total := 0.0
	for k, x := range w {
		total += x
		s.cum[k] = total
	}
	return s
}

// draw returns an id, or -1 when there is none.
func (s *sampler) draw(rng *rand.Rand) int {
	if len(s.ids) == 0 {
		return -1
	}
	x := rng.Float64() * s.cum[len(s.cum)-1]
	k, _ := slices.BinarySearch(s.cum, x)
	return s.ids[min(k, len(s.ids)-1)]
}
