package items

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// Match is one league game.
type Match struct {
	ID          string
	Sport       string // "soccer", "basketball"
	Competition string
	Round       int // 1-based
	Kickoff     time.Time
	Home, Away  Team
	// Scores are final when Status is "finished", the score so far when
	// "live", and zero when "scheduled".
	HomeScore, AwayScore int
	Status               string
}

// StandingRow is one team's line in a league table.
type StandingRow struct {
	Team                             string
	Played, Won, Drawn, Lost, GF, GA int
	Points                           int
	Form                             string // last five results, oldest first: "WDLWW"
}

// Standings is a league table, best first.
type Standings struct {
	Competition string
	Rows        []StandingRow
}

// TourResult is one line of a tour event's result.
type TourResult struct {
	Position int
	Name     string
	Country  string
	Team     string
	Mark     string // race time or gap, golf score to par, tennis score
	Points   int
}

// TourEvent is a race, tournament or stage of a travelling sport.
type TourEvent struct {
	ID       string
	Sport    string // motor, golf, tennis, biking
	Series   string
	Name     string
	Venue    string
	Lat, Lon float64
	Date     time.Time // start, UTC
	Status   string    // finished, live, scheduled
	Results  []TourResult
}

// SportsProvider gives league matches and tables of a city and the
// results of travelling sports.
type SportsProvider interface {
	// Matches returns the last played and the next round of each of the
	// city's leagues.
	Matches(ctx context.Context, city *City, now time.Time) ([]Match, error)
	// Standings is the table of the city's soccer league.
	Standings(ctx context.Context, city *City, now time.Time) (Standings, error)
	// Tour returns the events of sport ("motor", "golf", "tennis",
	// "biking") around now.
	Tour(ctx context.Context, sport string, now time.Time) ([]TourEvent, error)
}

var tourSports = []string{"motor", "golf", "tennis", "biking"}

// season is a double round robin, one round a week from its start.
type season struct {
	league *League
	start  time.Time
	rounds [][][2]int    // rounds[r] = pairs of team indexes, home first
	starts [][]time.Time // starts[r][p] = kick-off of pair p of round r
}

var seasonCache sync.Map // league name + start → *season

func seasonOf(city *City, lg *League, now time.Time) *season {
	local := now.In(city.Location)
	start := time.Date(local.Year(), time.Month(lg.SeasonStartMonth), lg.SeasonStartDay, 0, 0, 0, 0, city.Location)
	if local.Before(start) {
		start = start.AddDate(-1, 0, 0)
	}
	key := lg.Name + start.Format("2006-01-02") + city.Slug
	if v, ok := seasonCache.Load(key); ok {
		return v.(*season)
	}
	n := len(lg.Teams)
	ring := make([]int, n)
	for i := range ring {
		ring[i] = i
	}
	s := &season{league: lg, start: start}
	// Circle method: team 0 stays, the rest rotate; the second half mirrors
	// the first with home and away swapped.
	for r := 0; r < n-1; r++ {
		var pairs [][2]int
		for i := 0; i < n/2; i++ {
			a, b := ring[i], ring[n-1-i]
			if (r+i)%2 == 1 {
				a, b = b, a
			}
			pairs = append(pairs, [2]int{a, b})
		}
		s.rounds = append(s.rounds, pairs)
		ring = append([]int{ring[0], ring[n-1]}, ring[1:n-1]...)
	}
	// Basketball teams meet more often: the double round robin is played
	// twice, so the season lasts about as long as a soccer one.
	cycles := 1
	if lg.Sport == "basketball" {
		cycles = 2
	}
	half := s.rounds
	for c := 0; c < cycles; c++ {
		for r := 0; r < n-1; r++ {
			var pairs [][2]int
			for _, p := range half[r] {
				pairs = append(pairs, [2]int{p[1], p[0]})
			}
			s.rounds = append(s.rounds, pairs)
		}
		if c+1 < cycles {
			s.rounds = append(s.rounds, half...)
		}
	}
	for r := range s.rounds {
		row := make([]time.Time, len(s.rounds[r]))
		for p := range row {
			row[p] = s.computeKickoff(r, p)
		}
		s.starts = append(s.starts, row)
	}
	seasonCache.Store(key, s)
	return s
}

