package pictogram

import (
	"bytes"
	"image/png"
	"testing"
)

func TestDrawEveryShape(t *testing.T) {
	for _, name := range Shapes() {
		b, err := Draw(name, "#cc3322")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: not a PNG: %v", name, err)
		}
		if got := img.Bounds().Dx(); got != Size {
			t.Fatalf("%s: width %d", name, got)
		}
		// The centre region must show the glyph colour somewhere, the corner
		// must be transparent: a blank or unshaped icon fails.
		var glyph int
		for y := 16; y < 48; y++ {
			for x := 16; x < 48; x++ {
				r, g, b, _ := img.At(x, y).RGBA()
				if r>>8 == 0xcc && g>>8 == 0x33 && b>>8 == 0x22 {
					glyph++
				}
			}
		}
		if glyph < 20 {
			t.Errorf("%s: only %d glyph pixels in the centre", name, glyph)
		}
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("%s: corner not transparent", name)
		}
	}
}

func TestDrawRejectsBadInput(t *testing.T) {
	if _, err := Draw("nope", "#000000"); err == nil {
		t.Error("unknown shape accepted")
	}
	for _, c := range []string{"", "red", "#12345", "#12345g", "123456#"} {
		if _, err := Draw("circle", c); err == nil {
			t.Errorf("colour %q accepted", c)
		}
	}
}
