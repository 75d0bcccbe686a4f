package toolsearch

import "strings"

// synonymGroups are words that ask for the same thing of a tool: a user
// says "folder" where a server says "directory", "picture" for
// "screenshot", "PR" for "pull request". A query's keyword also matches the
// other words of its groups, at synonymWeight. The groups are generic
// vocabulary of software tools, not the names of any server's tools.
var synonymGroups = []string{
	// objects
	"folder directory dir",
	"picture image photo screenshot png jpg jpeg",
	"repo repository codebase project",
	"ticket bug issue",
	"pr|pull request|merge request",
	"ci|checks|status checks|build status",
	"popup dialog alert modal prompt",
	"dropdown select combobox menu",
	"tab page window",
	"video screencast recording",
	"js javascript script",
	"css style stylesheet font color",
	"log console",
	"errors console",
	"api network request http",
	"members users people team",
	"password passphrase secret credential",
	"env environment variable",
	"md markdown",
	"phone mobile device viewport",
	"slow performance speed trace",
	"heap memory leak",
	"remember forget memorize knowledge memory graph entity",
	"fact observation",
	"link relation",
	"doc docs documentation",
	"library package framework",
	"tree hierarchy structure",
	"metadata info size",
	"size big large",
	"hover mouse cursor pointer",
	"theme dark light scheme",
	"zip gzip compress",
	"sum add plus total",
	// actions
	"make create new",
	"init initialize setup start begin",
	"remove delete erase forget discard drop",
	"change edit modify update replace alter rename",
	"append add insert",
	"rename move",
	"find search lookup locate look where",
	"look show view",
	"disk filesystem",
	"function code source",
	"show view display list get read see",
	"open read",
	"save write store",
	"download fetch clone",
	"upload attach",
	"enter type input",
	"hit press",
	"go navigate visit",
	"back previous",
	"close dismiss",
	"undo reset revert",
	"mark tag label",
	"copy fork duplicate",
	"land merge",
	"approve review",
	"pretend emulate simulate",
	"aside stash shelve",
	"note comment remark",
	"think reason reasoning",
	"dump entire whole everything",
	"changed status uncommitted diff",
	"wait until",
	// broader: general English vocabulary of tools' actions and objects
	"send post publish share notify",
	"message chat dm",
	"run execute exec launch invoke",
	"stop kill terminate halt cancel abort",
	"summary summarize summarise overview digest",
	"meeting event appointment",
	"email mail inbox",
	"chart graph plot diagram visualize",
	"spreadsheet sheet table csv",
	"task todo",
	"channel room",
	"deploy release ship",
	"sample example demo",
	"echo repeat",
	"author blame",
	"location place address",
	"price pricing cost billing",
}

// synonymWeight is what a synonym's match counts against the word itself.
const synonymWeight = 0.6

// synonyms maps a keyword to the keywords of its synonyms (each a phrase:
// one or more keywords), built from synonymGroups.
var synonyms = func() map[string][][]string {
	m := map[string][][]string{}
	for _, g := range synonymGroups {
		sep := " "
		if strings.Contains(g, "|") {
			sep = "|"
		}
		var phrases [][]string
		for _, p := range strings.Split(g, sep) {
			var ks []string
			Keywords(p, func(k string) { ks = append(ks, k) })
			if len(ks) > 0 {
				phrases = append(phrases, ks)
			}
		}
		for i, p := range phrases {
			if len(p) != 1 {
				continue // a phrase expands from its words' groups only when written as one word
			}
			for j, q := range phrases {
				if i != j {
					m[p[0]] = append(m[p[0]], q)
				}
			}
		}
	}
	return m
}()
