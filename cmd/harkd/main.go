// Command harkd serves the hark platform: accounts, dialogue, surveys,
// onboarding, domain items, tracking datasets, storage and the
// recommendation service, from one process and one data directory.
//
//	harkd serve --addr 127.0.0.1:8700 --data DIR [--store postgres://USER@HOST/DB] [--public-key K --private-key S]
//	            [--token-ttl 720h] [--min-interactions 500] [--recomm-candidates 100] [--fetch-allow HOST[,HOST...]]
//	            [--training-budget 0] [--tuning-budget 40s] [--recommendation-quota 10000000] [--rate 50 --burst 100] [--processes 1]
//	            [--auth-memory 128] [--auth-rate 5 --auth-burst 20]
//	            [--auth-workspace-rate 20 --auth-workspace-burst 60] [--max-conns-per-addr 256]
//	            [--min-body-rate 240 --body-grace 5s] [--drain-timeout 75s] [--print-keys]
//	harkd workspace create --data DIR [--store URL] --name NAME
//	harkd migrate --store postgres://USER@HOST/DB | --data DIR
//	harkd store copy --from sqlite:DIR --to postgres://USER@HOST/DB
//	harkd speech-models
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/harkhq/hark/server"
	"github.com/harkhq/hark/server/accounts"
	"github.com/harkhq/hark/server/httpapi"
	"github.com/harkhq/hark/server/httpapi/connguard"
	"github.com/harkhq/hark/server/lease"
	"github.com/harkhq/hark/server/recomm/jobs"
	"github.com/harkhq/hark/server/recomm/recommend"
	"github.com/harkhq/hark/server/speechworker"
	"github.com/harkhq/hark/server/store"
	"github.com/harkhq/hark/server/workspaces"
)

const usage = `usage:
  harkd serve --addr 127.0.0.1:8700 --data DIR [--store postgres://USER@HOST/DB] [--public-key K --private-key S]
              [--token-ttl 720h] [--min-interactions 500] [--recomm-candidates 100] [--fetch-allow HOST[,HOST...]]
              [--training-budget 0] [--tuning-budget 40s] [--recommendation-quota 10000000] [--rate 50 --burst 100] [--processes 1]
              [--auth-memory 128] [--auth-rate 5 --auth-burst 20]
              [--auth-workspace-rate 20 --auth-workspace-burst 60] [--max-conns-per-addr 256]
              [--min-body-rate 240 --body-grace 5s] [--drain-timeout 75s] [--print-keys]
  harkd workspace create --data DIR [--store URL] --name NAME
  harkd migrate --store postgres://USER@HOST/DB | --data DIR
  harkd store copy --from sqlite:DIR --to postgres://USER@HOST/DB
  harkd speech-models    build the recogniser's language models into the cache before serving
The store defaults to $HARKD_STORE, else SQLite under --data.
harkd serve -h describes each flag.
`

// speechOnDemand is set by the tests, whose harkd processes mostly never
// speak (server.Config.SpeechOnDemand).
var speechOnDemand bool

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "harkd:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	switch {
	case len(args) >= 1 && args[0] == "serve":
		return serve(args[1:], stdout, stderr)
	case len(args) >= 2 && args[0] == "workspace" && args[1] == "create":
		return createWorkspace(args[2:], stdout)
	case len(args) >= 1 && args[0] == speechworker.Subcommand:
		// Hidden: harkd runs its speech engines in workers of its own binary.
		return speechworker.Main(args[1:])
	case len(args) >= 1 && args[0] == "migrate":
		return migrate(args[1:], stdout, stderr)
	case len(args) >= 1 && args[0] == "store":
		return storeCommand(args[1:], stdout, stderr)
	case len(args) == 1 && args[0] == "speech-models":
		start := time.Now()
		if err := server.PrepareSpeechModels(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "speech models ready in the cache (%.1f s)\n", time.Since(start).Seconds())
		return nil
	case len(args) == 1 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help"):
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return errors.New("unknown command")
	}
}

