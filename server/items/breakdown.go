package items

import (
	"context"
	"fmt"
	"math"
	"time"
)

// BreakdownItem is an element of /items/breakdowns: one part of today
// (night 00-06, morning 06-12, afternoon 12-18, evening 18-24, local time)
// with what to wear.
type BreakdownItem struct {
	Common
	Period          string   `json:"period"` // night, morning, afternoon, evening
	Date            string   `json:"date"`   // local YYYY-MM-DD
	From            string   `json:"from"`   // "06:00"
	To              string   `json:"to"`     // "12:00"
	TempMin         float64  `json:"tempMin"`
	TempMax         float64  `json:"tempMax"`
	TempUnit        string   `json:"tempUnit"`
	TextWeather     string   `json:"textWeather"`
	WeatherIcon     int      `json:"weatherIcon"`
	Image           string   `json:"image"`
	RainProbability int      `json:"rainProbability"` // percent
	Rain            float64  `json:"rain"`            // total in the period
	RainUnit        string   `json:"rainUnit"`
	WindSpeed       float64  `json:"windSpeed"`
	WindSpeedUnit   string   `json:"windSpeedUnit"`
	Metric          int      `json:"metric"`
	Clothing        Clothing `json:"clothing"`
}

// Clothing is the clothing recommendation of a period.
type Clothing struct {
	Text       string `json:"text"`
	ClothesURL string `json:"clothesUrl"`
	Umbrella   bool   `json:"umbrella"`
}

// DayPart is a part of a day's weather, in metric units.
type DayPart struct {
	Name              string
	From, To          time.Time
	TempMin, TempMax  float64
	Condition         Condition
	RainMm, WindKmh   float64
	RainProbability   int
	ClothesText, Icon string
	Umbrella          bool
}

var partNames = [4]string{"night", "morning", "afternoon", "evening"}

// DayParts splits the local day of now into four six-hour parts.
func (s *Service) DayParts(ctx context.Context, city *City, now time.Time) ([]DayPart, error) {
	start := localMidnight(now, city.Location)
	hours, err := s.cfg.Weather.Hours(ctx, city, start, 24)
	if err != nil {
		return nil, fmt.Errorf("hourly weather of %s: %w", city.Slug, err)
	}
	if len(hours) < 24 {
		return nil, fmt.Errorf("weather of %s: provider returned %d hours", city.Slug, len(hours))
	}
	parts := make([]DayPart, 4)
	for p := range parts {
		hs := hours[p*6 : p*6+6]
		part := DayPart{Name: partNames[p], From: hs[0].Time, To: hs[0].Time.Add(6 * time.Hour),
			TempMin: math.Inf(1), TempMax: math.Inf(-1)}
		counts := map[Condition]int{}
		wetHours := 0
		for _, h := range hs {
			part.TempMin = math.Min(part.TempMin, h.Temp)
			part.TempMax = math.Max(part.TempMax, h.Temp)
			part.RainMm += h.RainMm + h.SnowMm/10
			part.WindKmh = math.Max(part.WindKmh, h.WindKmh)
			counts[h.Condition]++
			if h.RainMm > 0 || h.SnowMm > 0 {
				wetHours++
			}
		}
		// The part shows its worst weather: any rain wins over cloud.
		for c := Sunny; c <= ClearNight; c++ {
			n := counts[c]
			if n > 0 && (c.wet() || part.Condition == 0 || (!part.Condition.wet() && n > counts[part.Condition])) {
				part.Condition = c
			}
		}
		part.RainProbability = min(95, wetHours*100/6+int(seed("pop", city.Slug, part.From.Unix())%10))
		part.RainMm = round(part.RainMm, 1)
		part.ClothesText, part.Icon, part.Umbrella = clothesFor((part.TempMin+part.TempMax)/2, part.RainProbability >= 40)
		parts[p] = part
	}
	return parts, nil
}

// clothesFor picks clothing by the mean temperature of the part (°C).
func clothesFor(meanC float64, rain bool) (string, string, bool) {
	var text, icon string
	switch {
	case meanC < 8:
		text, icon = "Winter coat, scarf and gloves", "clothes-coat"
	case meanC < 15:
		text, icon = "A jacket or a warm sweater", "clothes-sweater"
	case meanC < 22:
		text, icon = "Long sleeves; a light jacket for later", "clothes-sweater"
	default:
		text, icon = "T-shirt and light clothes", "clothes-tshirt"
	}
	if rain {
		return text + ", and take an umbrella", "clothes-umbrella", true
	}
	return text, icon, false
}

func (s *Service) breakdowns(ctx context.Context, r *request) ([]scored, error) {
	parts, err := s.DayParts(ctx, r.city, r.now)
	if err != nil {
		return nil, err
	}
	u := unitsFor(r.metric)
	metric := 0
	if r.metric {
		metric = 1
	}
	var out []scored
	for _, p := range parts {
		date := p.From.In(r.city.Location).Format("2006-01-02")
		id := fmt.Sprintf("%s-breakdown-%s-%s", r.city.Slug, date, p.Name)
		item := BreakdownItem{
			Common: common("BREAKDOWN", id, upperFirst(p.Name), fmt.Sprintf("%s, %.0f to %.0f%s", p.Condition,
				u.t(p.TempMin), u.t(p.TempMax), u.temp), p.ClothesText),
			Period: p.Name, Date: date, From: p.From.In(r.city.Location).Format("15:04"),
			To:      fmt.Sprintf("%02d:00", (p.From.In(r.city.Location).Hour()+6)%24),
			TempMin: u.t(p.TempMin), TempMax: u.t(p.TempMax), TempUnit: u.temp, TextWeather: p.Condition.String(),
			WeatherIcon: int(p.Condition), Image: mediaURL(r.baseURL, p.Condition.Icon()), RainProbability: p.RainProbability,
			Rain: u.mm(p.RainMm), RainUnit: u.rain, WindSpeed: u.kmh(p.WindKmh), WindSpeedUnit: u.wind, Metric: metric,
			Clothing: Clothing{Text: p.ClothesText, ClothesURL: mediaURL(r.baseURL, p.Icon), Umbrella: p.Umbrella},
		}
		out = append(out, scored{item: item, id: id})
	}
	return out, nil
}
