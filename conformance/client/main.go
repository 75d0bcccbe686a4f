package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/cuca-go/mcpconnector/plugin"
	"github.com/cuca-go/mcpconnector/transport"
)

// scenarioTimeout bounds one scenario; the suite gives a client 30s.
const scenarioTimeout = 25 * time.Second

// run is one scenario's driver. env carries what the suite handed over.
type run func(ctx context.Context, env *scenarioEnv) error

// scenarioEnv is one invocation: the server, the suite's context and the
// logger every plugin gets.
type scenarioEnv struct {
	name      string
	serverURL string
	context   map[string]any
	logger    *zap.Logger
}

// scenarios maps the suite's scenario names to their drivers.
var scenarios = map[string]run{
	"tools_call":                       runToolsCall,
	"request-metadata":                 runConnectOnly,
	"json-schema-ref-no-deref":         runConnectOnly,
	"json-schema-2020-12-preservation": runSchemaPreservation,
	"http-standard-headers":            runStandardHeaders,
	"http-custom-headers":              runCustomHeaders,
	"http-invalid-tool-headers":        runInvalidToolHeaders,
	"sep-2322-client-request-state":    runRequestState,
	"auth/client-credentials-basic":    runClientCredentials,
	// The unscored authorization extensions, each a handler of package auth
	// in transport.StreamableHTTP (auth_extensions.go).
	"auth/client-credentials-jwt":           runClientCredentialsJWT,
	"auth/enterprise-managed-authorization": runEnterprise,
	"auth/wif-jwt-bearer":                   runWorkloadIdentity,
	"auth/dpop":                             runDPoP,
	"auth/dpop-nonce":                       runDPoP,
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = runAuth
	}
}

func main() {
	logger := newLogger()
	defer func() { _ = logger.Sync() }()
	if err := mainErr(logger); err != nil {
		logger.Error("scenario failed", zap.Error(err))
		_ = logger.Sync()
		os.Exit(1)
	}
}

func mainErr(logger *zap.Logger) error {
	if len(os.Args) < 2 {
		return fmt.Errorf("usage: %s <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)", os.Args[0])
	}
	env := &scenarioEnv{
		name:      os.Getenv("MCP_CONFORMANCE_SCENARIO"),
		serverURL: os.Args[len(os.Args)-1],
		logger:    logger,
	}
	drive, ok := scenarios[env.name]
	if !ok {
		return fmt.Errorf("unknown scenario %q; known: %s", env.name, strings.Join(knownScenarios(), ", "))
	}
	if raw := os.Getenv("MCP_CONFORMANCE_CONTEXT"); raw != "" {
		if err := json.Unmarshal([]byte(raw), &env.context); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %w", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), scenarioTimeout)
	defer cancel()
	logger.Info("scenario", zap.String("name", env.name), zap.String("server", env.serverURL))
	return drive(ctx, env)
}

func knownScenarios() []string {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// newLogger logs to stderr, which the suite keeps beside each scenario's
// checks; stdout stays empty.
func newLogger() *zap.Logger {
	cfg := zap.NewDevelopmentConfig()
	cfg.Level = zap.NewAtomicLevelAt(zapcore.DebugLevel)
	cfg.OutputPaths = []string{"stderr"}
	cfg.DisableStacktrace = true
	logger, err := cfg.Build()
	if err != nil {
		return zap.NewNop()
	}
	return logger
}

// connect connects the plugin to the scenario's server over Streamable HTTP.
func (env *scenarioEnv) connect(ctx context.Context, tr transport.StreamableHTTP, opts ...plugin.Option) (*plugin.McpPlugin, error) {
	tr.URL = env.serverURL
	opts = append([]plugin.Option{plugin.WithLogger(env.logger)}, opts...)
	p, err := plugin.Connect(ctx, tr, opts...)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	env.logger.Info("connected", zap.Strings("tools", toolNames(p)))
	return p, nil
}

func toolNames(p *plugin.McpPlugin) []string {
	var names []string
	for _, t := range p.Tools() {
		names = append(names, t.Name)
	}
	return names
}
