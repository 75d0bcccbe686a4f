//go:build !unix

package benchmarks

import "time"

// processCPU is not measured on this platform: CPU per op reads as zero.
func processCPU() time.Duration { return 0 }
