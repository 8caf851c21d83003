package dialogue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// maxListed bounds the items an answer lists (written) and reads (spoken).
const (
	maxListed = 5
	maxSpoken = 3
)

func isNoData(err error) bool { return errors.Is(err, ErrNoData) }

func (t *turn) asker() Asker {
	return Asker{UserID: t.req.UserID, Workspace: t.req.Workspace, Lang: t.lang}
}

func (t *turn) userWhere() Where { return Where{Lat: t.req.Lat, Lon: t.req.Lon} }

func (t *turn) topic(topic string) {
	if t.e.cfg.OnTopic != nil && !t.dry && t.req.UserID != 0 {
		t.e.cfg.OnTopic(t.ctx, t.req.UserID, topic)
	}
}

// where is the place a question is about: a city named in it, or the
// user's position. ok is false when there is neither.
func (t *turn) where(slots map[string]slotVal) (Where, bool) {
	if c, ok := slots["city"]; ok {
		return Where{City: c.text}, true
	}
	if p := strings.TrimSpace(slots["place"].text); p != "" {
		toks := tokenize(p)
		// "tiempo para pasado mañana": the words name a day, not a place.
		// The day may run on past the place ("pasado | mañana").
		from := toks
		if pv := slots["place"]; pv.end > pv.start && pv.end <= len(t.toks) {
			from = t.toks[pv.start:]
		}
		if w, n := t.m.parseWhen(from); n >= len(toks) && w.day != dayNone {
			slots["day"] = slotVal{when: w}
			delete(slots, "place")
			return t.where(slots)
		}
		// "the forecast for next week", "the weather yesterday": a span
		// of time or a day gone by, not a place.
		if t.saysPeriod(toks) || saysDayGone(toks) {
			delete(slots, "place")
			return t.where(slots)
		}
		if v, ok := t.m.findSlot("city", toks); ok {
			return Where{City: v.text}, true
		}
		// Not a dataset city: pass it on as said, without the fillers
		// around it ("in Paris please"), when its words can be a place's
		// (leading fillers count: "my" in "would I need my coat").
		for len(toks) > 0 && t.m.fillers[toks[len(toks)-1].norm] {
			toks = toks[:len(toks)-1]
		}
		named := !t.m.notPlace(toks)
		for len(toks) > 0 && (t.m.fillers[toks[0].norm] || t.m.timeWords.roleAt(toks) == roleIn) {
			toks = toks[1:]
		}
		for len(toks) > 0 && t.m.fillers[toks[len(toks)-1].norm] {
			toks = toks[:len(toks)-1]
		}
		if len(toks) > 0 && named {
			// A well-known place goes by its listed name ("París",
			// "paris" -> "Paris"), as the city files' names do.
			if name, ok := worldPlaces[foldedWords(toks)]; ok {
				return Where{City: name}, true
			}
			return Where{City: joinOrig(toks)}, true
		}
		// the words were not a place (and are no slot of the answer, so
		// the explain view does not name them): a city named elsewhere in
		// the query ("could you tell me what the weather will be like in
		// Madrid")
		delete(slots, "place")
		if v, ok := t.m.findSlot("city", t.toks); ok {
			return Where{City: v.text}, true
		}
	}
	if t.req.Lat != nil && t.req.Lon != nil {
		return t.userWhere(), true
	}
	return Where{}, false
}

