// Package speechworker runs harkd's native speech engines (libespeak-ng
// synthesis, pocketsphinx recognition) in supervised worker processes of
// harkd's own binary, so that a crash in native code costs one retried
// request instead of the server (and, with hark's embedded platform, the
// user's terminal).
//
// # Why processes
//
// A segfault in C code called through cgo kills the whole Go process; no
// recover, no signal handler can make the process safe to continue.
// libespeak-ng 1.51 (Debian bookworm) did crash on ordinary Spanish text
// (see tts.closeClauses for that bug and its workaround); pocketsphinx is
// C too. A worker is `harkd speech-worker synthesis|recognition` (`hark
// speech-worker ...` inside hark; test binaries call RunIfWorker in
// TestMain), so there is no second binary to install and the worker is
// always the same build as the server.
//
// # Protocol
//
// The server writes frames to the worker's stdin and reads frames from
// its stdout; stderr is kept (its first 4 KiB, where a crash report
// lands) for the log. A frame is a 4-byte big-endian length n, then n
// bytes: a type byte and the payload. JSON payloads are noted so; PCM is
// little-endian 16-bit mono.
//
//	server → worker                        worker → server
//	I init (JSON: speech.Config or {})     R ready (JSON {"protocol":2, "dropped":[...]}) or E error
//	S speak (JSON {"voice","text"})        P PCM of the sentence at 22050 Hz, or E error
//	C cancel the speak in progress         (the speak's P or E still follows)
//	O open (JSON {"lang","rate","prior"})  R opened, or E error
//	A audio (PCM bytes as they arrive)     (nothing: recognition runs while audio comes)
//	F finish                               T result (JSON speech.Result, with its Hypotheses), or E error
//	                                       after a T, when the prior asked for an estimate:
//	                                       W warp scores (JSON {"scores","frames"}; none when not scored)
//	X abort                                K aborted
//
// The warp estimate (speech.Options.Warps) follows the result so that the
// server answers while the worker computes it; the worker takes no other
// request until it has sent W.
//
// E carries {"status","code","description"}: an *apierr.Error keeps its
// status and code across the pipe (a missing model still answers 503
// naming the Debian package). A worker serves one request at a time; the
// pool gives each request a worker of its own.
//
// # Supervision
//
// A pool (Synthesis, Recognition) runs up to Size workers (one per core
// by default), the first started with the server so a missing library is
// found at once, the others when requests need them. A worker whose
// output ends mid-request died: the pool kills what is left of it, logs
// the death at error level with the pid, the exit status, the first lines
// of its stderr and the length of what it was given (text_runes for a
// sentence; audio_bytes and audio_ms for an utterance), and starts a
// replacement after a backoff of 100 ms doubling per failure in a row up
// to 5 s (reset when a request is served), so the pool keeps its size and
// a worker that dies at start cannot spin.
//
// The request a dead worker was serving is retried once, on another
// worker: a sentence is spoken again; an utterance is replayed (the
// server keeps the audio it forwarded, at most the upload limit) and then
// continues to stream. A second death answers 503 Unavailable with the
// JSON error body of DECISIONS §4: "speech synthesis failed twice; try
// again" or "speech recognition failed twice; try again". A worker that
// owes a reply and gives none within a minute is killed as hung and the
// request answers 503. Cancelling a request stops espeak-ng at its next
// callback or aborts the utterance; the worker then goes back to the pool.
//
// # Cost
//
// BenchmarkSynthesisWorkerVsInProcess and
// BenchmarkRecognitionLatencyWorkerVsInProcess measure the same work in
// this process and through a worker, alternately in one run: synthesis
// is about 1.5 % slower per second of speech (the PCM crosses a pipe;
// MP3 encoding stays in the server), and recognition latency from the
// last byte to the result at real-time pace is the same within the
// machine's noise, since the audio is forwarded as it arrives and the
// worker decodes while it comes.
package speechworker
