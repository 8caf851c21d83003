//go:build cgo && linux

package audio

/*
#cgo pkg-config: alsa jack
#include <alsa/asoundlib.h>
#include <jack/jack.h>

// ALSA calls its error handler with printf-style arguments; this one drops them.
static void harkDropALSAError(const char *file, int line, const char *function, int err, const char *fmt, ...) {}
static void harkDropJACKMessage(const char *msg) {}

static void harkSilenceNativeLogs(void) {
	snd_lib_error_set_handler(harkDropALSAError);
	jack_set_error_function(harkDropJACKMessage);
	jack_set_info_function(harkDropJACKMessage);
}
*/
import "C"

import "sync"

var silenceOnce sync.Once

// silenceNativeLogs stops ALSA and JACK from printing on fd 2, where a full-screen terminal
// UI would show their messages over its own. It runs before PortAudio or oto first touch
// the libraries.
func silenceNativeLogs() {
	silenceOnce.Do(func() { C.harkSilenceNativeLogs() })
}
