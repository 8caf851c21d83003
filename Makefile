# hark: two commands do everything on a fresh Debian machine.
#   make run   starts the hark console on its embedded platform
#   make test  vet, gofmt check and all tests with the race detector
export PATH := /usr/local/go/bin:$(PATH)
GO ?= go

# The services already on both store engines: their tests run again on a
# throwaway PostgreSQL cluster (server/store/storetest).
PG_PACKAGES = ./server ./server/accounts/... ./server/surveys/... ./server/onboarding/... ./server/tracking/... \
	./server/spoken/... ./server/speakers/... ./server/lease/... ./server/recomm/catalog/... ./server/recomm/rsql/... \
	./server/recomm/jobs/... ./server/recomm/recommend/... ./server/recomm/recommhttp/...
# The contract tests of the client against a real platform, on PostgreSQL too (voice aside: it
# touches the store only through the speaker profiles, which server/speakers tests on both, and it
# is the slowest part).
PG_CLIENT_TESTS = Register|Login|Token|Anonymous|Surveys|Items|Tracking|Dialogue|Onboarding|Recomm|Status|Storage

.PHONY: run test test-race test-rest speech-models deps build bench eval vet fmt-check

deps:
	@scripts/install-deps.sh
	@$(GO) mod download

build: deps
	@mkdir -p bin
	$(GO) build -o bin/ ./cmd/...

run: build
	bin/hark

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: deps
	# vet compiles every package on both cores; the speech models are built on one: side by side.
	@$(MAKE) --no-print-directory -j2 --output-sync=line vet fmt-check speech-models
	# The race pass and the passes without the detector side by side: alone, the race pass leaves a
	# core idle a fifth of its time (tests waiting on child processes, sockets and leases).
	@$(MAKE) --no-print-directory -j2 --output-sync=line test-race test-rest

# The recogniser's language models are built once per machine and grammar into ~/.cache/hark/speech
# (about 17 s each on one core): here, without the race detector, not inside a race-built test's
# speech worker (minutes). The first is the platform's grammar, the second the speech packages' own
# tests'.
speech-models:
	$(GO) run ./cmd/harkd speech-models
	$(GO) test -count=1 -run 'TestPrepareModelsFillsTheCache|TestSlotsAlwaysReturn' ./server/speech

test-race:
	$(GO) test -race -timeout 30m ./...

test-rest:
	# Tests that skip themselves under the race detector: recognition accuracy (pocketsphinx's C
	# code, which the detector does not see, with the Go around it several times slower), the
	# mixture's arithmetic (42 s in a race build, 9 s here) and an import of 40,000 rows killed
	# midway (30 s in a race-built harkd, 2 s without).
	$(GO) test -timeout 15m -run 'TestRecognitionAccuracy|TestShortCommandsEarly|TestWarpEstimate|TestMixedModel|TestTransformAdapts|TestNewWordsAreHeard' ./server/speech
	# Voice tests through the platform whose work is pocketsphinx's in the speech workers (what
	# harkd learns of a speaker: mean, warp, transform; the example flows): the race pass covers
	# the same Go paths in the client's other voice tests.
	$(GO) test -timeout 15m -run 'TestSpeechPriorIsPerUser|TestSpeechWarpIsPerUser|TestSpeakerAdaptationIsPerUser' ./client
	$(GO) test -timeout 15m -run 'TestFlowExamplesPass|TestFlowVoicesAreSpeakersOfTheirOwn' ./cmd/hark
	$(GO) test -timeout 15m -run 'TestKillMidImportLeavesTableUnchanged' ./cmd/harkd
	# The same services again on PostgreSQL; the race detector runs over them on SQLite, so this
	# pass proves the engine alone (1 minute instead of 3-4 on 2 cores).
	HARK_TEST_STORE=postgres $(GO) test -timeout 15m $(PG_PACKAGES)
	# The dialogue's only store is its conversations (its other tests read language, 10 s).
	HARK_TEST_STORE=postgres $(GO) test -timeout 15m -run 'Conversation' ./server/dialogue
	HARK_TEST_STORE=postgres $(GO) test -timeout 15m -run '$(PG_CLIENT_TESTS)' ./client
	# The recommendation quality targets and the hyperparameter search tests,
	# without -race (training under the race detector takes minutes); reads
	# ../shared/data/movielens-small.
	$(GO) test -timeout 15m -run 'TestQuality$$' ./server/recomm/evaluate
	$(GO) test -timeout 15m ./server/recomm/tune
	# The spoken evaluation's held-back sample (README "Spoken evaluation"), without -race: the
	# speech workers are this test binary, and under the race detector decoding takes minutes.
	# Every voice (awb and rms joined when test platforms stopped loading speech workers they never used).
	$(GO) test -timeout 20m -run 'TestSpokenSample$$' ./server/spokeneval

# Every engine's quality next to the baselines, defaults and tuned, on MovieLens
# and a synthetic sparse catalog.
eval: deps
	HARK_QUALITY_REPORT=1 $(GO) test -timeout 150m -run 'TestQualityReport|TestTuningReport|TestSearchMethods' -v ./server/recomm/evaluate
	# Every spoken line of the blind sets in every voice (hours on 2 cores; README "Spoken evaluation").
	HARK_SPOKEN_EVAL=full $(GO) test -timeout 600m -run 'TestSpokenFull$$' -v ./server/spokeneval
	# The recogniser's accuracy on its own test commands in slt as well as kal16.
	HARK_SPEECH_EVAL=1 $(GO) test -timeout 30m -run 'TestRecognitionAccuracy$$' -v ./server/speech

bench: deps
	@scripts/bench.sh
