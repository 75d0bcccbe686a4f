package toolsearch

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func doc(server, name, desc string) Doc {
	return Doc{Server: server, Prefix: server + "__", Words: Words(Tool{Name: name, Description: desc})}
}

// TestTwinsFollowTheToolTheyShareANameWith checks that a tool of the same
// name on another server is loaded right after the one that ranked, when
// it scores at least Knobs.Twins of it, and not without the rule.
func TestTwinsFollowTheToolTheyShareANameWith(t *testing.T) {
	docs := []Doc{
		doc("desk", "list_directory", "List the entries of a directory"),
		doc("desk", "directory_entries", "Entries of a directory, listed"),
		doc("desk", "read_entries", "Read the entries of a directory"),
		doc("fs", "list_directory", "Shows what a folder holds, in the order the disk keeps them, with their kinds"),
		doc("fs", "read_file", "Read a file"),
		doc("fs", "write_file", "Write a file"),
	}
	query := "list directory entries"
	off := Defaults
	off.Twins = 0
	assert.Equal(t, []int{2, 0, 1, 3, 4}, NewIndex(docs, off).Search(query, 6))
	assert.Equal(t, []int{2, 0, 3}, NewIndex(docs, Defaults).Search(query, 3), "fs's list_directory follows desk's")
	high := Defaults
	high.Twins = 10
	assert.Equal(t, []int{2, 0, 1}, NewIndex(docs, high).Search(query, 3), "a twin scoring under Twins of the tool stays where it ranks")
}

// TestPrefixesMeet checks that a keyword meets the keywords it begins
// with and that begin with it ("config", "configuration"), and not
// without Knobs.Prefix.
func TestPrefixesMeet(t *testing.T) {
	docs := []Doc{
		doc("app", "get_settings", "Returns the configuration of the app"),
		doc("app", "get_weather", "Returns the weather of a city"),
		doc("app", "set_config", "Sets a config value"),
	}
	off := Defaults
	off.Prefix = 0
	assert.Empty(t, NewIndex(docs[:2], off).Search("config", 5))
	assert.Equal(t, []int{0}, NewIndex(docs[:2], Defaults).Search("config", 5), `"config" begins "configuration"`)
	assert.Equal(t, []int{1}, NewIndex(docs[1:], Defaults).Search("configuration", 5), `"configuration" begins with "config"`)
	short := Defaults
	short.PrefixMin = 7
	assert.Empty(t, NewIndex(docs[:2], short).Search("config", 5), "a keyword shorter than PrefixMin meets only itself")
}

// TestAskingRanksToolsThatChangeNothingFirst checks that a query that
// asks lowers the tools whose name changes something, and one that tells
// does not, nor does a search without Knobs.Asking.
func TestAskingRanksToolsThatChangeNothingFirst(t *testing.T) {
	docs := []Doc{
		doc("cal", "create_event", "Create an event in a calendar"),
		doc("cal", "get_events", "The events of a calendar, with their titles and times"),
		doc("w", "get_weather", "The weather"),
		doc("m", "send_mail", "Send a mail"),
	}
	off := Defaults
	off.Asking = 0
	asking := "what events are in my calendar?"
	assert.Equal(t, []int{0, 1}, NewIndex(docs, off).Search(asking, 2), "create_event matches more")
	assert.Equal(t, []int{1, 0}, NewIndex(docs, Defaults).Search(asking, 2), "asking, get_events first")
	telling := "put an event in my calendar"
	assert.Equal(t, NewIndex(docs, off).Search(telling, 2), NewIndex(docs, Defaults).Search(telling, 2))
}

func TestAsks(t *testing.T) {
	for text, want := range map[string]bool{
		"what events are in my calendar?":  true,
		"Which branch am I on":             true,
		"show me the logs of the api pod":  true,
		"the open pull requests?":          true,
		"open the pull request":            false,
		"what do I need to delete?":        false, // it names a change
		"create an issue for this":         false,
		"  Where is the config file  ":     true,
		"What's in the staging bucket":     true,
		"what’s running on port 8080":      true,
		"send the summary to the channel?": false,
	} {
		q := queryOf(text)
		assert.Equal(t, want, asks(text, &q), "%q", text)
	}
}

// TestNameCoveredRaisesTheToolTheQueryNames checks that a tool's score is
// multiplied by 1 + Knobs.NameCover times the share of its name's keywords
// the query has: all of search_code's, half of search_text's, none of
// grep's (its title is not its name).
func TestNameCoveredRaisesTheToolTheQueryNames(t *testing.T) {
	docs := []Doc{
		{Server: "gh", Prefix: "gh__", Words: Words(Tool{Name: "grep", Title: "Search code", Description: "Search code for text"})},
		doc("gh", "search_code", "Find text in files of repositories"),
		doc("gh", "search_text", "Search the code for text"),
		doc("gh", "get_issue", "Get an issue"),
	}
	off := Defaults
	off.NameCover = 0
	without, with := scores(NewIndex(docs, off), "search code"), scores(NewIndex(docs, Defaults), "search code")
	require.Len(t, with, 3)
	for d, share := range map[int32]float64{0: 0, 1: 1, 2: 0.5} {
		assert.InDelta(t, 1+Defaults.NameCover*share, with[d]/without[d], 1e-5, "doc %d", d)
	}
}

// scores returns the final score of each document a query matches.
func scores(idx *Index, query string) map[int32]float64 {
	q := queryOf(query)
	sc := idx.scratch.Get().(*rankScratch)
	defer idx.scratch.Put(sc)
	defer sc.reset()
	idx.score(sc, query, &q, 0)
	out := map[int32]float64{}
	for _, d := range sc.touched {
		out[d] = float64(idx.final(sc, d))
	}
	return out
}
