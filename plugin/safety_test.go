package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/cuca-go/mcpconnector/actors"
	"github.com/cuca-go/mcpconnector/host"
	"github.com/cuca-go/mcpconnector/internal/fixture/testserver"
	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// introspect calls a tool of the raw "introspect" server and decodes its
// JSON answer into v.
func introspect(t *testing.T, p *plugin.McpPlugin, tool string, v any) {
	t.Helper()
	res, err := callWithin(p, 10*time.Second, tool, nil)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal([]byte(plugin.RenderResult(res)), v))
}

func TestStdioArgumentsReachTheChildLiterallyWithoutAShell(t *testing.T) {
	leakCheck(t)
	dir := t.TempDir()
	mark := func(name string) string { return filepath.Join(dir, name) }
	args := []string{
		"$(touch " + mark("dollar") + ")",
		"`touch " + mark("backtick") + "`",
		"; touch " + mark("semicolon"),
		"| touch " + mark("pipe"),
		"&& touch " + mark("and"),
		"> " + mark("redirect"),
		"*", "~", "$HOME", "${PATH}", "a b  c", "", "'single'", `"double"`, "line\nbreak", "back\\slash", "-", "--flag=x",
	}
	p := connect(t, testserver.Raw(t, "introspect", args...))
	var got []string
	introspect(t, p, "argv", &got)
	assert.Equal(t, args, got, "every argument arrives as it was given")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no shell ran any of it")

	// A command line is no command: it names an executable that does not
	// exist, and nothing runs.
	for _, command := range []string{
		"sh -c 'touch " + mark("sh") + "'",
		"true; touch " + mark("command"),
		"$(touch " + mark("command-dollar") + ")",
	} {
		_, err := plugin.Connect(context.Background(), transport.NewStdio(command))
		require.ErrorIs(t, err, plugin.ErrIO, command)
	}
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "no shell ran any command")
}

func TestStdioChildGetsOnlyTheDefaultEnvironmentAndItsOwn(t *testing.T) {
	leakCheck(t)
	t.Setenv("MCPCONNECTOR_TEST_SECRET", "s3cret")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "also-secret")
	t.Setenv("LANG", "C.UTF-8")
	tr := testserver.Raw(t, "introspect")
	tr.Env = []string{"EXTRA=1", "LANG=xx_YY.UTF-8"}
	tr.Dir = t.TempDir()
	p := connect(t, tr)

	var env []string
	introspect(t, p, "env", &env)
	got := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		_, dup := got[k]
		assert.False(t, dup, "%s appears once", k)
		got[k] = v
	}
	want := map[string]string{"EXTRA": "1", "LANG": "xx_YY.UTF-8"}
	for _, kv := range transport.DefaultEnv() {
		if k, v, _ := strings.Cut(kv, "="); k != "LANG" {
			want[k] = v
		}
	}
	assert.Equal(t, want, got, "the defaults set here, plus Env, which wins over a default")
	assert.NotContains(t, got, "MCPCONNECTOR_TEST_SECRET")

	var cwd string
	introspect(t, p, "cwd", &cwd)
	assert.Equal(t, tr.Dir, cwd)
}

// secretLogs returns every log entry at or above level whose message or
// fields contain secret.
func secretLogs(logs *observer.ObservedLogs, level zapcore.Level, secret string) []string {
	var found []string
	for _, e := range logs.All() {
		if e.Level < level {
			continue
		}
		text := e.Message + " " + fmt.Sprint(e.ContextMap())
		if strings.Contains(text, secret) {
			found = append(found, e.Level.String()+": "+text)
		}
	}
	return found
}

func TestToolArgumentsAndResultsAreNeverLoggedAboveDebug(t *testing.T) {
	for name, tr := range transports(t) {
		t.Run(name, func(t *testing.T) {
			leakCheck(t)
			core, logs := observer.New(zap.DebugLevel)
			p := connect(t, tr, plugin.WithLogger(zap.New(core)))
			secret := "SECRET-" + name + "-8c1e"
			args := map[string]any{"payload": secret}

			res, err := callWithin(p, 10*time.Second, "echo", args)
			require.NoError(t, err)
			assert.Contains(t, plugin.RenderResult(res), secret, "the result carries the secret back")

			chunk := &host.Chunk{Blocks: []host.Block{
				host.ToolCall{ID: "1", Name: "echo", Arguments: json.RawMessage(`{"payload":"` + secret + `"}`)},
				host.ToolCall{ID: "2", Name: "fail", Arguments: json.RawMessage(`{"payload":"` + secret + `"}`)},
				host.ToolCall{ID: "3", Name: "echo", Arguments: json.RawMessage(`["` + secret + `"]`)},
				host.ToolCall{ID: "4", Name: "add", Arguments: json.RawMessage(`{"a":"` + secret + `"}`)},
			}}
			require.NoError(t, p.OnStreamChunk(context.Background(), chunk))
			_, _ = callWithin(p, 10*time.Second, "no_such_tool", args)
			// A tool that rejects the secret as an unknown property, and a
			// call given up on.
			_, _ = callWithin(p, 10*time.Second, "slow", map[string]any{"ms": 1, "payload": secret})
			_, err = callWithin(p, 100*time.Millisecond, "slow", map[string]any{"ms": 500})
			require.Error(t, err)
			if name == "stdio" {
				// The server dies with the secret in flight; the connection
				// logs its end, and perhaps its restart.
				_, err = callWithin(p, 10*time.Second, "exit", args)
				require.Error(t, err)
				// Its end and its restart are logged before the
				// supervisor says it is ready again.
				require.Eventually(t, func() bool {
					st := p.Status()
					return st.Restarts >= 1 && st.State == actors.Ready
				}, 10*time.Second, 5*time.Millisecond)
				assert.NotEmpty(t, logs.FilterMessageSnippet("restarting").All(), "the restart was logged")
			}

			assert.Empty(t, secretLogs(logs, zapcore.InfoLevel, secret), "no log above debug carries arguments or results")
			assert.NotEmpty(t, secretLogs(logs, zapcore.DebugLevel, secret), "debug does: the observer sees them")
		})
	}
}

