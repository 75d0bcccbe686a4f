package directcall

// Parity with go-sdk for resources/read: go-sdk's ClientSession.ReadResource
// and the direct path's HTTP.ReadResource on the same server and the same
// answers, with the same outcome, the same POST and the same error texts.

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readAnswers are answers to resources/read of the shapes go-sdk's
// decoding meets, keyed by the URI read; %ID% is the read's id.
var readAnswers = map[string]rawAnswer{
	"raw:text": {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"contents":[{"uri":"x","mimeType":"text/plain","text":"a\nb é"}]}}`},
	"raw:stream": {"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":1}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":%ID%,\"result\":{\"contents\":[{\"uri\":\"x\",\"text\":\"s\"},{\"uri\":\"y\",\"blob\":\"aGk=\"}]}}\n\n"},
	"raw:blob":     {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"contents":[{"uri":"x","mimeType":"image/png","blob":"aGVsbG8="}]}}`},
	"raw:badblob":  {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"contents":[{"uri":"x","blob":"!!"}]}}`},
	"raw:meta":     {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"_meta":{"k":[1,{"a":null}]},"cacheScope":"private","contents":[{"uri":"x","text":"t","_meta":{"m":true}}]}}`},
	"raw:input":    {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object"}}}},"requestState":"s"}}`},
	"raw:complete": {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"resultType":"complete","contents":[]}}`},
	"raw:wrong":    {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"contents":5}}`},
	"raw:upper":    {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"Contents":[{"uri":"x","text":"t"}]}}`},
	"raw:dup":      {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"contents":[],"contents":[{"uri":"y","text":"z"}]}}`},
	"raw:null":     {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":null}`},
	"raw:deep":     {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"_meta":{"d":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `},"contents":[]}}`},
	"raw:notfound": {"text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":%ID%,\"error\":{\"code\":-32002,\"message\":\"Resource not found\",\"data\":{\"uri\":\"raw:notfound\"}}}\n\n"},
}

// readPair is pair, for reads: a go-sdk session, and the direct path of a
// session of its own (an answer that cannot be read breaks its session),
// with go-sdk's driving of input_required off, as the connection actor
// sets it (the direct path is not taken with it on).
func readPair(t *testing.T, url string) (*mcp.ClientSession, *HTTP) {
	t.Helper()
	opts := &mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}
	cs, _ := pairWith(t, url, opts)
	_, ours := pairWith(t, url, opts)
	return cs, ours
}

func TestReadAnswersAreReadAsGoSDKReadsThem(t *testing.T) {
	noLeaks(t)
	answers := map[string]rawAnswer{}
	for k, v := range streams { // tools/call answers, read as reads
		answers[k] = v
	}
	for k, v := range readAnswers {
		answers[k] = v
	}
	ps := newParityServer(t, answers)
	for uri := range answers {
		t.Run(uri, func(t *testing.T) {
			cs, ours := readPair(t, ps.URL)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			want, wantErr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			got, err := ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if wantErr != nil {
				require.Error(t, err, "go-sdk failed with %v", wantErr)
				assert.Equal(t, wantErr.Error(), err.Error())
				sameKind(t, wantErr, err)
				return
			}
			require.NoError(t, err)
			assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
		})
	}
}

func TestThePOSTOfAReadIsGoSDKs(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	params := func() *mcp.ReadResourceParams {
		return &mcp.ReadResourceParams{URI: "file:///a.txt", Meta: mcp.Meta{"traceparent": "00-1-2-01"}}
	}
	want, err := cs.ReadResource(ctx, params())
	require.NoError(t, err)
	got, err := ours.ReadResource(ctx, params())
	require.NoError(t, err)
	assert.True(t, reflect.DeepEqual(want, got), "got %#v, want %#v", got, want)
	require.Len(t, got.Contents, 1)
	assert.Equal(t, "héllo <&>", got.Contents[0].Text)

	reads := ps.seen(methodReadResource)
	require.Len(t, reads, 2)
	sdk, our := reads[0], reads[1]
	for _, h := range []http.Header{sdk.header, our.header} {
		h.Del("Content-Length") // the ids differ in length
	}
	assert.Equal(t, sdk.header, our.header, "every header of go-sdk's POST, and no other")
	assert.Equal(t, "file:///a.txt", our.header.Get("Mcp-Name"))
	assert.Equal(t, withoutID(t, sdk.body), withoutID(t, our.body), "the body, its _meta envelope included")
	assert.Contains(t, string(our.body), `"io.modelcontextprotocol/clientInfo"`)
	assert.Contains(t, string(our.body), `"id":-`, "an id of the direct path's")
}

