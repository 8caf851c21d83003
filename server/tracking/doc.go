// Package tracking publishes the simulated tracking datasets, loads a
// dataset into a user's history from a URL, and turns that history into
// the user's places (DECISIONS §10). It has no HTTP handlers: the HTTP
// layer calls Dataset, Service.Upload, Service.Job and Service.POIs.
//
// # Datasets
//
// Dataset(city) generates, deterministically, one simulated user over
// February 2020 in one of five cities. The user has a Home, an Office and a
// Leisure place (a gym or a park) at real coordinates of the city. On
// weekdays they leave home between 07:40 and 08:30 local time, work until
// 17:15-18:30, and on Tuesdays and Thursdays go to the Leisure place for an
// hour or so before going home; at weekends they leave home late in the
// morning for two to four hours of leisure. Trips follow an L-shaped
// street route: a walk of about 250 m at walking speed at each end and a
// ride at 7-12 m/s in between, sampled every 30 s. While the user stays
// somewhere, a fix comes about every 5 minutes with indoor accuracy
// (12-35 m) and Gaussian noise of half the accuracy; about 2% of them are
// poor fixes (120-400 m). About 3% of samples, and a few hours on some
// nights, are missing; measuresCompleteness is the share of expected samples
// present. Stamps are local wall-clock times in the city's IANA zone.
//
// # Places
//
// Place detection runs in three steps over the points of one upload:
//
//  1. Stay points. Fixes worse than 100 m accuracy are ignored, and at most
//     one fix per 10 seconds is kept (which bounds the work on any input). From each
//     anchor fix the run of following fixes that stay within 200 m of it is
//     taken; if the run lasts at least 15 minutes it becomes a stay point (the
//     mean position of the run, with its arrival and departure times) and the
//     scan continues after the run, else it continues from the next fix.
//  2. Places. Stay points are clustered with DBSCAN (eps 120 m, at least 2
//     stay points per cluster): a place is somewhere the user stayed at least
//     twice. Stay points left as noise are not places. (Stay points are first
//     pooled into 30 m grid cells that count with their number of stay points,
//     so clustering costs time linear in their number.) A place's centre is the
//     mean of its stay points weighted by dwell; its radius is the distance to
//     its farthest stay point; visits is its number of stay points and
//     dwellMinutes their total duration.
//  3. Labels. Each place's dwell is measured inside two windows of local
//     time: night (22:00-06:00, every day) and working hours (09:00-17:00,
//     Monday to Friday). The place with the most night dwell, if at least
//     6 hours in total, is Home. Among the others, the place with the most
//     working-hours dwell, if at least 8 hours in total and on at least two
//     different days, is Work. Every other place is Other.
//
// Places are numbered from 1 in order of total dwell, largest first.
//
// # JSON
//
// A job, as Upload (202) and Job report it:
//
//	{"requestId": "<uuid>", "status": "queued|processing|completed|error",
//	 "description": "<why it failed, only with error>", "points": 9738, "places": 3}
//
// A place, as POIs lists them (GET /tracking/pois answers the array, [] when
// there are none; radius in metres):
//
//	{"id": 1, "label": "Home|Work|Other", "lat": 51.541598, "lon": -0.102241,
//	 "visits": 35, "dwellMinutes": 27038, "radius": 16}
//
// # Uploads
//
// An upload is a job: queued when accepted, processing while a worker
// fetches and analyses the file, then completed (with the number of points
// and places) or error (with a description). The fetch accepts only http and
// https URLs without credentials whose host (and port, when the allowlist
// entry names one) is on the operator's allowlist; each redirect is checked again; link-local
// addresses (169.254.0.0/16, fe80::/10) are refused even when listed, both as
// literal hosts and as the address a name resolves to. The body is limited in
// size and the whole fetch in time. A completed upload replaces the user's
// previous points and places, in the transaction that records the upload's
// completion.
//
// Uploads are rows claimed under a lease (server/lease): every harkd
// process sharing the store works the same queue, a user's uploads run one
// at a time in the order sent, and an upload whose process died (or
// restarted) is taken over once its lease runs out (Config.Lease, 30 s by
// default), at most three times before it ends in error. A graceful
// shutdown ends the upload it was processing in error.
package tracking
