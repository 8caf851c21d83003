package speechworker

import (
	"os"
	"testing"
)

// The pools of these tests run their workers from this test binary.
func TestMain(m *testing.M) {
	RunIfWorker()
	os.Exit(m.Run())
}
