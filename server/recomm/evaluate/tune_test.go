package evaluate

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkhq/hark/server/recomm/engines"
)

// TestTune searches hyperparameters on a validation split carved from the training part (never the
// test split). It runs only with HARK_TUNE set, e.g.
// HARK_TUNE='hybrid factors=64 reg=2 alpha=2 attr=4 iters=12' go test -run TestTune -v
func TestTune(t *testing.T) {
	spec := os.Getenv("HARK_TUNE")
	if spec == "" {
		t.Skip("HARK_TUNE not set")
	}
	ds, err := LoadMovieLens(dataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	outer, err := SplitByUser(ds, 0.2, Seed)
	if err != nil {
		t.Fatal(err)
	}
	val, err := SplitByUser(outer.Train, 0.2, Seed+1)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(spec, ";") {
		f := strings.Fields(line)
		cfg := engines.TrainConfig{Seed: 1}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			x, _ := strconv.ParseFloat(v, 64)
			switch k {
			case "factors":
				cfg.Factors = int(x)
			case "iters":
				cfg.Iterations = int(x)
			case "reg":
				cfg.Regularization = x
			case "alpha":
				cfg.Alpha = x
			case "attr":
				cfg.AttributeWeight = x
			case "lr":
				cfg.LearningRate = x
			case "attrs":
				cfg.ItemAttributes = strings.Split(v, ",")
			case "halflife":
				cfg.HalfLife = time.Duration(x * float64(time.Hour) * 24)
			}
		}
		start := time.Now()
		m, err := engines.Train(context.Background(), f[0], val.Train, cfg)
		if err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		met, err := Evaluate(m, val, 10)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%-60s %s train %v", line, met, took.Round(time.Millisecond))
	}
}