// info answers weather, news, movies, restaurants, sports, events and TV
// from the Knowledge.
func (t *turn) info(intent string, slots map[string]slotVal) reply {
	w, ok := t.where(slots)
	needsPlace := intent == "weather" || intent == "movies" || intent == "restaurants" || intent == "events"
	if !ok && needsPlace {
		return t.ask("place", "ask_place", nil, slots)
	}
	if t.dry {
		return reply{} // the answer's content does not change the reading
	}
	k := t.e.cfg.Knowledge
	if k == nil {
		return t.reply("no_knowledge", nil)
	}
	place := t.m.displayName("city", w.City)
	if w.City == "" {
		place = t.m.say["near_you"]
	}
	var r reply
	var err error
	switch intent {
	case "weather":
		r, err = t.weather(k, w, slots)
	case "news":
		r, err = t.news(k, w, slots)
	case "movies":
		r, err = t.movies(k, w, slots)
	case "restaurants":
		r, err = t.restaurants(k, w, slots)
	case "sports":
		r, err = t.sports(k, w, slots)
	case "events":
		r, err = t.events(k, w, slots)
	case "tv":
		r, err = t.tv(k, w, slots)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return reply{}
		}
		if isNoData(err) {
			return t.reply("no_data_"+intent, map[string]phr{"place": same(place), "cities": same(t.cityList())})
		}
		t.logf("%s: %v", intent, err)
		return t.reply("info_failed", nil)
	}
	if intent == "weather" || intent == "events" || intent == "movies" || intent == "restaurants" || intent == "news" {
		r.followUp, r.slots = true, slots
	}
	return r
}

func (t *turn) cityList() string {
	names := make([]string, len(t.e.cities))
	for i, c := range t.e.cities {
		names[i] = t.m.displayName("city", c.Name)
	}
	return t.listPhr(names)
}

// saysPeriod reports whether words name a span of days ("next week").
func (t *turn) saysPeriod(toks []token) bool {
	return slices.ContainsFunc(toks, func(tok token) bool { return t.m.periods[tok.norm] })
}

// saysDayGone reports whether words name a day before today ("yesterday",
// "yesterday's", "ayer").
func saysDayGone(toks []token) bool {
	return slices.ContainsFunc(toks, func(tok token) bool { return daysBack[strings.TrimSuffix(tok.norm, "'s")] > 0 })
}

func (t *turn) weather(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	q := WeatherQuery{Where: w, Asker: t.asker()}
	day, hasDay := slots["day"]
	if saysDayGone(t.toks) {
		// "what was the weather yesterday": the sources know now and the
		// days to come
		return t.reply("weather_past", nil), nil
	}
	if !hasDay && t.saysPeriod(t.toks) {
		// "what's the weather this week": the forecast is of one day
		return t.reply("weather_period", nil), nil
	}
	var date time.Time
	if hasDay && !day.when.empty() {
		date = day.when.date(t.now, t.loc)
		if sameDay(date, t.now.In(t.loc)) {
			hasDay = false
		} else {
			q.Day = date
		}
	} else {
		hasDay = false
	}
	info, err := k.Weather(t.ctx, q)
	if err != nil {
		return reply{}, err
	}
	city := same(t.m.displayName("city", info.City))
	if info.City == "" {
		city = same(t.m.say["near_you"])
	}
	if detail := t.weatherDetail(); detail != "" {
		// "what's the humidity", "will it be windy tomorrow": the day's
		// figure, where the answer was the temperatures
		when := date
		if !hasDay {
			when = t.now.In(t.loc)
		}
		if f, ok := t.forecastOf(info, when); ok {
			return t.reply("weather_"+detail, map[string]phr{"city": city, "day": t.dayPhr(when),
				"value": t.detailPhr(detail, f, info.Unit)}), nil
		}
	}
	if !hasDay {
		return t.reply("weather_now", map[string]phr{
			"city": city, "condition": same(info.Condition),
			"temp": t.tempPhr(info.Temp, info.Unit),
			"min":  t.tempPhr(info.TempMin, info.Unit), "max": t.tempPhr(info.TempMax, info.Unit),
		}), nil
	}
	if f, ok := t.forecastOf(info, date); ok {
		return t.reply("weather_forecast", map[string]phr{
			"city": city, "day": t.dayPhr(date), "condition": same(f.Condition),
			"min": t.tempPhr(f.TempMin, info.Unit), "max": t.tempPhr(f.TempMax, info.Unit),
		}), nil
	}
	return t.reply("weather_no_forecast", map[string]phr{"city": city, "day": t.dayPhr(date)}), nil
}