// go-sdk's server refuses a read of a resource it does not have with HTTP
// 400 (its JSON-RPC error in the body), which go-sdk's client reads as a
// refusal: the direct path leaves such an answer to the session, as it
// leaves a tool call's, and the session's read fails as it would.
func TestAReadOfAMissingResourceIsLeftToTheSession(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///nothing"})
	require.ErrorIs(t, err, ErrCallOnSession)
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///nothing"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Resource not found")
	res, err := ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	require.NoError(t, err, "the connection serves the next read")
	assert.Len(t, res.Contents, 1)
}

func TestACancelledReadTellsTheServerAsGoSDKDoes(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	run := func(read func(ctx context.Context) error) error {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- read(ctx) }()
		<-ps.started
		cancel()
		return <-done
	}
	wantErr := run(func(ctx context.Context) error {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///block"})
		return err
	})
	gotErr := run(func(ctx context.Context) error {
		_, err := ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///block"})
		return err
	})
	require.Error(t, wantErr)
	assert.Equal(t, wantErr.Error(), gotErr.Error())
	require.Eventually(t, func() bool {
		return len(ps.seen("notifications/cancelled")) == 2
	}, 10*time.Second, 10*time.Millisecond, "a notifications/cancelled for each: %v", ps.methods())
}

func TestReadsOnAClosedConnectionFailAsGoSDKs(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, nil)
	cs, ours := pair(t, ps.URL)
	require.NoError(t, cs.Close())
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, wantErr := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	_, err := ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	require.Error(t, wantErr)
	require.Error(t, err)
	assert.Equal(t, wantErr.Error(), err.Error())
	sameKind(t, wantErr, err)
}

// A result with a TTL is one go-sdk's session caches: the reads after it
// are the session's.
func TestReadsAfterAResultWithATTLAreLeftToTheSession(t *testing.T) {
	noLeaks(t)
	ps := newParityServer(t, map[string]rawAnswer{
		"raw:ttl": {"application/json", `{"jsonrpc":"2.0","id":%ID%,"result":{"ttlMs":60000,"contents":[{"uri":"raw:ttl","text":"t"}]}}`},
	})
	_, ours := pair(t, ps.URL)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	res, err = ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "raw:ttl"})
	require.NoError(t, err)
	assert.Equal(t, 60000, res.TTLMs)
	_, err = ours.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///a.txt"})
	assert.ErrorIs(t, err, ErrCallOnSession)
	assert.Len(t, ps.seen(methodReadResource), 2, "the third read was not sent")
}

// readerTransport is a transport that hands over r as its direct reads,
// as package transport's do.
type readerTransport struct {
	mcp.Transport
	r Reader
}

func (t readerTransport) DirectReader() Reader { return t.r }

// ReaderOf hands over what a transport's DirectReader gives, and nil for
// a transport without one.
func TestReaderOfIsTheTransports(t *testing.T) {
	lines := NewLines(nil)
	assert.Same(t, lines, ReaderOf(readerTransport{r: lines}))
	assert.Nil(t, ReaderOf(readerTransport{}), "no connection yet")
	assert.Nil(t, ReaderOf(&mcp.InMemoryTransport{}), "a transport without a direct path")
}

func TestTooDeepCountsAsGoSDK(t *testing.T) {
	for _, c := range []struct {
		b    string
		deep bool
	}{
		{`{}`, false},
		{strings.Repeat("[", 1000) + strings.Repeat("]", 1000), false},
		{strings.Repeat("[", 1001) + strings.Repeat("]", 1001), true},
		{`{"a":"` + strings.Repeat("[", 2000) + `"}`, false},                     // in a string
		{`{"a":"\"` + strings.Repeat("{", 2000) + `"}`, false},                   // after an escaped quote
		{strings.Repeat("[[]", 999) + strings.Repeat("]", 999), false},           // many openings, 1,000 deep
		{`["\\"` + strings.Repeat(",[", 1001) + strings.Repeat("]", 1002), true}, // an escaped backslash ends no string
		{strings.Repeat("[]", 2000), false},
	} {
		assert.Equal(t, c.deep, tooDeep([]byte(c.b)), "%.40s", c.b)
	}
	assert.False(t, NestedDeeperThan([]byte(`{"a":[[1]]}`), 3))
	assert.True(t, NestedDeeperThan([]byte(`{"a":[[[1]]]}`), 3))
	assert.False(t, NestedDeeperThan([]byte(`{"a":"[[[[[[\"[[[["}`), 3), "brackets in strings do not count")
}
