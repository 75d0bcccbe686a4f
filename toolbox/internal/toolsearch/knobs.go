package toolsearch

// Knobs are the weights and parts of a search that were measured against
// one another (docs/toolbox.md, "Tool search"). [Defaults] is what the
// toolbox searches with; the tests build indexes with others to measure
// what each buys.
type Knobs struct {
	// Name, Title, ParamName and ParamDesc weigh a keyword of a tool's
	// name, its title, a parameter's name and a parameter's description.
	Name, Title, ParamName, ParamDesc float64
	// DescFirst and DescRest weigh a keyword of the description's first
	// sentence and of the rest of it.
	DescFirst, DescRest float64
	// Server weighs a keyword of the server's prefix in each of its tools;
	// Instructions one of the server's instructions (each keyword once).
	Server, Instructions float64
	// ServerBoost multiplies the score of a tool whose server the query
	// names.
	ServerBoost float64
	// Feedback is what a keyword of pseudo-relevance feedback counts in a
	// step of a several-step query; FeedbackOne in a query of one step
	// (0: none).
	Feedback, FeedbackOne float64
	// Related is what a keyword related by co-occurrence counts (0:
	// none); RelatedTerms how many are added of each query keyword.
	Related      float64
	RelatedTerms int
	// Prefix is what a keyword counts that begins with a query's keyword,
	// or that a query's keyword begins with ("config" and
	// "configuration"), both of at least PrefixMin letters (0: none).
	Prefix    float64
	PrefixMin int
	// Asking multiplies the score of a tool whose name changes something
	// (create, delete, send...) when the query asks rather than tells
	// ("what...", "which...", "...?") and names no change (0: no such
	// rule).
	Asking float64
	// NameCover multiplies a tool's score by 1 + NameCover times the
	// share of its name's keywords (those its server's tools do not all
	// share) that the query has, or their synonyms (0: none).
	NameCover float64
	// Domain makes the keywords of a server's domain name it too: those
	// in most of its tools and in few of any other server's.
	Domain bool
	// Coord is the power of the number of the query's keywords a tool
	// matches that its score is multiplied by; B is BM25's length
	// normalisation.
	Coord, B float64
	// BM25F normalises each field group's length on its own, with its own
	// b (BF): name and title, the description's first sentence, the rest
	// of it, the parameters.
	BM25F bool
	BF    [4]float64

	// Twins loads a tool of the same name on another server (a twin:
	// filesystem's list_directory and desktop's) right after a tool
	// loaded, when it scores at least Twins of it (0: no such rule).
	Twins float64

	// The parts of step search.
	Steps StepKnobs
}

// StepKnobs turn the parts of step search on and off.
type StepKnobs struct {
	// Noise cuts what carries no meaning for choosing a tool (URLs, paths,
	// numbers, blobs); Code drops pasted code too.
	Noise, Code bool
	// Split searches a query of several steps step by step.
	Split bool
	// Fusion is how the steps' rankings are fused: FuseRoundRobin or
	// FuseRRF.
	Fusion Fusion
	// Context searches each step with the servers the task names.
	Context bool
	// Feedback ranks the steps with pseudo-relevance feedback.
	Feedback bool
}

// Fusion is how the rankings of a query's steps are fused.
type Fusion int

// The fusions.
const (
	// FuseRoundRobin takes each step's best, in the steps' order, then
	// each step's second, and so on, each tool once.
	FuseRoundRobin Fusion = iota
	// FuseRRF orders by reciprocal rank fusion: the sum over the steps of
	// 1/(60 + rank).
	FuseRRF
)

const (
	// weightPrefix is what a keyword of a tool's name that most of its
	// server's tools share counts, as a prefix.
	weightPrefix = 0.5
	bm25K1       = 1.2
)

// Defaults are the knobs a search uses.
var Defaults = Knobs{
	Name: 3, Title: 2, ParamName: 1.5, ParamDesc: 0.5,
	DescFirst: 1, DescRest: 1,
	Server: 0.3, Instructions: 0,
	ServerBoost: 3,
	Feedback:    0.5, FeedbackOne: 0,
	Related: 0, RelatedTerms: 2,
	Prefix: 0.2, PrefixMin: 4,
	Asking: 0.6, NameCover: 0.15,
	Coord: 0.5, B: 0.75,
	Twins: 0.3,
	BM25F: true, BF: [4]float64{0.5, 0.5, 0.75, 0.75},
	Steps: StepKnobs{Noise: true, Code: true, Split: true, Fusion: FuseRoundRobin, Context: true, Feedback: true},
}

// weight is what one occurrence of a keyword in field counts.
func (k *Knobs) weight(field Field) float64 {
	switch field {
	case FieldName:
		return k.Name
	case FieldTitle:
		return k.Title
	case FieldDesc:
		return k.DescFirst
	case FieldDescRest:
		return k.DescRest
	case FieldParamName:
		return k.ParamName
	}
	return k.ParamDesc
}

// fieldGroup is the group of fields whose length BM25F normalises
// together.
func fieldGroup(field Field) int {
	switch field {
	case FieldName, FieldTitle:
		return 0
	case FieldDesc:
		return 1
	case FieldDescRest:
		return 2
	}
	return 3
}