func serve(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8700", "address to listen on")
	data := fs.String("data", "", "data directory (SQLite database, storage files, spoken answers, recommendation catalog and models)")
	st := storeFlag(fs)
	pub := fs.String("public-key", "", "make sure a workspace with this public key exists")
	priv := fs.String("private-key", "", "the private key of --public-key")
	ttl := fs.Duration("token-ttl", 30*24*time.Hour, "lifetime of access tokens")
	minInter := fs.Int("min-interactions", 500, "records an interaction type needs to take part in training")
	cands := fs.Int("recomm-candidates", recommend.DefaultCandidates, "items-to-user candidates precomputed per user after training, beyond the user's records (0: none, rank every item per request and read each history from the store)")
	allow := fs.String("fetch-allow", "", "comma-separated host:port entries that dataset and import URLs may name (a host alone allows ports 80 and 443); the server's own address is always allowed")
	budget := fs.Duration("training-budget", 0, "training time each workspace may spend (0: unlimited); then training answers 403 TrainingTimeOut")
	tuning := fs.Duration("tuning-budget", jobs.DefaultTuningBudget, "hyperparameter search time of each training (0: no search, the engines' defaults); at most half of what --training-budget leaves")
	quota := fs.Int64("recommendation-quota", 10_000_000, "batch recommendations each workspace may order; over it: 403 QuotaExceeded")
	rate := fs.Float64("rate", 50, "requests per second per workspace and per user")
	burst := fs.Float64("burst", 100, "burst of the rate limit")
	processes := fs.Int("processes", envInt("HARKD_PROCESSES", 1), "harkd processes serving the same PostgreSQL database (default $HARKD_PROCESSES, else 1); each takes 1/N of every rate limit and burst")
	authMemory := fs.Int64("auth-memory", accounts.DefaultHashMemory>>20, "MiB that password hashing may take at once (19 MiB per login or registration); past it requests wait up to 2 s, then get 503")
	authRate := fs.Float64("auth-rate", 5, "logins and registrations per second per client address")
	authBurst := fs.Float64("auth-burst", 20, "burst of --auth-rate")
	authWsRate := fs.Float64("auth-workspace-rate", 20, "logins and registrations per second per workspace")
	authWsBurst := fs.Float64("auth-workspace-burst", 60, "burst of --auth-workspace-rate")
	maxConns := fs.Int("max-conns-per-addr", connguard.DefaultMaxPerAddr, "open connections per client address (an IPv6 /64 is one address; 0: no cap)")
	bodyRate := fs.Float64("min-body-rate", httpapi.DefaultBodyRate.BytesPerSecond, "bytes/s a request body must average once --body-grace has passed (0: no minimum); the voice stream has its own")
	bodyGrace := fs.Duration("body-grace", httpapi.DefaultBodyRate.Grace, "time a request body may take before --min-body-rate applies")
	jobLease := fs.Duration("job-lease", lease.DefaultLease, "lease of a background job (import, training, batch recommendation, tracking upload) a process claimed; a job whose process died is taken over by another once it runs out")
	drain := fs.Duration("drain-timeout", 75*time.Second, "on SIGTERM, how long requests in flight may run; those still running are cut and logged")
	printKeys := fs.Bool("print-keys", false, "print the workspace keys and URLs on stdout (creates a local workspace when none exists)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" {
		return errors.New("serve: --data is required")
	}
	if *authMemory <= 0 || *authRate <= 0 || *authBurst <= 0 || *authWsRate <= 0 || *authWsBurst <= 0 || *maxConns < 0 ||
		*bodyRate < 0 || *bodyGrace <= 0 || *drain <= 0 || *jobLease <= 0 {
		return errors.New("serve: --auth-*, --body-grace, --drain-timeout and --job-lease must be positive; --max-conns-per-addr and --min-body-rate not negative")
	}
	if (*pub == "") != (*priv == "") {
		return errors.New("serve: --public-key and --private-key go together")
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if *cands <= 0 {
		*cands = -1 // server.Config reads 0 as the default
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv, err := server.New(ctx, server.Config{
		DataDir:             *data,
		Store:               *st,
		PublicKey:           *pub,
		PrivateKey:          *priv,
		TokenTTL:            *ttl,
		MinInteractions:     *minInter,
		RecommCandidates:    *cands,
		TrainingBudget:      *budget,
		TuningBudget:        *tuning,
		RecommendationQuota: *quota,
		FetchAllow:          append(splitList(*allow), ln.Addr().String()),
		RatePerSecond:       *rate,
		RateBurst:           *burst,
		Processes:           *processes,
		AuthMemory:          *authMemory << 20,
		AuthRate:            *authRate,
		AuthBurst:           *authBurst,
		AuthWorkspaceRate:   *authWsRate,
		AuthWorkspaceBurst:  *authWsBurst,
		MaxConnsPerAddr:     orNegative(*maxConns),
		MinBodyRate:         orNegativeFloat(*bodyRate),
		BodyGrace:           *bodyGrace,
		DrainTimeout:        *drain,
		JobLease:            *jobLease,
		Logger:              logger,
		SpeechOnDemand:      speechOnDemand,
	})
	if err != nil {
		ln.Close()
		return err
	}
	if *printKeys {
		if err := printWorkspace(ctx, srv, *pub, ln.Addr().String(), stdout); err != nil {
			ln.Close()
			srv.Close()
			return err
		}
	}
	logger.Info("harkd ready", "addr", ln.Addr().String(), "data", *data)
	return srv.Serve(ctx, ln)
}

func printWorkspace(ctx context.Context, srv *server.Server, pub, addr string, w io.Writer) error {
	all, err := srv.Workspaces.All(ctx)
	if err != nil {
		return err
	}
	var ws workspaces.Workspace
	switch {
	case pub != "":
		ws, err = srv.Workspaces.ByPublicKey(ctx, pub)
	case len(all) > 0:
		ws = all[0]
	default:
		ws, err = srv.Workspaces.Create(ctx, "local")
	}
	if err != nil {
		return err
	}
	base := "http://" + addr + "/v2"
	fmt.Fprintf(w, "harkd is serving on http://%s\n", addr)
	fmt.Fprintf(w, "  base_url     %s\n  storage_url  %s\n  recomm_url   %s/recomm\n", base, base, base)
	fmt.Fprintf(w, "  public key   %s\n  private key  %s\n", ws.PublicKey, ws.PrivateKey)
	fmt.Fprintln(w, "Press Ctrl-C to stop.")
	return nil
}

func createWorkspace(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("workspace create", flag.ContinueOnError)
	data := fs.String("data", "", "data directory")
	st := storeFlag(fs)
	name := fs.String("name", "", "workspace name")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *data == "" || *name == "" {
		return errors.New("workspace create: --data and --name are required")
	}
	if err := os.MkdirAll(*data, 0o750); err != nil {
		return err
	}
	ctx := context.Background()
	db, err := store.Connect(ctx, *st, *data)
	if err != nil {
		return err
	}
	defer db.Close()
	svc, err := workspaces.New(ctx, db)
	if err != nil {
		return err
	}
	ws, err := svc.Create(ctx, *name)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(map[string]string{"publicKey": ws.PublicKey, "privateKey": ws.PrivateKey})
}

// storeFlag is --store, defaulting to $HARKD_STORE.
func storeFlag(fs *flag.FlagSet) *string {
	return fs.String("store", os.Getenv("HARKD_STORE"),
		"postgres://USER@HOST/DB?sslmode=disable to keep the services' tables in PostgreSQL (default $HARKD_STORE, else SQLite under --data)")
}

// migrate applies the services' migrations without serving, so a
// deployment migrates once before it starts its processes.
func migrate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", "", "data directory of a SQLite store")
	st := storeFlag(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *st == "" && *data == "" {
		return errors.New("migrate: --store (or HARKD_STORE) or --data is required")
	}
	if *st == "" {
		if err := os.MkdirAll(*data, 0o750); err != nil {
			return err
		}
	}
	if err := server.Migrate(context.Background(), *st, *data); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "migrated")
	return nil
}

// orNegative maps a flag's 0 ("none") to the negative value server.Config
// reads as "off", since its 0 means "the default".
func orNegative(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

func orNegativeFloat(f float64) float64 {
	if f == 0 {
		return -1
	}
	return f
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// envInt is the integer in environment variable name, or def when it is
// unset or not an integer.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}
