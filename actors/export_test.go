package actors

// WithoutJitter is cfg with every wait of its schedule at its shortest,
// for tests that say exactly when a try comes.
func WithoutJitter(cfg SupervisorConfig) SupervisorConfig {
	cfg.jitter = func() float64 { return 0 }
	return cfg
}
