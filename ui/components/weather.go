package components

import (
	"fmt"
	"github.com/harkhq/hark/ui/common"
	"math"
	"strings"

	"github.com/harkhq/hark/client"
)

var blocks = []rune(" ▁▂▃▄▅▆▇█")

// weatherPicture draws the weather item: now, the hourly temperature as
// a block chart with rain bars under it, daily ranges on a shared scale,
// sunrise/sunset and the moon phases.
func WeatherPicture(w *client.WeatherItem, width, height int, t *common.Theme) string {
	c := w.Current
	unit := c.TempUnit
	if unit == "" {
		unit = "°"
	}
	var out []string
	out = append(out, common.AnsiFit(t.Header.Render(common.OneLine(fmt.Sprintf("%s %s  %s", c.City, c.Country, c.Date)))+"  "+
		common.OneLine(fmt.Sprintf("%.0f%s %s, %.0f–%.0f%s, wind %.0f %s, rain %.1f %s", c.TempCurrent, unit, c.TextWeather,
			c.TempMin, c.TempMax, unit, c.WindSpeed, c.WindSpeedUnit, c.Rain, c.RainUnit)), width))

	// Hourly chart: one column of two cells per hour, 5 rows of blocks.
	hours := w.ByHour
	if maxCols := (width - 6) / 2; len(hours) > maxCols {
		hours = hours[:max(maxCols, 0)]
	}
	if len(hours) > 0 {
		lo, hi := math.Inf(1), math.Inf(-1)
		rainMax := 0.0
		for _, h := range hours {
			lo, hi = math.Min(lo, h.Temp), math.Max(hi, h.Temp)
			rainMax = math.Max(rainMax, h.Rain)
		}
		const rows = 5
		span := math.Max(hi-lo, 1)
		out = append(out, "", t.Muted.Render(fmt.Sprintf("temperature by hour (%.0f–%.0f%s)", lo, hi, unit)))
		for r := rows - 1; r >= 0; r-- {
			var b strings.Builder
			label := "    "
			if r == rows-1 {
				label = fmt.Sprintf("%3.0f ", hi)
			} else if r == 0 {
				label = fmt.Sprintf("%3.0f ", lo)
			}
			b.WriteString(label)
			for _, h := range hours {
				// Height in eighths of a row, at least one so the lowest hour shows.
				eighths := int((h.Temp-lo)/span*float64(rows*8-1)) + 1
				cell := min(max(eighths-r*8, 0), 8)
				ch := string(blocks[cell])
				b.WriteString(ch + ch)
			}
			out = append(out, b.String())
		}
		var rain, labels strings.Builder
		rain.WriteString("rain")
		labels.WriteString("    ")
		for i, h := range hours {
			cell := 0
			if rainMax > 0 && h.Rain > 0 {
				cell = max(int(h.Rain/rainMax*8+0.5), 1)
			}
			ch := string(blocks[min(cell, 8)])
			rain.WriteString(ch + ch)
			if i%3 == 0 {
				hh := h.Hour
				if len(hh) > 2 {
					hh = hh[:2]
				}
				labels.WriteString(fmt.Sprintf("%-6s", hh))
			}
		}
		out = append(out, rain.String(), common.AnsiFit(labels.String(), width))
		if rainMax > 0 {
			out = append(out, t.Muted.Render(fmt.Sprintf("    rain bars up to %.1f %s", rainMax, c.RainUnit)))
		}
	}

	if len(w.ByDay) > 0 {
		lo, hi := w.ByDay[0].TempMin, w.ByDay[0].TempMax
		for _, d := range w.ByDay {
			lo, hi = min(lo, d.TempMin), max(hi, d.TempMax)
		}
		barW := max(min(width-40, 30), 10)
		scale := float64(barW) / math.Max(float64(hi-lo), 1)
		out = append(out, "", t.Muted.Render("days"))
		for _, d := range w.ByDay {
			from := int(float64(d.TempMin-lo) * scale)
			to := max(int(float64(d.TempMax-lo)*scale), from+1)
			bar := strings.Repeat(" ", from) + strings.Repeat("━", min(to, barW)-from) + strings.Repeat(" ", max(barW-to, 0))
			day := d.WeekDay3C
			if day == "" {
				day = d.WeekDay
			}
			out = append(out, common.AnsiFit(fmt.Sprintf("%-4s %3d%s %s %3d%s  %s", common.OneLine(day), d.TempMin, unit, bar, d.TempMax, unit, common.OneLine(d.Description)), width))
		}
	}
	if w.SolarInfo.SunRise != "" || w.SolarInfo.SunSet != "" {
		out = append(out, "", fmt.Sprintf("sunrise %s   sunset %s", common.OneLine(w.SolarInfo.SunRise), common.OneLine(w.SolarInfo.SunSet)))
	}
	if len(w.MoonPhases) > 0 {
		var ph []string
		for _, m := range w.MoonPhases {
			ph = append(ph, moonGlyph(m.Value+" "+m.Text)+" "+common.OneLine(m.Text)+" "+common.OneLine(m.Date))
		}
		out = append(out, common.AnsiFit("moon    "+strings.Join(ph, "   "), width))
	}
	if len(out) > height {
		out = out[:max(height, 1)]
	}
	return strings.Join(out, "\n")
}

// moonGlyph picks a drawing for a phase name (new, first quarter, full,
// last quarter), so the phase reads at a glance.
func moonGlyph(s string) string {
	s = strings.ToLower(s)
	switch {
	case strings.Contains(s, "new"):
		return "●"
	case strings.Contains(s, "full"):
		return "○"
	case strings.Contains(s, "first"):
		return "◐"
	case strings.Contains(s, "last"), strings.Contains(s, "third"):
		return "◑"
	}
	return "◌"
}
