package toolsearch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitSteps(t *testing.T) {
	for _, c := range []struct {
		name, query string
		want        []string
	}{
		{"numbered list", "1. list the open PRs on acme/api\n2. for the oldest one show the changed files\n3) merge it with squash",
			[]string{"list the open PRs on acme/api", "for the oldest one show the changed files", "merge it with squash"}},
		{"bullets", "- take a screenshot of the page\n* post the picture to slack",
			[]string{"take a screenshot of the page", "post the picture to slack"}},
		{"then", "clone the example repository then show the last commits",
			[]string{"clone the example repository", "show the last commits"}},
		{"and then", "stash my changes and then pull the latest main",
			[]string{"stash my changes", "pull the latest main"}},
		{"and", "take a screenshot of the checkout page and post it to the ops channel",
			[]string{"take a screenshot of the checkout page", "post it to the ops channel"}},
		{"commas", "open the dashboard, take a heap snapshot, click the refresh button",
			[]string{"open the dashboard", "take a heap snapshot", "click the refresh button"}},
		{"sentences", "The CI is red again. Pull the failure logs! Which commit broke it? Open an issue for its author.",
			[]string{"The CI is red again", "Pull the failure logs", "Which commit broke it", "Open an issue for its author"}},
		{"a short clause joins the step before", "fill the signup form with name, email and password",
			[]string{"fill the signup form with name email password"}},
		{"a short first clause joins the next", "Jira: find the ticket of this customer",
			[]string{"Jira find the ticket of this customer"}},
		{"one step", "why is our landing page slow when it loads", []string{"why is our landing page slow when it loads"}},
		{"dots inside words", "read the docs of next.js v2.3 and write them to notes.md",
			[]string{"read the docs of next.js v2.3", "write them to notes.md"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := splitSteps(c.query)
			for i := range got {
				got[i] = strings.Join(strings.Fields(got[i]), " ")
			}
			assert.Equal(t, c.want, got)
		})
	}
}

func TestSplitStepsBoundsTheSteps(t *testing.T) {
	var b strings.Builder
	for range 3 * maxSteps {
		b.WriteString("take a screenshot of the page. ")
	}
	b.WriteString("then post it to slack")
	steps := splitSteps(b.String())
	require.Len(t, steps, maxSteps)
	assert.Contains(t, steps[maxSteps-1], "screenshot")
	assert.NotContains(t, strings.Join(steps, " "), "slack")
}

func TestReduceNoise(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"scrape https://www.netlify.com/pricing?plan=pro#top now", "scrape netlify  now"},
		{"open http://localhost:8080/dash,", "open localhost ,"},
		{"save it to ./reports/q1/rag.md", "save it to q1 rag.md"},
		{"the error is at src/components/ProductList.tsx:42:23)", "the error is at components ProductList.tsx)"},
		{"make a new branch called feature/login", "make a new branch called feature login"},
		{"read op://prod/db/password", "read op prod db password"},
		{"reset to 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b please", "reset to  please"},
		{"on 2026-12-01 at 14:00, ts 1733120000.001", "on  at , ts "},
		{"rename report_2024.txt", "rename report txt"},
		{"keep 3G and v1.2 and abc123", "keep 3G and v1 and abc123"},
		{"pasted: " + strings.Repeat("QUJDRA", 20) + " end", "pasted:  end"},
		{"the log:\n```\nnpm ERR! code ERESOLVE\n```\nfix package.json", "the log:\n\n\n\nfix package json"},
		{"it says:\nTypeError: x is undefined\n    at ProductList (src/ProductList.tsx)\n\tat render\nthen fix it",
			"it says:\nTypeError: x is undefined\n\n\nthen fix it"},
	} {
		assert.Equal(t, c.want, reduceNoise(c.in, true), "reduceNoise(%q)", c.in)
	}
}

// TestReduceNoiseCutsABlob checks that a 20 KB paste is cut before it is
// tokenised: what is left is at most maxQueryBytes and keeps the words
// written before and after it.
func TestReduceNoiseCutsABlob(t *testing.T) {
	var b strings.Builder
	b.WriteString("the upload fails, find the github issue about it. Log:\n")
	for i := 0; b.Len() < 20<<10; i++ {
		b.WriteString("GET /v1/upload status=500 worker timeout while reading the multipart body\n")
	}
	b.WriteString("then post a comment on the issue with the log")
	q := b.String()
	require.Greater(t, len(q), 20<<10)
	got := reduceNoise(q, true)
	assert.LessOrEqual(t, len(got), maxQueryBytes+2)
	assert.True(t, strings.HasPrefix(got, "the upload fails, find the github issue about it"), got[:80])
	assert.True(t, strings.HasSuffix(got, "then post a comment on the issue with the log"), got[len(got)-80:])

	// A base64 image is dropped whole, run by run.
	img := "see data:image/png;base64," + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk", 300) + " and comment on it"
	assert.Equal(t, []string{"see", "and", "comment", "on", "it"}, strings.Fields(reduceNoise(img, true)))
	assert.Equal(t, []string{"see", "and", "comment", "on", "it"}, strings.Fields(reduceNoise(img[:4000]+" and comment on it", true)))
}
