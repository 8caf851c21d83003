package items

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"
)

// MatchItem is an element of /items/sport/match. type is the sport in
// capitals (SOCCER, BASKETBALL); criteria.type is SPORT_MATCH.
type MatchItem struct {
	Common
	Sport       string  `json:"sport"`
	Competition string  `json:"competition"`
	Round       int     `json:"round"`
	Date        string  `json:"date"` // kick-off, RFC 3339 with the city's offset
	Status      string  `json:"status"`
	HomeTeam    string  `json:"homeTeam"`
	AwayTeam    string  `json:"awayTeam"`
	HomeScore   *int    `json:"homeScore"` // null while scheduled
	AwayScore   *int    `json:"awayScore"`
	Venue       string  `json:"venue"`
	Lat         float64 `json:"lat"`
	Lon         float64 `json:"lon"`
}

// RankingItem is an element of /items/sport/soccer/ranking.
type RankingItem struct {
	Common
	Competition    string `json:"competition"`
	Position       int    `json:"position"`
	Team           string `json:"team"`
	Played         int    `json:"played"`
	Won            int    `json:"won"`
	Drawn          int    `json:"drawn"`
	Lost           int    `json:"lost"`
	GoalsFor       int    `json:"goalsFor"`
	GoalsAgainst   int    `json:"goalsAgainst"`
	GoalDifference int    `json:"goalDifference"`
	Points         int    `json:"points"`
	Form           string `json:"form"`
}

// TourEventInfo is what motor, golf, tennis and biking items share.
type TourEventInfo struct {
	Series string  `json:"series"`
	Event  string  `json:"event"`
	Venue  string  `json:"venue"`
	Date   string  `json:"date"` // start, RFC 3339 UTC
	Status string  `json:"status"`
	Lat    float64 `json:"lat"`
	Lon    float64 `json:"lon"`
}

// MotorItem is an element of /items/motor: a race and its classification.
type MotorItem struct {
	Common
	TourEventInfo
	Results []MotorResult `json:"results"`
}

type MotorResult struct {
	Position int    `json:"position"`
	Driver   string `json:"driver"`
	Team     string `json:"team"`
	Country  string `json:"country"`
	Time     string `json:"time"` // winner's race time, gaps for the rest
	Points   int    `json:"points"`
}

// GolfItem is an element of /items/golf: a tournament and its leaderboard.
type GolfItem struct {
	Common
	TourEventInfo
	Leaderboard []GolfResult `json:"leaderboard"`
}

type GolfResult struct {
	Position int    `json:"position"`
	Player   string `json:"player"`
	Country  string `json:"country"`
	ToPar    string `json:"toPar"` // "-12", "E", "+1"
}

// TennisItem is an element of /items/tennis: a tournament's final.
type TennisItem struct {
	Common
	TourEventInfo
	Round    string `json:"round"`
	Player1  string `json:"player1"`
	Country1 string `json:"country1"`
	Player2  string `json:"player2"`
	Country2 string `json:"country2"`
	Score    string `json:"score"`  // from player1's side, "6-4 3-6 7-5"
	Winner   string `json:"winner"` // "" until played
}

// BikingItem is an element of /items/biking: a stage and its result.
type BikingItem struct {
	Common
	TourEventInfo
	Results []BikingResult `json:"results"`
}

type BikingResult struct {
	Position int    `json:"position"`
	Rider    string `json:"rider"`
	Team     string `json:"team"`
	Country  string `json:"country"`
	Time     string `json:"time"` // winner's time, "s.t." or a gap for the rest
}

func intp(v int) *int { return &v }

func (s *Service) matches(ctx context.Context, r *request) ([]scored, error) {
	ms, err := s.cfg.Sports.Matches(ctx, r.city, r.now)
	if err != nil {
		return nil, fmt.Errorf("matches of %s: %w", r.city.Slug, err)
	}
	out := make([]scored, 0, len(ms))
	for _, m := range ms {
		item := MatchItem{Sport: m.Sport, Competition: m.Competition, Round: m.Round,
			Date: m.Kickoff.In(r.city.Location).Format(time.RFC3339), Status: m.Status, HomeTeam: m.Home.Name,
			AwayTeam: m.Away.Name, Venue: m.Home.Stadium, Lat: m.Home.Lat, Lon: m.Home.Lon}
		text := fmt.Sprintf("%s, round %d · %s", m.Competition, m.Round, m.Kickoff.In(r.city.Location).Format("Mon 2 Jan 15:04"))
		title := m.Home.Name + " vs " + m.Away.Name
		if m.Status != "scheduled" {
			item.HomeScore, item.AwayScore = intp(m.HomeScore), intp(m.AwayScore)
			title = fmt.Sprintf("%s %d-%d %s", m.Home.Name, m.HomeScore, m.AwayScore, m.Away.Name)
		}
		item.Common = common(strings.ToUpper(m.Sport), m.ID, title, m.Status, text)
		d := distanceKm(r.lat, r.lon, m.Home.Lat, m.Home.Lon)
		out = append(out, scored{item: item, score: preference(affinity(r.profile, "sport:"+m.Sport), d, decayLeague),
			tie: -math.Abs(r.now.Sub(m.Kickoff).Hours()), id: m.ID})
	}
	return out, nil
}

