package evaluate

import (
	"os"
	"path/filepath"
	"testing"
)

// Seed fixes the train/test split of every quality figure.
const Seed = 20161001

// dataDir finds the shared MovieLens copy from the package directory, or skips the test.
func dataDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "..", MovieLensDir)
	if _, err := os.Stat(filepath.Join(dir, "ratings.csv")); err != nil {
		t.Skipf("MovieLens data not found at %s (CI has it at ../shared): %v", dir, err)
	}
	return dir
}