// computeKickoff puts round r on the r-th weekend after the season start, the
// pairs spread over Saturday and Sunday.
func (s *season) kickoff(round, pair int) time.Time { return s.starts[round][pair] }

func (s *season) computeKickoff(round, pair int) time.Time {
	firstSaturday := s.start.AddDate(0, 0, (int(time.Saturday)-int(s.start.Weekday())+7)%7)
	day := firstSaturday.AddDate(0, 0, 7*round+pair%2)
	hour := []int{13, 16, 18, 20}[pair%4]
	if s.league.Sport == "basketball" {
		hour = []int{18, 19, 20}[pair%3]
	}
	return time.Date(day.Year(), day.Month(), day.Day(), hour, 0, 0, 0, day.Location())
}

const matchLength = 2 * time.Hour

// poisson draws from a Poisson distribution by inverting its CDF at u.
func poisson(lambda, u float64) int {
	p := math.Exp(-lambda)
	cdf := p
	k := 0
	for u > cdf && k < 12 {
		k++
		p *= lambda / float64(k)
		cdf += p
	}
	return k
}

func (s *season) match(city *City, round, pair int, now time.Time) Match {
	lg := s.league
	h, a := lg.Teams[s.rounds[round][pair][0]], lg.Teams[s.rounds[round][pair][1]]
	m := Match{ID: fmt.Sprintf("%s-%s-%d-r%02d-%d", city.Slug, lg.Sport, s.start.Year(), round+1, pair+1), Sport: lg.Sport,
		Competition: lg.Name, Round: round + 1, Kickoff: s.kickoff(round, pair), Home: h, Away: a, Status: "scheduled"}
	if now.Before(m.Kickoff) {
		return m
	}
	key := m.ID + lg.Name
	if lg.Sport == "soccer" {
		lh := math.Max(0.2, 1.45+2.2*(h.Strength-a.Strength))
		la := math.Max(0.2, 1.1+2.2*(a.Strength-h.Strength))
		m.HomeScore, m.AwayScore = poisson(lh, unit(key, "h")), poisson(la, unit(key, "a"))
	} else {
		noise := func(k string) float64 { return (unit(key, k, 1) + unit(key, k, 2) + unit(key, k, 3) - 1.5) * 14 }
		m.HomeScore = int(104 + 40*(h.Strength-a.Strength) + 3 + noise("h"))
		m.AwayScore = int(104 + 40*(a.Strength-h.Strength) + noise("a"))
		if m.HomeScore == m.AwayScore { // overtime decides
			m.HomeScore += 3 + int(seed(key, "ot")%8)
		}
	}
	m.Status = "finished"
	if elapsed := now.Sub(m.Kickoff); elapsed < matchLength {
		f := float64(elapsed) / float64(matchLength)
		m.HomeScore, m.AwayScore = int(float64(m.HomeScore)*f), int(float64(m.AwayScore)*f)
		m.Status = "live"
	}
	return m
}

// playedRounds is how many rounds have kicked off by now.
func (s *season) playedRounds(now time.Time) int {
	n := 0
	for r := range s.rounds {
		if !now.Before(s.kickoff(r, 0)) {
			n = r + 1
		}
	}
	return n
}

// Matches implements SportsProvider.
func (sb *Sandbox) Matches(ctx context.Context, city *City, now time.Time) ([]Match, error) {
	var out []Match
	for _, lg := range []*League{city.Soccer, city.Basketball} {
		if lg == nil {
			continue
		}
		s := seasonOf(city, lg, now)
		played := s.playedRounds(now)
		if played > 0 {
			for p := range s.rounds[played-1] {
				out = append(out, s.match(city, played-1, p, now))
			}
		}
		next, round := s, played
		if played == len(s.rounds) { // between seasons: the next one's first round
			next, round = seasonOf(city, lg, s.start.AddDate(1, 0, 1)), 0
		}
		for p := range next.rounds[round] {
			out = append(out, next.match(city, round, p, now))
		}
	}
	return out, nil
}

