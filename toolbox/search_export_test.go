package toolbox

// SetStepKnobs turns the parts of step search on and off for a test and
// returns a func that puts them back.
func SetStepKnobs(noise, split bool, fusion int, context, feedback bool) (restore func()) {
	old := stepKnobs
	stepKnobs.noise, stepKnobs.split, stepKnobs.fusion, stepKnobs.context = noise, split, fusion, context
	stepKnobs.prf = feedback
	return func() { stepKnobs = old }
}

// RankKnobs are the ranking's measured weights (rankKnobs), for tests.
type RankKnobs struct {
	DescFirst, DescRest   float64
	Server, Instructions  float64
	ServerBoost           float64
	Feedback, FeedbackOne float64
	Related               float64
	RelatedTerms          int
	Domain                bool
	Coord, B              float64
	BM25F                 bool
	BF                    [4]float64
}

// GetRankKnobs returns the ranking's weights as they are.
func GetRankKnobs() RankKnobs {
	k := rankKnobs
	return RankKnobs{k.descFirst, k.descRest, k.server, k.instructions, k.serverBoost, k.feedback, k.feedbackOne, k.related, k.relatedTerms, k.domain, k.coord, k.b, k.bm25f, k.bf}
}

// SetRankKnobs sets the ranking's weights for a test (for the indexes
// built after it) and returns a func that puts them back.
func SetRankKnobs(k RankKnobs) (restore func()) {
	old := rankKnobs
	rankKnobs.descFirst, rankKnobs.descRest, rankKnobs.server, rankKnobs.instructions = k.DescFirst, k.DescRest, k.Server, k.Instructions
	rankKnobs.serverBoost, rankKnobs.feedback, rankKnobs.feedbackOne = k.ServerBoost, k.Feedback, k.FeedbackOne
	rankKnobs.related, rankKnobs.relatedTerms, rankKnobs.domain = k.Related, k.RelatedTerms, k.Domain
	rankKnobs.coord, rankKnobs.b, rankKnobs.bm25f, rankKnobs.bf = k.Coord, k.B, k.BM25F, k.BF
	return func() { rankKnobs = old }
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
