//go:build !unix

package dialogue

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
