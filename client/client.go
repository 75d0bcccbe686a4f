package client

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/cuca-go/mcpconnector/host"
)

// Provider names the kind of server a [Client] talks to. Every provider speaks
// the OpenAI-compatible chat-completions API; they differ in their default
// base URL.
type Provider int

// The providers. The zero value is [LlamaCpp].
const (
	// LlamaCpp is llama.cpp's llama-server (or LM Studio) on this machine:
	// the default base URL is [LlamaCppBaseURL].
	LlamaCpp Provider = iota
	// OpenAICompatible is any other OpenAI-compatible server (vLLM, Ollama,
	// a proxy). It has no default base URL: [WithBaseURL] is required.
	OpenAICompatible
	// OpenAI is the OpenAI API itself: the default base URL is
	// [OpenAIBaseURL]; it needs [WithAPIKey].
	OpenAI
)

// Default base URLs of the providers that have one.
const (
	LlamaCppBaseURL = "http://localhost:1234/v1"
	OpenAIBaseURL   = "https://api.openai.com/v1"
)

// String names the provider as it appears in error messages.
func (p Provider) String() string {
	switch p {
	case LlamaCpp:
		return "llama.cpp"
	case OpenAICompatible:
		return "OpenAI-compatible"
	case OpenAI:
		return "OpenAI"
	default:
		return fmt.Sprintf("Provider(%d)", int(p))
	}
}

func (p Provider) defaultBaseURL() string {
	switch p {
	case LlamaCpp:
		return LlamaCppBaseURL
	case OpenAI:
		return OpenAIBaseURL
	default:
		return ""
	}
}

// ErrConfig is wrapped by the errors [New] returns for a configuration it
// cannot use (an unknown provider, a missing or malformed base URL).
var ErrConfig = errors.New("client: invalid configuration")

// Option configures a [Client] built by [New].
type Option interface {
	apply(*config)
}

// optionFunc is an [Option] that is a func over the config.
type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	provider    Provider
	baseURL     string
	model       string
	apiKey      string
	plugins     []host.Plugin
	httpClient  *http.Client
	maxRetries  int
	requestOpts []option.RequestOption
}

// WithProvider selects the kind of server; the default is [LlamaCpp].
func WithProvider(p Provider) Option {
	return optionFunc(func(c *config) { c.provider = p })
}

// WithBaseURL sets the base URL of the chat-completions API, the part before
// "/chat/completions", e.g. "http://localhost:8080/v1". An empty string keeps
// the provider's default.
func WithBaseURL(u string) Option {
	return optionFunc(func(c *config) { c.baseURL = u })
}

// WithModel sets the model used when a [host.Request] names none. If both
// are empty the request carries no model, which llama-server accepts.
func WithModel(m string) Option {
	return optionFunc(func(c *config) { c.model = m })
}

// WithAPIKey sets the bearer token sent in the Authorization header. With no
// key (the default) no Authorization header is sent; the environment is never
// consulted.
func WithAPIKey(k string) Option {
	return optionFunc(func(c *config) { c.apiKey = k })
}

// WithPlugin registers a plugin. Plugins run in registration order on every
// hook. It panics if p is nil, a programmer error.
func WithPlugin(p host.Plugin) Option {
	if p == nil {
		panic("client: WithPlugin(nil)")
	}
	return optionFunc(func(c *config) { c.plugins = append(c.plugins, p) })
}

// WithHTTPClient sets the HTTP client. If nil or not given, the client uses
// its own transport with no overall timeout, so only the caller's context
// bounds a stream.
func WithHTTPClient(h *http.Client) Option {
	return optionFunc(func(c *config) { c.httpClient = h })
}

// WithMaxRetries sets how many times a request that failed before streaming
// began (a connection error, HTTP 408, 409, 429 or 5xx) is retried. If
// negative, the openai-go default of 2 is used; that is also the default.
// A stream that has begun is never retried.
func WithMaxRetries(n int) Option {
	return optionFunc(func(c *config) { c.maxRetries = n })
}

// WithRequestOptions passes openai-go request options through, for what this
// package does not wrap (extra headers, extra body fields). They apply after
// the client's own options.
func WithRequestOptions(opts ...option.RequestOption) Option {
	return optionFunc(func(c *config) { c.requestOpts = append(c.requestOpts, opts...) })
}

// Client streams chat completions from an OpenAI-compatible server and runs
// its plugins' hooks around each one. It is safe for concurrent use; its
// configuration is fixed by [New].
type Client struct {
	baseURL    string
	model      string
	plugins    []host.Plugin
	httpClient *http.Client
	ownsHTTP   bool
	chat       openai.ChatCompletionService
}

// New builds a client. With no options it talks to llama-server at
// [LlamaCppBaseURL] with no plugins. It returns an error wrapping [ErrConfig]
// for an unknown provider or a missing or malformed base URL.
func New(opts ...Option) (*Client, error) {
	cfg := config{maxRetries: -1}
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	if cfg.provider < LlamaCpp || cfg.provider > OpenAI {
		return nil, fmt.Errorf("%w: unknown provider %v", ErrConfig, cfg.provider)
	}
	base := cfg.baseURL
	if base == "" {
		base = cfg.provider.defaultBaseURL()
	}
	if base == "" {
		return nil, fmt.Errorf("%w: provider %v needs WithBaseURL", ErrConfig, cfg.provider)
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: base URL %q is not an http(s) URL", ErrConfig, base)
	}

	c := &Client{
		baseURL:    base,
		model:      cfg.model,
		plugins:    cfg.plugins,
		httpClient: cfg.httpClient,
	}
	if c.httpClient == nil {
		c.httpClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
		c.ownsHTTP = true
	}
	// openai.NewClient would read OPENAI_API_KEY and OPENAI_BASE_URL from the
	// environment; a client pointed at a local server must not send a key it
	// was never given, so the service is built from explicit options only.
	ropts := []option.RequestOption{
		option.WithBaseURL(base),
		option.WithHTTPClient(c.httpClient),
	}
	if cfg.apiKey != "" {
		ropts = append(ropts, option.WithAPIKey(cfg.apiKey))
	}
	if cfg.maxRetries >= 0 {
		ropts = append(ropts, option.WithMaxRetries(cfg.maxRetries))
	}
	ropts = append(ropts, cfg.requestOpts...)
	c.chat = openai.NewChatCompletionService(ropts...)
	return c, nil
}

// BaseURL returns the base URL the client sends to.
func (c *Client) BaseURL() string { return c.baseURL }

// CloseIdleConnections closes the idle keep-alive connections of the
// client's own HTTP transport. It does nothing to an HTTP client given with
// [WithHTTPClient]. The client stays usable.
func (c *Client) CloseIdleConnections() {
	if c.ownsHTTP {
		c.httpClient.CloseIdleConnections()
	}
}
