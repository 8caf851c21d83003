package main

import (
	"os"
	"testing"

	"github.com/harkhq/hark/server/speechworker"
)

// The servers these tests start run their speech workers from this test
// binary.
func TestMain(m *testing.M) {
	speechworker.RunIfWorker()
	speechOnDemand = true
	os.Exit(m.Run())
}