// Standings implements SportsProvider: three points a win, one a draw,
// ties broken by goal difference, goals scored, then name.
func (sb *Sandbox) Standings(ctx context.Context, city *City, now time.Time) (Standings, error) {
	s := seasonOf(city, city.Soccer, now)
	// A table changes only when a match ends, so the number of finished
	// matches is the cache key.
	key := fmt.Sprintf("%s/%d", s.start.Format("2006-01-02"), s.finishedMatches(now))
	return sb.memosOf(city).standings.get(key, func() Standings { return buildStandings(city, s, now) }), nil
}

// finishedMatches counts the season's matches finished by now.
func (s *season) finishedMatches(now time.Time) int {
	n := 0
	for r := range s.rounds {
		for p := range s.rounds[r] {
			if !now.Before(s.kickoff(r, p).Add(matchLength)) {
				n++
			}
		}
	}
	return n
}

func buildStandings(city *City, s *season, now time.Time) Standings {
	lg := city.Soccer
	rows := make([]StandingRow, len(lg.Teams))
	for i, t := range lg.Teams {
		rows[i].Team = t.Name
	}
	played := s.playedRounds(now)
	for r := 0; r < played; r++ {
		for p, pair := range s.rounds[r] {
			m := s.match(city, r, p, now)
			if m.Status != "finished" {
				continue
			}
			home, away := &rows[pair[0]], &rows[pair[1]]
			home.Played++
			away.Played++
			home.GF += m.HomeScore
			home.GA += m.AwayScore
			away.GF += m.AwayScore
			away.GA += m.HomeScore
			switch {
			case m.HomeScore > m.AwayScore:
				home.Won, home.Points, away.Lost = home.Won+1, home.Points+3, away.Lost+1
				home.Form, away.Form = home.Form+"W", away.Form+"L"
			case m.HomeScore < m.AwayScore:
				away.Won, away.Points, home.Lost = away.Won+1, away.Points+3, home.Lost+1
				home.Form, away.Form = home.Form+"L", away.Form+"W"
			default:
				home.Drawn, away.Drawn = home.Drawn+1, away.Drawn+1
				home.Points, away.Points = home.Points+1, away.Points+1
				home.Form, away.Form = home.Form+"D", away.Form+"D"
			}
		}
	}
	for i := range rows {
		if len(rows[i].Form) > 5 {
			rows[i].Form = rows[i].Form[len(rows[i].Form)-5:]
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.Points != b.Points {
			return a.Points > b.Points
		}
		if a.GF-a.GA != b.GF-b.GA {
			return a.GF-a.GA > b.GF-b.GA
		}
		if a.GF != b.GF {
			return a.GF > b.GF
		}
		return a.Team < b.Team
	})
	return Standings{Competition: lg.Name, Rows: rows}
}

type tour struct {
	Series      string  `json:"series"`
	Interval    int     `json:"interval"` // days between events
	SeasonStart string  `json:"seasonStart"`
	Events      [][]any `json:"events"` // [name, venue, lat, lon]
	Athletes    []struct {
		Name    string  `json:"name"`
		Country string  `json:"country"`
		Team    string  `json:"team"`
		Skill   float64 `json:"skill"`
	} `json:"athletes"`
}

// Tour implements SportsProvider: the season's events, one every Interval
// days from SeasonStart; events within 45 days of now, or the five closest
// in time when none are.
func (sb *Sandbox) Tour(ctx context.Context, sport string, now time.Time) ([]TourEvent, error) {
	t := sb.tours[sport]
	if t == nil {
		return nil, fmt.Errorf("no tour for sport %q", sport)
	}
	var all []TourEvent
	// Last year's season and this year's, so the turn of the year shows
	// both the last results and the next events.
	for year := now.Year() - 1; year <= now.Year(); year++ {
		start, err := time.Parse("2006-01-02", fmt.Sprintf("%d-%s", year, t.SeasonStart))
		if err != nil {
			return nil, fmt.Errorf("tour %s: season start: %w", sport, err)
		}
		all = append(all, sb.tourSeason(t, sport, start, now)...)
	}
	var near []TourEvent
	for _, e := range all {
		if d := e.Date.Sub(now); d > -45*24*time.Hour && d < 45*24*time.Hour {
			near = append(near, e)
		}
	}
	if len(near) == 0 {
		sort.SliceStable(all, func(i, j int) bool {
			return math.Abs(float64(all[i].Date.Sub(now))) < math.Abs(float64(all[j].Date.Sub(now)))
		})
		near = all[:min(5, len(all))]
	}
	return near, nil
}

