package toolbox

// SetStepKnobs turns the parts of step search on and off for a test and
// returns a func that puts them back.
func SetStepKnobs(noise, split bool, fusion int, context, feedback bool) (restore func()) {
	old := stepKnobs
	stepKnobs.noise, stepKnobs.split, stepKnobs.fusion, stepKnobs.context = noise, split, fusion, context
	stepKnobs.prf, stepKnobs.prfAll = feedback, false
	return func() { stepKnobs = old }
}

// SetFeedbackForAll turns pseudo-relevance feedback on for every query,
// one-step ones too.
func SetFeedbackForAll() (restore func()) {
	old := stepKnobs
	stepKnobs.prf, stepKnobs.prfAll = true, true
	return func() { stepKnobs = old }
}

// The fusions of SetStepKnobs.
const (
	FuseRoundRobin = fuseRoundRobin
	FuseRRF        = fuseRRF
)

// SplitSteps and ReduceNoise are splitSteps and reduceNoise, for tests.
var (
	SplitSteps  = splitSteps
	ReduceNoise = reduceNoise
)
