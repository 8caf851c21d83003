// Package assets embeds the data hark and harkd ship with: the onboarding
// flow, surveys, sandbox city data, dialogue phrases and sounds. Each area
// keeps its files under data/<area>/ and reads them through Sub.
package assets

import (
	"embed"
	"io/fs"
)

//go:embed data
var files embed.FS

// Sub returns the files of one area (a folder under data/).
func Sub(area string) fs.FS {
	sub, err := fs.Sub(files, "data/"+area)
	if err != nil {
		// fs.Sub fails only for an invalid path, which is a programming error.
		panic(err)
	}
	return sub
}