func (sb *Sandbox) tourSeason(t *tour, sport string, start, now time.Time) []TourEvent {
	var all []TourEvent
	for k, ev := range t.Events {
		name, _ := ev[0].(string)
		venue, _ := ev[1].(string)
		lat, _ := ev[2].(float64)
		lon, _ := ev[3].(float64)
		e := TourEvent{ID: fmt.Sprintf("%s-%d-%02d", sport, start.Year(), k+1), Sport: sport, Series: t.Series, Name: name,
			Venue: venue, Lat: lat, Lon: lon, Date: start.AddDate(0, 0, k*t.Interval).Add(13 * time.Hour), Status: "scheduled"}
		length := 3 * time.Hour
		if sport == "golf" || sport == "tennis" {
			length = 4 * 24 * time.Hour // four rounds, a week of matches ending on the final
		}
		if now.After(e.Date.Add(length)) {
			e.Status = "finished"
			e.Results = sb.tourResults(t, sport, e.ID)
		} else if now.After(e.Date) {
			e.Status = "live"
		}
		all = append(all, e)
	}
	return all
}

var motorPoints = []int{25, 18, 15, 12, 10, 8, 6, 4, 2, 1}

// tourResults ranks the athletes by skill plus a draw of luck.
func (sb *Sandbox) tourResults(t *tour, sport, eventID string) []TourResult {
	type entry struct {
		i     int
		score float64
	}
	entries := make([]entry, len(t.Athletes))
	for i, a := range t.Athletes {
		entries[i] = entry{i, a.Skill + 0.3*unit(eventID, a.Name)}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].score > entries[j].score })
	n := 10
	if sport == "tennis" {
		n = 2
	}
	out := make([]TourResult, 0, n)
	winnerToPar := -8 - int(seed(eventID, "par")%12)
	gap := 0.0 // seconds behind the winner, growing down the order
	for pos, e := range entries[:n] {
		a := t.Athletes[e.i]
		r := TourResult{Position: pos + 1, Name: a.Name, Country: a.Country, Team: a.Team}
		if pos > 0 {
			gap += 0.5 + 9*unit(eventID, "gap", pos)
		}
		switch sport {
		case "motor":
			r.Points = motorPoints[pos]
			if pos == 0 {
				secs := 5400 + int(seed(eventID, "time")%1200)
				r.Mark = fmt.Sprintf("%d:%02d:%02d.%03d", secs/3600, secs/60%60, secs%60, seed(eventID, "ms")%1000)
			} else {
				r.Mark = fmt.Sprintf("+%.3fs", gap)
			}
		case "golf":
			toPar := winnerToPar + int(gap/3)
			if pos > 0 && toPar == winnerToPar {
				toPar++ // the winner is alone at the top
			}
			r.Mark = fmt.Sprintf("%+d", toPar)
			if toPar == 0 {
				r.Mark = "E"
			}
		case "biking":
			if pos == 0 {
				secs := 14400 + int(seed(eventID, "time")%3600)
				r.Mark = fmt.Sprintf("%d:%02d:%02d", secs/3600, secs/60%60, secs%60)
			} else if gap < 3 {
				r.Mark = "s.t." // same time as the winner
			} else {
				r.Mark = fmt.Sprintf("+%d:%02d", int(gap*3)/60, int(gap*3)%60)
			}
		case "tennis":
			r.Mark = tennisScore(eventID)
		}
		out = append(out, r)
	}
	return out
}

// tennisScore is a best-of-five final from the winner's side.
func tennisScore(eventID string) string {
	var sets []string
	won, lost := 0, 0
	for i := 0; won < 3; i++ {
		u := seed(eventID, "set", i)
		winnerTakes := u%3 != 0 || lost == 2 // the winner takes about two sets in three
		a, b := 6, int(u/3%5)
		if u%7 == 0 {
			a, b = 7, 6
		} else if u%7 == 1 {
			a, b = 7, 5
		}
		if winnerTakes {
			won++
			sets = append(sets, fmt.Sprintf("%d-%d", a, b))
		} else {
			lost++
			sets = append(sets, fmt.Sprintf("%d-%d", b, a))
		}
	}
	return strings.Join(sets, " ")
}
