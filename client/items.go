package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ItemsService covers /items/*. Position comes from the client's
// RequestInfo, which item paths require.
type ItemsService struct{ c *Client }

// ItemList is the list envelope of every item path. List keeps each
// element as JSON: decode it with Decode into the type of the domain.
type ItemList struct {
	Criteria struct {
		PageCriteria struct {
			Page        *int    `json:"page"`
			RowsPerPage *int    `json:"rowsPerPage"`
			Count       int     `json:"count"`
			Order       *string `json:"order"`
		} `json:"pageCriteria"`
		Lat            float64  `json:"lat"`
		Lon            float64  `json:"lon"`
		Type           string   `json:"type"`
		PropertyFilter []string `json:"propertyFilter"`
	} `json:"criteria"`
	List []json.RawMessage `json:"list"`
}

// Decode reads element i into v.
func (l *ItemList) Decode(i int, v any) error {
	if i < 0 || i >= len(l.List) {
		return fmt.Errorf("item %d of %d", i, len(l.List))
	}
	return json.Unmarshal(l.List[i], v)
}

// Item holds the fields every element has.
type Item struct {
	UUID         string `json:"uuid"`
	Type         string `json:"type"`
	ItemTitle    string `json:"itemTitle"`
	ItemSubTitle string `json:"itemSubTitle"`
	ItemText     string `json:"itemText"`
	DataID       string `json:"dataId"`
}

// Items decodes the common fields of every element.
func (l *ItemList) Items() ([]Item, error) {
	out := make([]Item, len(l.List))
	for i := range l.List {
		if err := l.Decode(i, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MovieItem is an element of /items/movies.
type MovieItem struct {
	Item
	Movie struct {
		Title         string   `json:"title"`
		AverageRating float64  `json:"averageRating"`
		Poster        string   `json:"poster"`
		Genres        []string `json:"genres"`
		Runtime       int      `json:"runtime"`
		Certification struct {
			Name        string `json:"name"`
			MinAge      int    `json:"minAge"`
			ForChildren bool   `json:"forChildren"`
		} `json:"certification"`
	} `json:"movie"`
	Theater struct {
		Name     string  `json:"name"`
		Address  string  `json:"address"`
		Schedule string  `json:"schedule"`
		Lat      float64 `json:"lat"`
		Lon      float64 `json:"lon"`
	} `json:"theater"`
}

// RestaurantItem is an element of /items/restaurants. Rating and
// coordinates are strings on the wire, as the contract says.
type RestaurantItem struct {
	Item
	Name         string   `json:"name"`
	URLImage     string   `json:"urlImage"`
	Address      string   `json:"address"`
	Rating       string   `json:"rating"`
	Latitude     string   `json:"latitude"`
	Longitude    string   `json:"longitude"`
	Open         bool     `json:"open"`
	Categories   []string `json:"categories"`
	Price        string   `json:"price"`
	OpeningHours string   `json:"openingHours"`
	Provider     string   `json:"provider"`
}

// NewsItem is an element of the news paths.
type NewsItem struct {
	Item
	Title       string   `json:"title"`
	Text        string   `json:"text"`
	URL         string   `json:"url"`
	URLImage    string   `json:"urlImage"`
	Date        string   `json:"date"`
	PublishedAt string   `json:"publishedAt"`
	Source      string   `json:"source"`
	Trending    bool     `json:"trending"`
	Tags        []string `json:"tags"`
	Topics      []string `json:"topics"`
}

// NewsCategory is an element of /items/news/categories.
type NewsCategory struct {
	Name string `json:"name"`
	ID   int    `json:"id"`
}

// Path is the category's item path, for List.
func (c NewsCategory) Path() string { return "news/category/" + strconv.Itoa(c.ID) }

// WeatherItem is the element of /items/weather.
type WeatherItem struct {
	Item
	Lat     float64 `json:"lat"`
	Lon     float64 `json:"lon"`
	Metric  int     `json:"metric"`
	Current struct {
		City          string  `json:"city"`
		Country       string  `json:"country"`
		Date          string  `json:"date"`
		Hour          string  `json:"hour"`
		Rain          float64 `json:"rain"`
		RainUnit      string  `json:"rainUnit"`
		TempCurrent   float64 `json:"tempCurrent"`
		TempMax       float64 `json:"tempMax"`
		TempMin       float64 `json:"tempMin"`
		TempUnit      string  `json:"tempUnit"`
		TextWeather   string  `json:"textWeather"`
		UVA           int     `json:"uva"`
		WeatherIco    int     `json:"weatherIco"`
		Wetness       string  `json:"wetness"`
		WindSpeed     float64 `json:"windSpeed"`
		WindSpeedUnit string  `json:"windSpeedUnit"`
	} `json:"current"`
	ByHour []struct {
		Hour        string  `json:"hour"`
		Rain        float64 `json:"rain"`
		Snow        float64 `json:"snow"`
		Temp        float64 `json:"temp"`
		Text        string  `json:"text"`
		WeatherIcon int     `json:"weatherIcon"`
		WindSpeed   float64 `json:"windSpeed"`
	} `json:"byHour"`
	ByDay []struct {
		Description string  `json:"description"`
		TempMax     int     `json:"tempMax"`
		TempMin     int     `json:"tempMin"`
		WeatherIcon int     `json:"weatherIcon"`
		WeekDay     string  `json:"weekDay"`
		WeekDay3C   string  `json:"weekDay3C"`
		WindSpeed   float64 `json:"windSpeed"`
	} `json:"byDay"`
	SolarInfo struct {
		SunRise string `json:"sunRise"`
		SunSet  string `json:"sunSet"`
	} `json:"solarInfo"`
	MoonPhases []struct {
		Date  string `json:"date"`
		Text  string `json:"text"`
		Value string `json:"value"`
	} `json:"moonPhases"`
}

// More fetches the next page of a news list: news pages follow the
// session its first page opened, not a page number.
func (s *ItemsService) More(ctx context.Context, newsPath string) (*ItemList, error) {
	return s.List(ctx, strings.TrimSuffix(newsPath, "/")+"/more", 0, 0)
}

// List fetches a page of an item path below /items/, such as "movies",
// "news/category/2091", "sport/soccer/ranking" or "news/more". page and
// rowsPerPage of 0 take the server's defaults.
func (s *ItemsService) List(ctx context.Context, path string, page, rowsPerPage int) (*ItemList, error) {
	q := url.Values{}
	if page > 0 {
		q.Set("page", strconv.Itoa(page))
	}
	if rowsPerPage > 0 {
		q.Set("rowsPerPage", strconv.Itoa(rowsPerPage))
	}
	segs := append([]string{"items"}, strings.Split(strings.Trim(path, "/"), "/")...)
	var out ItemList
	err := s.c.doJSON(ctx, &request{method: http.MethodGet, path: pathOf(segs...), query: q, auth: authToken,
		requestInfo: true}, &out)
	if err != nil {
		return nil, err
	}
	return &out, nil
}
