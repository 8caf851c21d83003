//go:build unix

package dialogue

import (
	"syscall"
	"time"
)

// processCPU is the CPU time this process has used. Benchmarks report it
// per operation because the shared test machine is often oversubscribed,
// which inflates wall-clock time but not CPU time.
func processCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
