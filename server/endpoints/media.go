package endpoints

import (
	"net/http"
	"strings"

	"github.com/harkhq/hark/server/apierr"
	"github.com/harkhq/hark/server/dialogue"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/media"
)

// MusicPath is where a track is served, below the host.
func MusicPath(id string) string { return "/v2/media/music/" + id + ".mp3" }

// Music serves the library's tracks (PLAY_MUSIC), with Range support so
// players can seek.
func Music(api *httpapi.API, lib *media.Library) {
	api.Handle("GET /v2/media/music/{file}", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		id, ok := strings.CutSuffix(r.PathValue("file"), ".mp3")
		if _, known := media.Lookup(id); !ok || !known {
			return apierr.NotFoundf("no track %q", r.PathValue("file"))
		}
		path, err := lib.File(id)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "audio/mpeg")
		w.Header().Set("Cache-Control", "public, max-age=86400")
		http.ServeFile(w, r, path)
		return nil
	})
}

// absoluteURLs completes the server-relative URLs in an answer's actions
// (the dialogue engine knows paths, not the host the client reached).
func absoluteURLs(r *http.Request, resp *dialogue.Response) {
	for i, a := range resp.NextActions {
		if m, ok := a.Data.(dialogue.MusicData); ok && strings.HasPrefix(m.URL, "/") {
			m.URL = baseURL(r) + m.URL
			resp.NextActions[i].Data = m
		}
	}
}
