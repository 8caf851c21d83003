// Package items serves harkd's domain item lists (/items/...): movies,
// restaurants, news, weather and today's breakdown, sports, near events and
// TV, for the five sandbox cities (San Francisco, New York, Madrid, London,
// Singapore). It has no HTTP inside: the HTTP layer builds a Query and
// writes the Envelope (or the *apierr.Error) that List returns.
//
// # City and data
//
// The city is the one nearest to the request's lat/lon. Each domain sits
// behind a provider interface (MovieProvider, RestaurantProvider,
// NewsProvider, WeatherProvider, SportsProvider, EventProvider, TVProvider)
// whose sandbox implementation builds believable content from the compact
// seed files in assets/data/cities/ (names, districts, streets, climate
// normals, leagues, venues, templates), deterministically from the city and
// the date, so the same request on the same day gives the same answer.
//
// # Order
//
// Lists that the contract orders "by profile preference and by distance"
// sort by
//
//	score = (1 + 2·affinity) · exp(−d / L)
//
// where affinity is the largest profile weight (0..1, from the interest
// surveys) among the item's category keys ("cuisine:italian", "movie:comedy",
// "news:technology", "sport:soccer", "music:jazz"), d is the great-circle
// distance from the request's lat/lon to the item, and L is the domain's
// decay length: 3 km for restaurants; 5 km for theatres, near events and
// local news (2091); 50 km for league matches (the home team's ground);
// 2,000 km for motor, golf, tennis and cycling venues. A fully liked item
// thus ranks like an unliked one L·ln 3 closer (3.3 km for restaurants).
// Where there is no place to measure from, time takes distance's part:
//
//	personal news (2090):  (1 + 2·affinity) · exp(−age / 24 h)
//	TV:                    (1 + 2·affinity) · exp(−h / 3 h), h = hours until it starts (0 when on now)
//
// Ties go to the domain's natural key (rating for restaurants and films,
// closeness in time for matches and tours, recency for news, start time for
// events and TV) and then to dataId, so orders are total and stable.
// Popular news (2092) sort by read count, a news topic category by recency,
// the soccer ranking by points (then goal difference, goals, name), the
// weather breakdown by time of day; criteria.pageCriteria.order names the
// order used ("preference,distance", "preference,recency", "popularity",
// "recency", "points", "time", "preference,start", "none").
//
// # Paging and news sessions
//
// page is 1-based (default 1), rowsPerPage defaults to 10 and may not pass
// 100. count in pageCriteria is the number of elements returned in list. A
// news path ending in /more takes no paging parameters: it returns the next
// page of the user's news session, which the last news request without
// /more started (keeping its ranked list, so later pages neither repeat nor
// skip items when the profile changes). /more for a different news path than
// the session's, or with no session, starts a session for that path at
// page 1. Sessions live 30 minutes after their last use.
//
// # Errors
//
// Missing lat or lon, or lat/lon out of range: 400 InvalidArgument. page < 1
// or rowsPerPage outside 1..100: 400 InvalidArgument. An unknown path, and a
// news category id that does not exist (or is not a number), answer 404
// EntityNotFound: the category is a path element, so an unknown one is an
// unknown resource.
package items
