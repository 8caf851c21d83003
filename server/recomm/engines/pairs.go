package engines

import "sort"

// pairs is the user-item matrix of a dataset in compressed sparse row form. Every (user, item) pair
// carries the net strength of its interactions: the sum of weight*value over positive interactions
// minus the same sum over negative ones. Pairs whose net strength is zero are dropped.
type pairs struct {
	Rows  int
	Start []int32 // row r spans [Start[r], Start[r+1])
	Col   []int32
	Net   []float32
}

// userItemPairs aggregates the interactions of ds by user (rows) and item (columns).
func userItemPairs(ds *Dataset) *pairs {
	m := make(map[uint64]float64, len(ds.Interactions))
	for _, in := range ds.Interactions {
		key := uint64(uint32(in.User))<<32 | uint64(uint32(in.Item))
		s := in.Weight * in.Value
		if !in.Positive {
			s = -s
		}
		m[key] += s
	}
	keys := make([]uint64, 0, len(m))
	for k, net := range m {
		if net != 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	p := &pairs{Rows: len(ds.UserIDs), Start: make([]int32, len(ds.UserIDs)+1),
		Col: make([]int32, len(keys)), Net: make([]float32, len(keys))}
	for k, key := range keys {
		p.Start[key>>32+1]++
		p.Col[k] = int32(uint32(key))
		p.Net[k] = float32(m[key])
	}
	for r := range p.Rows {
		p.Start[r+1] += p.Start[r]
	}
	return p
}

// transpose returns the same pairs by column (items as rows).
func (p *pairs) transpose(cols int) *pairs {
	t := &pairs{Rows: cols, Start: make([]int32, cols+1), Col: make([]int32, len(p.Col)),
		Net: make([]float32, len(p.Col))}
	for _, c := range p.Col {
		t.Start[c+1]++
	}
	for r := range cols {
		t.Start[r+1] += t.Start[r]
	}
	fill := append([]int32(nil), t.Start[:cols]...)
	for r := range p.Rows {
		for k := p.Start[r]; k < p.Start[r+1]; k++ {
			c := p.Col[k]
			d := fill[c]
			fill[c]++
			t.Col[d], t.Net[d] = int32(r), p.Net[k]
		}
	}
	return t
}

func (p *pairs) row(r int) (cols []int32, net []float32) {
	return p.Col[p.Start[r]:p.Start[r+1]], p.Net[p.Start[r]:p.Start[r+1]]
}

// valid checks a loaded matrix against the number of columns.
func (p *pairs) valid(cols int) bool {
	if p == nil || p.Rows < 0 || len(p.Start) != p.Rows+1 || p.Start[0] != 0 ||
		int(p.Start[p.Rows]) != len(p.Col) || len(p.Net) != len(p.Col) {
		return false
	}
	for r := range p.Rows {
		if p.Start[r+1] < p.Start[r] {
			return false
		}
	}
	for _, c := range p.Col {
		if c < 0 || int(c) >= cols {
			return false
		}
	}
	return true
}
