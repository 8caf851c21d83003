package items

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/harkhq/hark/server/items/astro"
)

// Condition is a weather state; its value is the weatherIco code.
type Condition int

const (
	Sunny Condition = iota + 1
	PartlyCloudy
	Cloudy
	Showers
	Rain
	Thunderstorm
	Snow
	Fog
	ClearNight
)

var conditionInfo = map[Condition]struct{ text, icon string }{
	Sunny: {"Sunny", "sun"}, PartlyCloudy: {"Partly cloudy", "partly"}, Cloudy: {"Cloudy", "cloud"},
	Showers: {"Showers", "rain"}, Rain: {"Rain", "rain"}, Thunderstorm: {"Thunderstorms", "storm"},
	Snow: {"Snow", "snow"}, Fog: {"Fog", "fog"}, ClearNight: {"Clear", "moon"},
}

func (c Condition) String() string { return conditionInfo[c].text }

// Icon is the media name of the condition's icon, e.g. "weather-rain".
func (c Condition) Icon() string { return "weather-" + conditionInfo[c].icon }

func (c Condition) wet() bool { return c == Showers || c == Rain || c == Thunderstorm || c == Snow }

// DayWeather is one local day; temperatures °C, rain mm, wind km/h.
type DayWeather struct {
	Date       time.Time // local midnight
	TMax, TMin float64
	Condition  Condition
	RainMm     float64 // snow counted as melted water
	WindKmh    float64
	UVMax      int
	Humidity   int
	AirQuality int
	// Precipitation falls from RainFrom for RainHours hours (local).
	RainFrom, RainHours int
}

// HourWeather is one local hour.
type HourWeather struct {
	Time      time.Time
	Temp      float64
	Condition Condition
	RainMm    float64
	SnowMm    float64
	IceMm     float64
	WindKmh   float64
	Humidity  int
}

// WeatherProvider forecasts a city's weather.
type WeatherProvider interface {
	// Days returns n days starting with the local day of from.
	Days(ctx context.Context, city *City, from time.Time, n int) ([]DayWeather, error)
	// Hours returns n hours starting with the local hour of from.
	Hours(ctx context.Context, city *City, from time.Time, n int) ([]HourWeather, error)
}

