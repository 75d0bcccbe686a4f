package demomodel

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cuca-go/mcpconnector/client"
)

const (
	// DefaultModel is the model the examples' documented output came from.
	DefaultModel = "google/gemma-4-12b-qat"
	// ScriptedTarget as CUCA_BASE_URL forces the built-in scripted endpoint.
	ScriptedTarget = "scripted"
)

// Target is where the environment asks for the model.
type Target struct {
	// BaseURL is CUCA_BASE_URL: an OpenAI-compatible base URL, used as is,
	// or [ScriptedTarget]. Empty means DefaultBaseURL, falling back to the
	// scripted endpoint if nothing answers there.
	BaseURL string
	// Model is CUCA_MODEL; empty means [DefaultModel].
	Model string
	// DefaultBaseURL is probed when BaseURL is empty; empty means
	// client.LlamaCppBaseURL. Tests point it at a closed port.
	DefaultBaseURL string
	// Script is the scripted endpoint's behaviour; nil means the script
	// unchanged.
	Script *Scripted
}

// Endpoint is the model [Choose] picked.
type Endpoint struct {
	// BaseURL is the chat-completions API to send requests to.
	BaseURL string
	// Model is the model to ask for.
	Model string
	// Scripted reports that BaseURL is the built-in scripted endpoint, so
	// that an example can label its replies as scripted.
	Scripted bool

	stop func()
}

// Close stops the scripted endpoint if Choose started one.
func (e *Endpoint) Close() {
	if e.stop != nil {
		e.stop()
	}
}

// Choose decides where the model runs: t.BaseURL as given, the scripted
// endpoint when asked for, or the default llama-server base URL if
// something answers there and the scripted endpoint if nothing does. It
// prints its choice to out as one line and a blank one. The caller closes
// the endpoint.
func Choose(ctx context.Context, out io.Writer, t Target) (*Endpoint, error) {
	model := t.Model
	if model == "" {
		model = DefaultModel
	}
	switch t.BaseURL {
	case "":
		base := t.DefaultBaseURL
		if base == "" {
			base = client.LlamaCppBaseURL
		}
		probeErr := probe(ctx, base)
		if probeErr == nil {
			fmt.Fprintf(out, "Model: %s at %s\n\n", model, base)
			return &Endpoint{BaseURL: base, Model: model}, nil
		}
		e, err := startEndpoint(t.Script)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "No LLM answered at %s (%v): running against the built-in scripted endpoint at %s, a stand-in that follows a script.\n\n",
			base, probeErr, e.BaseURL)
		return e, nil
	case ScriptedTarget:
		e, err := startEndpoint(t.Script)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "Model: the built-in scripted endpoint at %s, a stand-in that follows a script.\n\n", e.BaseURL)
		return e, nil
	default:
		fmt.Fprintf(out, "Model: %s at %s\n\n", model, t.BaseURL)
		return &Endpoint{BaseURL: t.BaseURL, Model: model}, nil
	}
}

func startEndpoint(script *Scripted) (*Endpoint, error) {
	baseURL, stop, err := StartScripted(script)
	if err != nil {
		return nil, err
	}
	return &Endpoint{BaseURL: baseURL, Model: ScriptedModelName, Scripted: true, stop: stop}, nil
}

// probe reports whether anything answers GET {base}/models. Any HTTP answer
// counts, even an error status: only silence means there is no server.
func probe(ctx context.Context, base string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(base, "/")+"/models", nil)
	if err != nil {
		return err
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	resp, err := (&http.Client{Transport: t}).Do(req)
	if err != nil {
		var urlErr interface{ Unwrap() error }
		if errors.As(err, &urlErr) {
			err = urlErr.Unwrap() // drop the `Get "…":` prefix; the caller names the URL
		}
		return err
	}
	_ = resp.Body.Close()
	return nil
}
