//go:build !unix && !windows

package telemetry

// processMetrics has nothing to read where there is neither /proc nor
// getrusage.
func processMetrics() []processMetric { return nil }
