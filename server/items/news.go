package items

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/harkhq/hark/server/apierr"
)

// The three news categories every user has (platform-services.md).
const (
	CategoryPersonal = 2090
	CategoryLocal    = 2091
	CategoryPopular  = 2092
)

// Article is one news story.
type Article struct {
	ID        string
	Topic     string // survey key: "technology", "sports", ...
	Title     string
	Text      string
	URL       string
	Published time.Time
	Source    NewsSource
	Local     bool    // about the city itself
	Lat, Lon  float64 // where a local story happens
	Reads     int
	Trending  bool
	Tags      []string
}

// NewsProvider lists the stories available in a city at now.
type NewsProvider interface {
	Articles(ctx context.Context, city *City, now time.Time) ([]Article, error)
}

type newsCatalogue struct {
	Templates []struct {
		Topic string `json:"topic"`
		Local bool   `json:"local"`
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"templates"`
	TopicIDs   map[string]int    `json:"topicIds"`
	TopicNames map[string]string `json:"topicNames"`
}

// Articles fills every template with the city's places. Publication times
// step back from the current hour, so the set is stable within an hour and
// stories keep a believable age.
func (sb *Sandbox) Articles(ctx context.Context, city *City, now time.Time) ([]Article, error) {
	hour := now.Truncate(time.Hour)
	return sb.memosOf(city).articles.get(hour.UTC().Format(time.RFC3339), func() []Article { return sb.buildArticles(city, hour) }), nil
}

func (sb *Sandbox) buildArticles(city *City, hour time.Time) []Article {
	pl := city.Places
	pick := func(list []string, parts ...any) string { return list[seed(parts...)%uint64(len(list))] }
	out := make([]Article, len(sb.news.Templates))
	for i, t := range sb.news.Templates {
		d1 := city.Districts[seed("d1", city.Slug, i)%uint64(len(city.Districts))]
		d2 := city.Districts[(seed("d1", city.Slug, i)+1+seed("d2", city.Slug, i)%uint64(len(city.Districts)-1))%uint64(len(city.Districts))]
		fill := strings.NewReplacer("{city}", city.Name, "{district}", d1.Name, "{district2}", d2.Name,
			"{landmark}", pick(pl.Landmark, "lm", city.Slug, i), "{park}", pick(pl.Park, "pk", city.Slug, i),
			"{transit}", pl.Transit, "{council}", pl.Council, "{team}", pl.Team, "{university}", pl.University,
			"{airport}", pl.Airport, "{river}", pl.River, "{street}", pick(pl.Street, "st", city.Slug, i),
			"{street_local}", pick(d1.Streets, "sl", city.Slug, i))
		title := upperFirst(fill.Replace(t.Title))
		src := city.NewsSources[seed("src", city.Slug, i)%uint64(len(city.NewsSources))]
		age := time.Duration(10+seed("age", city.Slug, i)%2000) * time.Minute
		published := hour.Add(-age)
		reads := 150 + int(seed("reads", city.Slug, i)%24000)
		a := Article{
			ID: fmt.Sprintf("%s-n%02d", city.Slug, i+1), Topic: t.Topic, Title: title, Text: upperFirst(fill.Replace(t.Text)),
			URL:       fmt.Sprintf("https://%s/%s/%s", src.Domain, published.In(city.Location).Format("2006/01/02"), slug(title)),
			Published: published, Source: src, Local: t.Local, Reads: reads,
			Trending: reads > 18000 || (age < 3*time.Hour && reads > 9000),
			Tags:     []string{t.Topic, city.Slug},
		}
		if t.Local {
			a.Lat, a.Lon = d1.Lat, d1.Lon
			a.Tags = append(a.Tags, d1.Name)
		}
		out[i] = a
	}
	return out
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func slug(s string) string {
	var b strings.Builder
	for _, r := range foldName(s) {
		if r == ' ' {
			r = '-'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// NewsItem is an element of the news paths.
type NewsItem struct {
	Common
	Title       string         `json:"title"`
	Text        string         `json:"text"`
	URL         string         `json:"url"`
	URLImage    string         `json:"urlImage"`
	Date        string         `json:"date"`        // relative: "35 minutes ago"
	PublishedAt string         `json:"publishedAt"` // RFC 3339, for clients that sort
	Source      string         `json:"source"`
	NewsSource  NewsSourceInfo `json:"newsSource"`
	Trending    bool           `json:"trending"`
	Tags        []string       `json:"tags"`
	Topics      []string       `json:"topics"`
}

type NewsSourceInfo struct {
	IDNewsSource int         `json:"idNewsSource"`
	Description  string      `json:"description"`
	IDIdioma     int         `json:"idIdioma"` // 1 English
	CountryCode  string      `json:"countryCode"`
	URL          string      `json:"url"`
	Topics       []NewsTopic `json:"topics"`
	TeamID       int         `json:"teamId"` // 0: the source follows no team
}

type NewsTopic struct {
	IDTopic int         `json:"idTopic"`
	Nombre  string      `json:"nombre"`
	Images  []NewsImage `json:"images"`
}

type NewsImage struct {
	URL       string `json:"url"`
	ImageType int    `json:"imageType"` // 1: square icon
}

// NewsCategory is an element of /items/news/categories.
type NewsCategory struct {
	Name string `json:"name"`
	ID   int    `json:"id"`
}

func relativeAge(published, now time.Time) string {
	d := now.Sub(published)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute") + " ago"
	case d < 24*time.Hour:
		return plural(int(d/time.Hour), "hour") + " ago"
	case d < 48*time.Hour:
		return "yesterday"
	default:
		return plural(int(d/(24*time.Hour)), "day") + " ago"
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

func (s *Service) newsItem(city *City, a Article, now time.Time, base string) NewsItem {
	topicName := s.sandbox.news.TopicNames[a.Topic]
	icon := mediaURL(base, "news-"+a.Topic)
	return NewsItem{
		Common:      common("NEWS", a.ID, a.Title, a.Source.Name+" · "+relativeAge(a.Published, now), a.Text),
		Title:       a.Title,
		Text:        a.Text,
		URL:         a.URL,
		URLImage:    icon,
		Date:        relativeAge(a.Published, now),
		PublishedAt: a.Published.UTC().Format(time.RFC3339),
		Source:      a.Source.Name,
		NewsSource: NewsSourceInfo{IDNewsSource: a.Source.ID, Description: a.Source.Name, IDIdioma: 1,
			CountryCode: city.CountryCode, URL: "https://" + a.Source.Domain,
			Topics: []NewsTopic{{IDTopic: s.sandbox.news.TopicIDs[a.Topic], Nombre: topicName,
				Images: []NewsImage{{URL: icon, ImageType: 1}}}}},
		Trending: a.Trending,
		Tags:     a.Tags,
		Topics:   []string{topicName},
	}
}

type newsKind int

const (
	newsPersonal newsKind = iota
	newsLocal
	newsPopular
	newsTopic
	newsCategories
)

type newsPath struct {
	kind     newsKind
	category int    // the category id the path stands for
	topic    string // newsTopic only
	more     bool
}

// parseNewsPath maps every spelling of a news path to its category; any
// other path is a 404.
func (s *Service) parseNewsPath(path string) (newsPath, error) {
	rest, ok := strings.CutPrefix(path, "news")
	if !ok || (rest != "" && rest[0] != '/') {
		return newsPath{}, notFound(path)
	}
	rest = strings.TrimPrefix(rest, "/")
	var np newsPath
	if r, ok := strings.CutSuffix(rest, "more"); ok && (r == "" || strings.HasSuffix(r, "/")) {
		np.more, rest = true, strings.TrimSuffix(r, "/")
	}
	switch {
	case rest == "" || rest == "personal":
		np.kind, np.category = newsPersonal, CategoryPersonal
	case rest == "local":
		np.kind, np.category = newsLocal, CategoryLocal
	case rest == "popular":
		np.kind, np.category = newsPopular, CategoryPopular
	case rest == "categories" && !np.more:
		np.kind = newsCategories
	case strings.HasPrefix(rest, "category/"):
		idText := strings.TrimPrefix(rest, "category/")
		id, err := strconv.Atoi(idText)
		if err != nil {
			return newsPath{}, apierr.NotFoundf("news category %q does not exist", idText)
		}
		switch id {
		case CategoryPersonal:
			np.kind = newsPersonal
		case CategoryLocal:
			np.kind = newsLocal
		case CategoryPopular:
			np.kind = newsPopular
		default:
			np.kind = newsTopic
			for topic, tid := range s.sandbox.news.TopicIDs {
				if tid == id {
					np.topic = topic
				}
			}
			if np.topic == "" {
				return newsPath{}, apierr.NotFoundf("news category %d does not exist", id)
			}
		}
		np.category = id
	default:
		return newsPath{}, notFound(path)
	}
	return np, nil
}

// NewsCategories returns the three fixed categories and one per news topic
// the profile holds with a positive weight, strongest first.
func (s *Service) NewsCategories(profile map[string]float64) []NewsCategory {
	out := []NewsCategory{{"Personalized", CategoryPersonal}, {"Local", CategoryLocal}, {"Popular", CategoryPopular}}
	var topics []string
	for _, t := range sortedKeys(s.sandbox.news.TopicIDs) {
		if profile["news:"+t] > 0 {
			topics = append(topics, t)
		}
	}
	sort.SliceStable(topics, func(i, j int) bool { return profile["news:"+topics[i]] > profile["news:"+topics[j]] })
	for _, t := range topics {
		out = append(out, NewsCategory{s.sandbox.news.TopicNames[t], s.sandbox.news.TopicIDs[t]})
	}
	return out
}

// rankNews orders a category's stories:
//   - Personalized: (1 + 2·affinity) · exp(−age / 24 h), so a liked topic
//     stays ahead of an unliked one for about a day;
//   - Local: local stories only, (1 + 2·affinity) · exp(−d / 5 km);
//   - Popular: read count;
//   - a topic: that topic's stories, newest first.
func (s *Service) rankNews(ctx context.Context, r *request, np newsPath) ([]scored, error) {
	arts, err := s.cfg.News.Articles(ctx, r.city, r.now)
	if err != nil {
		return nil, fmt.Errorf("news of %s: %w", r.city.Slug, err)
	}
	out := make([]scored, 0, len(arts))
	for _, a := range arts {
		ageH := r.now.Sub(a.Published).Hours()
		aff := affinity(r.profile, "news:"+a.Topic)
		sc := scored{id: a.ID, tie: -ageH}
		switch np.kind {
		case newsPersonal:
			sc.score = (1 + 2*aff) * math.Exp(-ageH/24)
		case newsLocal:
			if !a.Local {
				continue
			}
			sc.score = preference(aff, distanceKm(r.lat, r.lon, a.Lat, a.Lon), decayLocal)
		case newsPopular:
			sc.score = float64(a.Reads)
		case newsTopic:
			if a.Topic != np.topic {
				continue
			}
			sc.score = -ageH
		}
		sc.build = func() any { return s.newsItem(r.city, a, r.now, r.baseURL) }
		out = append(out, sc)
	}
	rank(out)
	return out, nil
}

var newsOrder = map[newsKind]string{newsPersonal: "preference,recency", newsLocal: "preference,distance",
	newsPopular: "popularity", newsTopic: "recency"}

func (s *Service) news(ctx context.Context, r *request, np newsPath, page, rows *int) (Envelope, error) {
	filters := []string{"city=" + r.city.Slug}
	if np.kind == newsCategories {
		p, n, err := resolvePaging(page, rows)
		if err != nil {
			return Envelope{}, err
		}
		var all []scored
		for _, c := range s.NewsCategories(r.profile) {
			all = append(all, scored{item: c})
		}
		return envelope(r.lat, r.lon, "NEWS_CATEGORY", "fixed,preference", p, n, pageOf(all, p, n), filters...), nil
	}
	filters = append(filters, fmt.Sprintf("category=%d", np.category))
	if np.more {
		if sess, p, ok := s.sessions.next(r.userID, np.category, r.now); ok {
			return envelope(r.lat, r.lon, "NEWS", newsOrder[np.kind], p, sess.rows, pageOf(sess.ranked, p, sess.rows), filters...), nil
		}
		page, rows = nil, nil // a /more without a session starts one at page 1
	}
	p, n, err := resolvePaging(page, rows)
	if err != nil {
		return Envelope{}, err
	}
	ranked, err := s.rankNews(ctx, r, np)
	if err != nil {
		return Envelope{}, err
	}
	s.sessions.start(r.userID, &newsSession{category: np.category, ranked: ranked, rows: n, page: p}, r.now)
	return envelope(r.lat, r.lon, "NEWS", newsOrder[np.kind], p, n, pageOf(ranked, p, n), filters...), nil
}

// News sessions: one per user, the ranked list of the last news request.
const (
	newsSessionTTL = 30 * time.Minute
	maxNewsSession = 10000
)

type newsSession struct {
	category int
	ranked   []scored
	rows     int
	page     int // last page served
	used     time.Time
}

type newsSessions struct {
	mu sync.Mutex
	m  map[int64]*newsSession
}

func newNewsSessions() *newsSessions { return &newsSessions{m: map[int64]*newsSession{}} }

func (ns *newsSessions) start(user int64, sess *newsSession, now time.Time) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	sess.used = now
	if _, ok := ns.m[user]; !ok && len(ns.m) >= maxNewsSession {
		// Drop expired sessions; if none expired, drop the least recently used.
		var oldest int64
		var oldestT time.Time
		for u, s := range ns.m {
			if now.Sub(s.used) > newsSessionTTL {
				delete(ns.m, u)
			} else if oldestT.IsZero() || s.used.Before(oldestT) {
				oldest, oldestT = u, s.used
			}
		}
		if len(ns.m) >= maxNewsSession {
			delete(ns.m, oldest)
		}
	}
	ns.m[user] = sess
}

// next advances the user's session for category and returns the page to serve.
func (ns *newsSessions) next(user int64, category int, now time.Time) (*newsSession, int, bool) {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	s, ok := ns.m[user]
	if !ok || s.category != category || now.Sub(s.used) > newsSessionTTL {
		return nil, 0, false
	}
	s.page++
	s.used = now
	return s, s.page, true
}