// redirector answers every request with a 307 to target.
func redirector(t *testing.T, target string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestHTTPHeaderValuesNeverAppearInLogsOrErrors(t *testing.T) {
	const secret = "HDR-SECRET-77f3"
	header := http.Header{"Authorization": {"Bearer " + secret}, "X-Api-Key": {secret + "-key"}}
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	t.Cleanup(denied.Close)
	unreachable := "http://127.0.0.1:1/mcp"

	check := func(t *testing.T, logs *observer.ObservedLogs, errs ...error) {
		t.Helper()
		for _, err := range errs {
			if err != nil {
				assert.NotContains(t, err.Error(), secret)
			}
		}
		assert.Empty(t, secretLogs(logs, zapcore.DebugLevel, secret), "not even at debug")
	}

	t.Run("a working session and failing calls", func(t *testing.T) {
		leakCheck(t)
		srv := testserver.NewMisbehavingHTTP(t)
		core, logs := observer.New(zap.DebugLevel)
		p := connect(t, transport.StreamableHTTP{URL: srv.URL, Header: header}, plugin.WithLogger(zap.New(core)))
		var errs []error
		for _, code := range []int{400, 401, 403, 404, 500, 502} {
			_, err := callWithin(p, 10*time.Second, "status", map[string]any{"code": code, "body": "refused"})
			require.Error(t, err)
			errs = append(errs, err)
		}
		_, err := callWithin(p, 10*time.Second, "garbage", nil)
		errs = append(errs, err)
		check(t, logs, errs...)
		require.NotEmpty(t, srv.Headers())
		assert.Equal(t, "Bearer "+secret, srv.Headers()[0].Get("Authorization"), "the header did reach the server")
	})
	for name, url := range map[string]string{"refused": denied.URL, "unreachable": unreachable} {
		t.Run("connect "+name, func(t *testing.T) {
			leakCheck(t)
			for _, tr := range []transport.StreamableHTTP{
				{URL: url, Header: header},
				{URL: url, BearerToken: secret},
			} {
				core, logs := observer.New(zap.DebugLevel)
				_, err := plugin.Connect(context.Background(), tr, plugin.WithLogger(zap.New(core)),
					plugin.WithConnectTimeout(5*time.Second))
				require.ErrorIs(t, err, plugin.ErrInternal)
				check(t, logs, err)
			}
		})
	}
}

func TestHTTPHeadersAreNotSentToAnotherHostOnRedirect(t *testing.T) {
	leakCheck(t)
	const secret = "HDR-SECRET-redirect"
	target := testserver.NewMisbehavingHTTP(t)
	// The same server under another host name: a redirect to another
	// origin is refused (docs/guarantees.md), so nothing reaches it.
	u, err := url.Parse(target.URL)
	require.NoError(t, err)
	elsewhere := "http://localhost:" + u.Port()
	for name, tr := range map[string]transport.StreamableHTTP{
		"header":       {URL: redirector(t, elsewhere), Header: http.Header{"Authorization": {"Bearer " + secret}, "X-Api-Key": {secret}}},
		"bearer token": {URL: redirector(t, elsewhere), BearerToken: secret},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := plugin.Connect(context.Background(), tr, plugin.WithConnectTimeout(5*time.Second))
			if err == nil {
				_, _ = callWithin(p, 5*time.Second, "ok", nil)
				require.NoError(t, p.Close())
			}
			require.ErrorContains(t, err, "redirect to another origin refused")
			for _, h := range target.Headers() {
				for k, vs := range h {
					assert.False(t, slices.ContainsFunc(vs, func(v string) bool { return strings.Contains(v, secret) }),
						"header %s went to another host", k)
				}
			}
		})
	}
}