func (s *Service) ranking(ctx context.Context, r *request) ([]scored, error) {
	st, err := s.cfg.Sports.Standings(ctx, r.city, r.now)
	if err != nil {
		return nil, fmt.Errorf("standings of %s: %w", r.city.Slug, err)
	}
	out := make([]scored, 0, len(st.Rows))
	for i, row := range st.Rows {
		id := fmt.Sprintf("%s-ranking-%d", r.city.Slug, i+1)
		item := RankingItem{
			Common: common("SOCCER_RANKING", id, fmt.Sprintf("%d. %s", i+1, row.Team), fmt.Sprintf("%d points", row.Points),
				fmt.Sprintf("Played %d: won %d, drawn %d, lost %d; goals %d-%d", row.Played, row.Won, row.Drawn, row.Lost, row.GF, row.GA)),
			Competition: st.Competition, Position: i + 1, Team: row.Team, Played: row.Played, Won: row.Won,
			Drawn: row.Drawn, Lost: row.Lost, GoalsFor: row.GF, GoalsAgainst: row.GA, GoalDifference: row.GF - row.GA,
			Points: row.Points, Form: row.Form,
		}
		out = append(out, scored{item: item, id: id})
	}
	return out, nil
}

func tourList(sport string) func(*Service, context.Context, *request) ([]scored, error) {
	return func(s *Service, ctx context.Context, r *request) ([]scored, error) {
		evs, err := s.cfg.Sports.Tour(ctx, sport, r.now)
		if err != nil {
			return nil, fmt.Errorf("%s events: %w", sport, err)
		}
		out := make([]scored, 0, len(evs))
		for _, e := range evs {
			out = append(out, scored{item: tourItem(e), id: e.ID,
				score: preference(affinity(r.profile, "sport:"+sport), distanceKm(r.lat, r.lon, e.Lat, e.Lon), decayTour),
				tie:   -math.Abs(r.now.Sub(e.Date).Hours())})
		}
		return out, nil
	}
}

func tourItem(e TourEvent) any {
	info := TourEventInfo{Series: e.Series, Event: e.Name, Venue: e.Venue, Date: e.Date.UTC().Format(time.RFC3339),
		Status: e.Status, Lat: e.Lat, Lon: e.Lon}
	sub := e.Status
	text := e.Venue + " · " + e.Date.UTC().Format("Mon 2 Jan")
	if len(e.Results) > 0 {
		sub = "Won by " + e.Results[0].Name
	}
	typ := strings.ToUpper(e.Sport)
	switch e.Sport {
	case "motor":
		it := MotorItem{Common: common(typ, e.ID, e.Name, sub, text), TourEventInfo: info, Results: []MotorResult{}}
		for _, r := range e.Results {
			it.Results = append(it.Results, MotorResult{r.Position, r.Name, r.Team, r.Country, r.Mark, r.Points})
		}
		return it
	case "golf":
		it := GolfItem{Common: common(typ, e.ID, e.Name, sub, text), TourEventInfo: info, Leaderboard: []GolfResult{}}
		for _, r := range e.Results {
			it.Leaderboard = append(it.Leaderboard, GolfResult{r.Position, r.Name, r.Country, r.Mark})
		}
		return it
	case "tennis":
		it := TennisItem{Common: common(typ, e.ID, e.Name, sub, text), TourEventInfo: info, Round: "Final"}
		if len(e.Results) == 2 {
			w, l := e.Results[0], e.Results[1]
			it.Player1, it.Country1, it.Player2, it.Country2 = w.Name, w.Country, l.Name, l.Country
			it.Score, it.Winner = w.Mark, w.Name
			it.ItemSubTitle = fmt.Sprintf("%s beat %s %s", w.Name, l.Name, w.Mark)
		}
		return it
	default:
		it := BikingItem{Common: common(typ, e.ID, e.Name, sub, text), TourEventInfo: info, Results: []BikingResult{}}
		for _, r := range e.Results {
			it.Results = append(it.Results, BikingResult{r.Position, r.Name, r.Team, r.Country, r.Mark})
		}
		return it
	}
}
