// Package audio is hark's microphone and speaker: capture for spoken queries, playback of
// the spoken answers, and the WAV, level and voice-activity code around them. It has no UI.
//
// # Capture
//
// OpenCapture opens an input device by name (Devices lists them), falling back to the
// default with a Notice when the name is missing or the device fails mid-recording. Audio
// is 16 kHz mono 16-bit in 20 ms frames (320 samples), what the speech service consumes.
// Arm starts the stream: every frame's Level (RMS, peak, speech decision) goes to Levels
// for a meter, and the last PreRoll (400 ms by default) is kept in a ring, so that Start,
// called on a key press, returns a Recording that begins before the press and keeps the
// first word. A Recording is an io.Reader of raw PCM that delivers frames as they are
// captured: WAVStreamHeader followed by the Recording is a request body that streams while
// the user speaks. It ends on Stop, Cancel, MaxDuration (pre-roll included), or after
// SilenceStop of silence following speech; PCM keeps it for replay or a retried upload.
//
// Voice activity is energy-based (see VAD): a frame is loud when it is 10 dB above an
// adaptive noise floor (the quietest frame of the last 3 s) and above -50 dBFS; speech
// starts after 3 loud frames and ends after 15 quiet ones (300 ms of hangover).
//
// # Playback
//
// The process has one output context (the audio library allows one), opened by NewPlayer
// at OutputRate, 44100 Hz stereo float32: music MP3s at 44.1 kHz play sample for sample and
// speech at 22.05 kHz is doubled exactly; other rates are resampled linearly. Play decodes
// an MP3 stream with go-mp3 as its bytes arrive (the reader is wrapped so go-mp3 never
// tries to seek or measure it), so the answer starts on its first frames. A Playback can
// be stopped at once (barge-in), paused and resumed, and reports its position, duration
// (exact at the end, estimated from a Content-Length before), Done, and FirstSample, the
// time its first sample was handed to the device.
//
// # Degradation
//
// Without an input device OpenCapture returns ErrNoInput; without an output device
// NewPlayer returns ErrNoOutput, and the UI turns voice output off. Built without cgo
// (CGO_ENABLED=0), capture and playback return ErrNoAudioBuild while WAV, level and VAD
// code still work. ALSA's and JACK's error printing is silenced before either library is
// initialised, and RedirectStderr sends whatever else native code prints on fd 2 to a log
// file, so nothing reaches a full-screen terminal.
package audio