// forecastOf is the forecast of the day of date, in the user's zone or as
// the source dated it.
func (t *turn) forecastOf(info WeatherInfo, date time.Time) (DayForecast, bool) {
	for _, f := range info.Forecast {
		if sameDay(f.Date.In(t.loc), date) || sameDay(f.Date, date) {
			return f, true
		}
	}
	return DayForecast{}, false
}

func sameDay(a, b time.Time) bool {
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// listed fills the list of a reply, written and spoken.
func listed[T any](r *reply, xs []T, text, speech func(T) string) {
	for i, x := range xs {
		if i < maxListed {
			r.items = append(r.items, text(x))
		}
		if i < maxSpoken {
			r.itemsSpeech = append(r.itemsSpeech, speech(x))
		}
	}
}

func (t *turn) news(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	cat := slots["newscat"].text
	if v, ok := t.m.findSlot("newscat", t.toks); cat == "" && ok {
		// "what's the news in sports": the category after the news
		cat = v.text
	}
	if cat != "" {
		t.topic("news:" + cat)
	}
	hs, err := k.News(t.ctx, NewsQuery{Where: w, Asker: t.asker(), Category: cat})
	if err != nil {
		return reply{}, err
	}
	if len(hs) == 0 {
		return reply{}, ErrNoData
	}
	catName := ""
	if cat != "" {
		catName = t.m.displayName("newscat", cat)
	}
	key := "news_headlines"
	if catName != "" {
		key = "news_headlines_category"
	}
	r := t.reply(key, map[string]phr{"category": same(catName)})
	listed(&r, hs, func(h Headline) string {
		if h.Source != "" {
			return h.Title + " (" + h.Source + ")"
		}
		return h.Title
	}, func(h Headline) string { return h.Title })
	return r, nil
}

func (t *turn) movies(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	title := strings.TrimSpace(slots["movie"].text)
	if title != "" {
		t.topic("movie:" + title)
	}
	ss, err := k.Movies(t.ctx, MovieQuery{Where: w, Asker: t.asker(), Title: title})
	if err != nil {
		return reply{}, err
	}
	if len(ss) == 0 {
		return reply{}, ErrNoData
	}
	key := "movies_playing"
	if title != "" {
		key = "movie_showtimes"
	}
	r := t.reply(key, map[string]phr{"movie": same(title)})
	listed(&r, ss, func(s Showtime) string {
		line := s.Title + ", " + s.Theater
		if len(s.Times) > 0 {
			line += ": " + strings.Join(s.Times, ", ")
		}
		return line
	}, func(s Showtime) string {
		line := s.Title + t.m.say["at_place"] + s.Theater
		var times []string
		for _, x := range s.Times {
			times = append(times, t.hhmmSpeech(x))
		}
		if len(times) > 0 {
			line += ", " + t.listPhr(times)
		}
		return line
	})
	return r, nil
}

// hhmmSpeech says an "18:30" schedule entry as words.
func (t *turn) hhmmSpeech(s string) string {
	h, m, ok := strings.Cut(strings.TrimSpace(s), ":")
	hv, err1 := strconv.Atoi(h)
	mv, err2 := strconv.Atoi(m)
	if !ok || err1 != nil || err2 != nil || hv > 23 || mv > 59 {
		return s
	}
	return t.clockPhr(time.Date(2000, 1, 1, hv, mv, 0, 0, time.UTC)).speech
}

func (t *turn) restaurants(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	cuisine := slots["cuisine"].text
	if cuisine != "" {
		t.topic("cuisine:" + cuisine)
	}
	_, openNow := slots["opennow"]
	rs, err := k.Restaurants(t.ctx, RestaurantQuery{Where: w, Asker: t.asker(), Cuisine: cuisine, OpenNow: openNow})
	if err != nil {
		return reply{}, err
	}
	if openNow {
		var open []Restaurant
		for _, x := range rs {
			if x.Open {
				open = append(open, x)
			}
		}
		rs = open
	}
	if len(rs) == 0 {
		return reply{}, ErrNoData
	}
	key := "restaurants_found"
	if openNow {
		key = "restaurants_open"
	}
	r := t.reply(key, map[string]phr{"cuisine": same(t.cuisineName(cuisine))})
	listed(&r, rs, func(x Restaurant) string {
		line := x.Name
		if x.Address != "" {
			line += ", " + x.Address
		}
		if x.Rating > 0 {
			line += fmt.Sprintf(" (%.1f★)", x.Rating)
		}
		if !x.Open {
			line += " " + t.m.say["closed_now"]
		}
		return line
	}, func(x Restaurant) string { return x.Name })
	return r, nil
}

// cuisineName fits the cuisine into the restaurant templates: "Italian
// restaurants", "restaurantes de comida italiana".
func (t *turn) cuisineName(c string) string {
	if c == "" {
		return ""
	}
	if t.lang == "es" {
		return " de comida " + t.m.displayName("cuisine", c)
	}
	return t.m.displayName("cuisine", c) + " "
}

// gameToCome are words that ask when a game is, or about the next one.
var gameToCome = map[string]bool{"when": true, "when's": true, "whens": true, "next": true, "upcoming": true,
	"cuando": true, "proximo": true, "proxima": true}

func (t *turn) sports(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	if slices.ContainsFunc(t.toks, func(tok token) bool { return gameToCome[tok.norm] }) {
		// "when's the next yankees game": the sources have results only
		return t.reply("sports_schedule", nil), nil
	}
	sport := slots["sport"].text
	team := t.teamName(slots["team"].text)
	if sport != "" {
		t.topic("sport:" + sport)
	}
	rs, err := k.Sports(t.ctx, SportsQuery{Where: w, Asker: t.asker(), Sport: sport, Team: team})
	if err != nil {
		return reply{}, err
	}
	if len(rs) == 0 {
		return reply{}, ErrNoData
	}
	r := t.reply("sports_results", nil)
	listed(&r, rs, func(x SportResult) string {
		if x.Home == "" {
			return x.Summary
		}
		line := fmt.Sprintf("%s %d - %d %s", x.Home, x.HomeScore, x.AwayScore, x.Away)
		if x.Competition != "" {
			line += " (" + x.Competition + ")"
		}
		return line
	}, func(x SportResult) string {
		if x.Home == "" {
			return x.Summary
		}
		return x.Home + " " + sayNumber(t.lang, x.HomeScore) + ", " + x.Away + " " + sayNumber(t.lang, x.AwayScore)
	})
	return r, nil
}

// teamName is a team as said, without the article before it ("the
// Knicks") or a day after it ("Barça ayer").
func (t *turn) teamName(s string) string {
	toks := tokenize(s)
	if len(toks) > 1 && placeArticles[toks[0].norm] {
		toks = toks[1:]
	}
	for len(toks) > 1 && teamDays[toks[len(toks)-1].norm] {
		toks = toks[:len(toks)-1]
		if len(toks) > 1 && toks[len(toks)-1].norm == "last" {
			toks = toks[:len(toks)-1]
		}
	}
	return spanText(toks)
}

var teamDays = map[string]bool{"yesterday": true, "today": true, "tonight": true, "night": true, "weekend": true,
	"ayer": true, "hoy": true, "anoche": true, "finde": true}

func (t *turn) events(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	cat := slots["eventcat"].text
	if cat != "" {
		t.topic("events:" + cat)
	}
	q := EventQuery{Where: w, Asker: t.asker(), Category: cat}
	if d, ok := slots["day"]; ok && !d.when.empty() {
		q.Day = d.when.date(t.now, t.loc)
	}
	es, err := k.Events(t.ctx, q)
	if err != nil {
		return reply{}, err
	}
	if len(es) == 0 {
		return reply{}, ErrNoData
	}
	r := t.reply("events_found", nil)
	listed(&r, es, func(x Event) string {
		return x.Title + ", " + x.Venue + ", " + t.whenPhr(x.Start).text
	}, func(x Event) string {
		return x.Title + t.m.say["at_place"] + x.Venue + ", " + t.whenPhr(x.Start).speech
	})
	return r, nil
}

func (t *turn) tv(k Knowledge, w Where, slots map[string]slotVal) (reply, error) {
	ch := strings.TrimSpace(slots["channel"].text)
	ps, err := k.TV(t.ctx, TVQuery{Where: w, Asker: t.asker(), Channel: ch, Now: t.now})
	if err != nil {
		return reply{}, err
	}
	if len(ps) == 0 {
		return reply{}, ErrNoData
	}
	r := t.reply("tv_listing", nil)
	listed(&r, ps, func(x Program) string {
		return t.clockPhr(x.Start.In(t.loc)).text + " " + x.Channel + ": " + x.Title
	}, func(x Program) string {
		return x.Title + t.m.say["on_channel"] + x.Channel + ", " + t.clockPhr(x.Start.In(t.loc)).speech
	})
	return r, nil
}

// timeNow tells the time here or in a dataset city.
func (t *turn) timeNow(slots map[string]slotVal) reply {
	loc, place := t.loc, ""
	if w, ok := t.where(slots); ok && w.City != "" {
		c, known := t.e.cityNamed(w.City)
		if !known || c.loc == nil {
			return t.reply("no_data_time", map[string]phr{"place": same(w.City), "cities": same(t.cityList())})
		}
		loc, place = c.loc, t.m.displayName("city", c.Name)
	}
	now := t.now.In(loc)
	if d := slots["duration"].dur; d > 0 && place == "" {
		// "what time will it be in two hours"
		return t.reply("time_after", map[string]phr{"duration": t.durationPhr(d), "time": t.clockPhr(now.Add(d))})
	}
	if place == "" {
		return t.reply("time_now", map[string]phr{"time": t.clockPhr(now)})
	}
	return t.reply("time_in", map[string]phr{"time": t.clockPhr(now), "place": same(place)})
}

// notPlace reports whether words said where a place may be named cannot be
// a place's name: a well-known place is one whatever its words, otherwise
// a pronoun, possessive, question word or auxiliary among them
// (notPlaces in the language file) means the speaker went on talking.
func (m *langModel) notPlace(toks []token) bool {
	if _, ok := worldPlaces[foldedWords(toks)]; ok {
		return false
	}
	for _, tok := range toks {
		if m.notPlaces[tok.norm] {
			return true
		}
	}
	return false
}

// foldedWords gives the words as typed, folded, as places.json is keyed.
func foldedWords(toks []token) string {
	words := make([]string, len(toks))
	for i, tok := range toks {
		words[i] = fold(tok.orig)
	}
	return strings.Join(words, " ")
}

// weatherDetails are the words that ask for one figure of the weather.
var weatherDetails = map[string]string{"humidity": "humidity", "humid": "humidity", "humedad": "humidity",
	"humedo": "humidity", "wind": "wind", "windy": "wind", "viento": "wind", "uv": "uv", "ultraviolet": "uv",
	"ultravioleta": "uv"}

// weatherDetail is the figure of the weather a question asks for
// (humidity, wind, uv), or "" for the weather as a whole.
func (t *turn) weatherDetail() string {
	for _, tok := range t.toks {
		if d, ok := weatherDetails[tok.norm]; ok {
			return d
		}
	}
	return ""
}

// detailPhr says a figure of the day's weather; the wind in the unit of
// the user's temperatures (km/h with °C, mph with °F).
func (t *turn) detailPhr(detail string, f DayForecast, unit string) phr {
	es := t.lang == "es"
	switch detail {
	case "humidity":
		n := strconv.Itoa(f.Humidity)
		if es {
			return phr{n + " %", n + " por ciento"} // "60 %", as "3 °C"
		}
		return phr{n + "%", n + " percent"}
	case "wind":
		v, text, speech := f.WindKmh, " km/h", " kilometres per hour"
		if es {
			speech = " kilómetros por hora"
		}
		if unit == "F" {
			v, text, speech = v/1.609344, " mph", " miles per hour"
			if es {
				speech = " millas por hora"
			}
		}
		n := strconv.Itoa(int(math.Round(v)))
		return phr{n + text, n + speech}
	}
	return same(strconv.Itoa(f.UVMax))
}