// normalOn interpolates the monthly normals linearly between mid-months so
// the simulated climate has no jump at the first of each month.
func normalOn(city *City, date time.Time) Normal {
	m := int(date.Month()) - 1
	days := float64(time.Date(date.Year(), date.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day())
	f := (float64(date.Day()) - 0.5) / days // 0..1 through the month, 0.5 mid-month
	other := (m + 1) % 12
	w := f - 0.5
	if f < 0.5 {
		other, w = (m+11)%12, 0.5-f
	}
	a, b := city.Climate[m], city.Climate[other]
	mix := func(x, y float64) float64 { return x*(1-w) + y*w }
	return Normal{TMax: mix(a.TMax, b.TMax), TMin: mix(a.TMin, b.TMin), RainMm: mix(a.RainMm, b.RainMm),
		RainDays: mix(a.RainDays, b.RainDays), WindKmh: mix(a.WindKmh, b.WindKmh),
		UV: int(math.Round(mix(float64(a.UV), float64(b.UV)))), Humidity: int(math.Round(mix(float64(a.Humidity), float64(b.Humidity))))}
}

// day simulates one local date from the climate normals: a temperature
// anomaly of up to ±4 °C, rain on a share of days equal to the normal's
// rainy days, and cloud, fog or storm chosen by deterministic draws.
func (sb *Sandbox) day(city *City, date time.Time) DayWeather {
	key := date.Format("2006-01-02")
	u := func(k int) float64 { return unit("wx", city.Slug, key, k) }
	n := normalOn(city, date)
	days := float64(time.Date(date.Year(), date.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day())
	anomaly := (u(1) + u(2) - 1) * 4
	wet := u(3) < n.RainDays/days
	d := DayWeather{Date: date, TMax: n.TMax + anomaly, TMin: n.TMin + anomaly*0.6,
		WindKmh: n.WindKmh * (0.6 + 0.8*u(5)), Humidity: n.Humidity, UVMax: n.UV,
		AirQuality: 25 + int(seed("aqi", city.Slug, key)%40)}
	switch {
	case wet:
		d.TMax -= 2
		d.TMin += 1
		d.RainMm = n.RainMm / math.Max(n.RainDays, 1) * (0.4 + 1.2*u(4))
		d.RainFrom = int(seed("rainfrom", city.Slug, key) % 24)
		d.RainHours = 2 + int(seed("rainhours", city.Slug, key)%6)
		d.Humidity = min(98, n.Humidity+12)
		d.UVMax = int(math.Round(float64(n.UV) * 0.5))
		d.AirQuality -= 12
		switch {
		case d.TMax <= 2:
			d.Condition = Snow
		case d.TMax >= 24 && u(6) < 0.4:
			d.Condition = Thunderstorm
		case u(6) < 0.5:
			d.Condition = Showers
		default:
			d.Condition = Rain
		}
	case n.Humidity >= 74 && u(6) < 0.12:
		d.Condition = Fog
		d.UVMax = int(math.Round(float64(n.UV) * 0.6))
	case u(4) < 0.45:
		d.Condition = Sunny
		d.Humidity = max(20, n.Humidity-8)
	case u(4) < 0.75:
		d.Condition = PartlyCloudy
	default:
		d.Condition = Cloudy
		d.UVMax = int(math.Round(float64(n.UV) * 0.7))
	}
	if d.TMin > d.TMax-2 {
		d.TMin = d.TMax - 2
	}
	d.TMax, d.TMin, d.WindKmh, d.RainMm = round(d.TMax, 1), round(d.TMin, 1), round(d.WindKmh, 1), round(d.RainMm, 1)
	return d
}

func localMidnight(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// Days implements WeatherProvider.
func (sb *Sandbox) Days(ctx context.Context, city *City, from time.Time, n int) ([]DayWeather, error) {
	start := localMidnight(from, city.Location)
	out := make([]DayWeather, n)
	for i := range out {
		out[i] = sb.day(city, start.AddDate(0, 0, i))
	}
	return out, nil
}

// Hours follows a diurnal curve: the minimum at 06:00, the maximum at
// 15:00, cosine-shaped in between, falling towards the next day's minimum.
func (sb *Sandbox) Hours(ctx context.Context, city *City, from time.Time, n int) ([]HourWeather, error) {
	start := from.In(city.Location).Truncate(time.Hour)
	cache := map[string]DayWeather{}
	dayOf := func(t time.Time) DayWeather {
		m := localMidnight(t, city.Location)
		k := m.Format("2006-01-02")
		if d, ok := cache[k]; ok {
			return d
		}
		d := sb.day(city, m)
		cache[k] = d
		return d
	}
	out := make([]HourWeather, n)
	for i := range out {
		t := start.Add(time.Duration(i) * time.Hour)
		h := float64(t.Hour())
		today := dayOf(t)
		var temp float64
		switch {
		case h >= 6 && h <= 15:
			temp = today.TMin + (today.TMax-today.TMin)*(1-math.Cos(math.Pi*(h-6)/9))/2
		case h > 15:
			next := dayOf(t.Add(12 * time.Hour))
			temp = today.TMax - (today.TMax-next.TMin)*(1-math.Cos(math.Pi*(h-15)/15))/2
		default:
			prev := dayOf(t.Add(-12 * time.Hour))
			temp = prev.TMax - (prev.TMax-today.TMin)*(1-math.Cos(math.Pi*(h+9)/15))/2
		}
		hw := HourWeather{Time: t, Temp: round(temp, 1), Condition: today.Condition, WindKmh: today.WindKmh,
			Humidity: today.Humidity}
		raining := today.Condition.wet() && inWindow(t.Hour(), today.RainFrom, today.RainHours)
		switch {
		case raining && today.Condition == Snow:
			hw.SnowMm = round(today.RainMm/float64(today.RainHours)*10, 1) // about 1 cm of snow per mm of water
		case raining:
			hw.RainMm = round(today.RainMm/float64(today.RainHours), 1)
			if temp <= 0 {
				hw.IceMm = hw.RainMm
			}
		case today.Condition.wet():
			hw.Condition = Cloudy // dry hours of a wet day
		}
		if (hw.Condition == Sunny || hw.Condition == PartlyCloudy) && (t.Hour() < 7 || t.Hour() >= 20) {
			hw.Condition = ClearNight
		}
		out[i] = hw
	}
	return out, nil
}

func inWindow(hour, from, length int) bool {
	return (hour-from+24)%24 < length
}

// Units of the weather answers.
type units struct {
	metric           bool
	temp, rain, wind string
}

func unitsFor(metric bool) units {
	if metric {
		return units{metric: true, temp: "°C", rain: "mm", wind: "km/h"}
	}
	return units{temp: "°F", rain: "in", wind: "mph"}
}

func (u units) t(c float64) float64 {
	if u.metric {
		return round(c, 1)
	}
	return round(c*9/5+32, 1)
}

func (u units) mm(v float64) float64 {
	if u.metric {
		return round(v, 1)
	}
	return round(v/25.4, 2)
}

func (u units) kmh(v float64) float64 {
	if u.metric {
		return round(v, 1)
	}
	return round(v/1.609344, 1)
}

// WeatherItem is the element of /items/weather.
type WeatherItem struct {
	Common
	Lat        float64          `json:"lat"`
	Lon        float64          `json:"lon"`
	Metric     int              `json:"metric"` // 1 metric, 0 imperial
	Current    WeatherCurrent   `json:"current"`
	ByHour     []WeatherHourly  `json:"byHour"`
	ByDay      []WeatherDaily   `json:"byDay"`
	SolarInfo  SolarInfo        `json:"solarInfo"`
	MoonPhases []MoonPhaseEntry `json:"moonPhases"`
}

type WeatherCurrent struct {
	AirQualityIndex int     `json:"airQualityIndex"`
	City            string  `json:"city"`
	CityID          string  `json:"cityId"`
	Country         string  `json:"country"`
	Date            string  `json:"date"` // local, YYYY-MM-DD
	Hour            string  `json:"hour"` // local, HH:MM
	Image           string  `json:"image"`
	Latitude        float64 `json:"latitude"`
	Longitude       float64 `json:"longitude"`
	Rain            float64 `json:"rain"`
	RainUnit        string  `json:"rainUnit"`
	Region          string  `json:"region"`
	TempCurrent     float64 `json:"tempCurrent"`
	TempMax         float64 `json:"tempMax"`
	TempMin         float64 `json:"tempMin"`
	TempUnit        string  `json:"tempUnit"`
	TextWeather     string  `json:"textWeather"`
	UVA             int     `json:"uva"`
	UVAMax          int     `json:"uvaMax"`
	WeatherIco      int     `json:"weatherIco"`
	Wetness         string  `json:"wetness"` // relative humidity, "72%"
	WindSpeed       float64 `json:"windSpeed"`
	WindSpeedUnit   string  `json:"windSpeedUnit"`
}

type WeatherHourly struct {
	Hour        string  `json:"hour"`
	Ice         float64 `json:"ice"`
	Index       int     `json:"index"`
	Rain        float64 `json:"rain"`
	RainUnit    string  `json:"rainUnit"`
	Snow        float64 `json:"snow"` // depth: cm metric, in imperial
	Temp        float64 `json:"temp"`
	Text        string  `json:"text"`
	WeatherIcon int     `json:"weatherIcon"`
	Wetness     string  `json:"wetness"`
	WindSpeed   float64 `json:"windSpeed"`
}

type WeatherDaily struct {
	Description     string  `json:"description"`
	TempMax         int     `json:"tempMax"`
	TempMin         int     `json:"tempMin"`
	TempMaxNegative bool    `json:"tempMaxNegative"`
	TempMinNegative bool    `json:"tempMinNegative"`
	TempMaxPlural   bool    `json:"tempMaxPlural"` // |tempMax| != 1, for "1 degree" / "2 degrees"
	TempMinPlural   bool    `json:"tempMinPlural"`
	UVAMax          int     `json:"uvaMax"`
	WeatherIcon     int     `json:"weatherIcon"`
	WeekDay         string  `json:"weekDay"`
	WeekDay3C       string  `json:"weekDay3C"`
	WindSpeed       float64 `json:"windSpeed"`
}

type SolarInfo struct {
	SunRise string `json:"sunRise"` // local HH:MM; "" in polar day or night
	SunSet  string `json:"sunSet"`
}

type MoonPhaseEntry struct {
	Date  string `json:"date"`  // local YYYY-MM-DD
	Text  string `json:"text"`  // "Full moon"
	Value string `json:"value"` // NEW_MOON, FIRST_QUARTER, FULL_MOON, LAST_QUARTER
}

// Weather is everything the weather item says, in metric units, for the
// dialogue and for the item builder.
type Weather struct {
	City       *City
	Now        time.Time
	Hours      []HourWeather // the next 24 hours, from the current one
	Days       []DayWeather  // 7 days from today
	Sun        astro.SunTimes
	MoonPhases []astro.PhaseEvent
}

// WeatherAt returns the weather of city around now.
func (s *Service) WeatherAt(ctx context.Context, city *City, now time.Time) (Weather, error) {
	hours, err := s.cfg.Weather.Hours(ctx, city, now, 24)
	if err != nil {
		return Weather{}, fmt.Errorf("hourly weather of %s: %w", city.Slug, err)
	}
	days, err := s.cfg.Weather.Days(ctx, city, now, 7)
	if err != nil {
		return Weather{}, fmt.Errorf("daily weather of %s: %w", city.Slug, err)
	}
	if len(hours) == 0 || len(days) == 0 {
		return Weather{}, fmt.Errorf("weather of %s: provider returned no data", city.Slug)
	}
	return Weather{City: city, Now: now, Hours: hours, Days: days,
		Sun: astro.Sun(now.In(city.Location), city.Lat, city.Lon), MoonPhases: s.moonPhases(now)}, nil
}

// moonPhases returns the next four principal phases from the start of now's
// hour, computed once per hour.
func (s *Service) moonPhases(now time.Time) []astro.PhaseEvent {
	hour := now.UTC().Truncate(time.Hour)
	return s.moon.get(hour.Format(time.RFC3339), func() []astro.PhaseEvent { return astro.NextPhases(hour, 4) })
}

// uvAt scales the day's maximum UV index by the Sun's height, a sine
// between sunrise and sunset.
func uvAt(t time.Time, day DayWeather, sun astro.SunTimes) int {
	if sun.Sunrise.IsZero() || !t.After(sun.Sunrise) || !t.Before(sun.Sunset) {
		return 0
	}
	f := float64(t.Sub(sun.Sunrise)) / float64(sun.Sunset.Sub(sun.Sunrise))
	return int(math.Round(float64(day.UVMax) * math.Sin(math.Pi*f)))
}

func clock(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Round(time.Minute).Format("15:04") // almanacs round to the nearest minute
}

func (s *Service) weather(ctx context.Context, r *request) ([]scored, error) {
	w, err := s.WeatherAt(ctx, r.city, r.now)
	if err != nil {
		return nil, err
	}
	u := unitsFor(r.metric)
	city := r.city
	cur, today := w.Hours[0], w.Days[0]
	local := r.now.In(city.Location)
	metric := 0
	if r.metric {
		metric = 1
	}
	item := WeatherItem{
		Common: common("WEATHER", city.Slug+"-weather-"+local.Format("2006-01-02"), city.Name,
			fmt.Sprintf("%s, %.0f%s", cur.Condition, u.t(cur.Temp), u.temp),
			fmt.Sprintf("Today %s. High %.0f%s, low %.0f%s.", today.Condition, u.t(today.TMax), u.temp, u.t(today.TMin), u.temp)),
		Lat: r.lat, Lon: r.lon, Metric: metric,
		Current: WeatherCurrent{
			AirQualityIndex: today.AirQuality, City: city.Name, CityID: city.Slug, Country: city.Country,
			Date: local.Format("2006-01-02"), Hour: local.Format("15:04"), Image: mediaURL(r.baseURL, cur.Condition.Icon()),
			Latitude: city.Lat, Longitude: city.Lon, Rain: u.mm(cur.RainMm), RainUnit: u.rain, Region: city.Region,
			TempCurrent: u.t(cur.Temp), TempMax: u.t(today.TMax), TempMin: u.t(today.TMin), TempUnit: u.temp,
			TextWeather: cur.Condition.String(), UVA: uvAt(r.now, today, w.Sun), UVAMax: today.UVMax,
			WeatherIco: int(cur.Condition), Wetness: fmt.Sprintf("%d%%", cur.Humidity),
			WindSpeed: u.kmh(cur.WindKmh), WindSpeedUnit: u.wind,
		},
		SolarInfo: SolarInfo{SunRise: clock(w.Sun.Sunrise), SunSet: clock(w.Sun.Sunset)},
	}
	for i, h := range w.Hours {
		snow := round(h.SnowMm/10, 1) // cm
		if !r.metric {
			snow = round(h.SnowMm/25.4, 2)
		}
		item.ByHour = append(item.ByHour, WeatherHourly{Hour: h.Time.In(city.Location).Format("15:04"), Ice: u.mm(h.IceMm),
			Index: i, Rain: u.mm(h.RainMm), RainUnit: u.rain, Snow: snow, Temp: u.t(h.Temp), Text: h.Condition.String(),
			WeatherIcon: int(h.Condition), Wetness: fmt.Sprintf("%d%%", h.Humidity), WindSpeed: u.kmh(h.WindKmh)})
	}
	for _, d := range w.Days {
		hi, lo := int(math.Round(u.t(d.TMax))), int(math.Round(u.t(d.TMin)))
		item.ByDay = append(item.ByDay, WeatherDaily{Description: d.Condition.String(), TempMax: hi, TempMin: lo,
			TempMaxNegative: hi < 0, TempMinNegative: lo < 0, TempMaxPlural: hi != 1 && hi != -1,
			TempMinPlural: lo != 1 && lo != -1, UVAMax: d.UVMax, WeatherIcon: int(d.Condition),
			WeekDay: d.Date.Weekday().String(), WeekDay3C: d.Date.Weekday().String()[:3], WindSpeed: u.kmh(d.WindKmh)})
	}
	for _, p := range w.MoonPhases {
		item.MoonPhases = append(item.MoonPhases, MoonPhaseEntry{Date: p.Time.In(city.Location).Format("2006-01-02"),
			Text: p.Phase.String(), Value: p.Phase.Code()})
	}
	return []scored{{item: item, id: item.DataID}}, nil
}
