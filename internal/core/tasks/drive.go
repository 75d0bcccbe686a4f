package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A Sender sends one JSON-RPC request of method (tasks/get, tasks/update or
// tasks/cancel) with params, about the task taskID, and returns its result
// or error (a server's JSON-RPC error as a *jsonrpc.Error). Over
// Streamable HTTP it sets the Mcp-Name header to taskID.
type Sender func(ctx context.Context, method, taskID string, params any) (json.RawMessage, error)

// An Answerer answers one input request of an input_required task (its
// key, and the request as the server wrote it: method and params) with
// the response to send in tasks/update's inputResponses.
type Answerer func(ctx context.Context, key string, request json.RawMessage) (json.RawMessage, error)

// The polling limits a [Config] without its own uses.
const (
	DefaultInterval = time.Second
	MinInterval     = 50 * time.Millisecond
	MaxInterval     = 30 * time.Second
	// Jitter is the largest fraction of an interval that a task's first
	// wait adds, so that callers whose tasks start together do not poll in
	// step; the later waits keep that offset, each one the interval
	// exactly, so a task is never polled sooner than its server suggests
	// (the SEP's clients SHOULD honour it) and its result comes at most
	// one interval after it ended.
	Jitter = 0.1
	// CancelTimeout bounds the tasks/cancel sent once the caller has gone.
	CancelTimeout = 5 * time.Second
)

// Config is how [Drive] drives a task. Its zero value uses the defaults
// above, answers no input and keeps nothing.
type Config struct {
	// DefaultInterval is the wait between polls when the server suggests
	// none; MinInterval and MaxInterval bound the server's suggestion.
	DefaultInterval, MinInterval, MaxInterval time.Duration
	// Answer answers input requests; nil cancels an input_required task
	// and fails with [ErrNoInput].
	Answer Answerer
	// Seen is called with each description of the task after the first:
	// its status messages are progress, and a sign of life.
	Seen func(*Task)
	// Keep is called with every description of the task, the first before
	// any poll, so that polling can resume from the latest requestState;
	// an error ends the drive (the task is cancelled).
	Keep func(*Task) error
	// Updates brings the task's notifications/tasks (their params
	// as [ParseGot] reads them), if the connection receives them; polling
	// goes on regardless. One read after the last answer of tasks/get is
	// taken while the drive waits for its next poll: a terminal or
	// input_required one is acted on at once; one of another task, or
	// older (lastUpdatedAt) than what the task is known to be, is
	// ignored. A notification without requestState or
	// pollIntervalMs keeps the latest ones. The sender of
	// Updates must leave out those read before the answer of a tasks/get
	// it sent (the answer supersedes them).
	Updates <-chan *Task
	// Leave, if set, is asked with the cause of ctx's end: true leaves
	// the task running on the server, not cancelled, for another
	// connection or process to resume (the connection itself ended).
	Leave func(cause error) bool
	// now is the clock, for tests.
	now func() time.Time
}

// The errors of [Drive], each wrapped with the task's id.
var (
	// ErrFailed: the task failed; the server's JSON-RPC error is wrapped
	// beside it.
	ErrFailed = errors.New("task failed")
	// ErrCancelled: the server cancelled the task.
	ErrCancelled = errors.New("task cancelled by the server")
	// ErrLost: the server no longer knows the task (tasks/get answered
	// invalid params); the tool is not called again.
	ErrLost = errors.New("task lost")
	// ErrExpired: the task's time to live passed before it ended.
	ErrExpired = errors.New("task expired")
	// ErrNoInput: the task asks for input and no handler answers it; the
	// task was cancelled.
	ErrNoInput = errors.New("task requires input that no handler answers")
)

// A CancelError is the error of a drive whose ctx ended, and whose
// tasks/cancel then failed: errors.Is finds ctx's error in it; Err is the
// cancel's, by which the caller tells a server's refusal from a
// connection that failed under it (the task may run on, for another
// connection to cancel).
type CancelError struct {
	ID       string // the task's
	Ctx, Err error
}

func (e *CancelError) Error() string {
	return fmt.Sprintf("%v (task %s: %v)", e.Ctx, e.ID, e.Err)
}

func (e *CancelError) Unwrap() error { return e.Ctx }

// Drive polls t until it ends and returns its result, or the reason it
// did not end well. When ctx ends first, it sends tasks/cancel once (under
// its own [CancelTimeout]) and returns ctx's error (a [*CancelError] when
// the cancel failed), unless Config.Leave leaves the task running. Any
// other error of the sender (a broken connection) is returned as it is,
// the task not cancelled, so that a new connection can resume from what
// Keep last kept.
func Drive(ctx context.Context, send Sender, cfg Config, t *Task) (json.RawMessage, error) {
	d := &driver{send: send, cfg: cfg, t: t, answered: map[string]bool{}}
	if d.cfg.now == nil {
		d.cfg.now = time.Now
	}
	if err := d.keep(ctx); err != nil {
		return nil, err
	}
	for {
		if done, res, err := d.settle(ctx); done {
			return res, err
		}
		if exp := d.t.Expiry(); !exp.IsZero() && !d.cfg.now().Before(exp) {
			err := fmt.Errorf("task %s: %w: its time to live of %ds passed while it was %s", d.t.ID, ErrExpired, *d.t.TTLSeconds, d.t.Status)
			d.cancel()
			return nil, err
		}
		told, err := d.wait(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, d.gaveUp(ctx)
			}
			return nil, err
		}
		if told {
			continue // a notification brought what a poll would have
		}
		if err := d.poll(ctx); err != nil {
			return nil, err
		}
	}
}

type driver struct {
	send     Sender
	cfg      Config
	t        *Task
	answered map[string]bool
	jittered bool // the first wait, which alone is jittered, is done
}

// settle handles a terminal or input_required task: done when the drive
// ends with res or err.
func (d *driver) settle(ctx context.Context) (done bool, res json.RawMessage, err error) {
	switch d.t.Status {
	case Completed, Failed:
		// A task may start already ended, and the answer that created it
		// carries no result nor error: one tasks/get brings them (it
		// refuses an ended task without them).
		if (d.t.Status == Completed && len(d.t.Result) == 0) || (d.t.Status == Failed && d.t.Error == nil) {
			if err := d.poll(ctx); err != nil {
				return true, nil, err
			}
			return d.settle(ctx)
		}
		if d.t.Status == Completed {
			return true, d.t.Result, nil
		}
		return true, nil, &failedError{id: d.t.ID, message: d.t.StatusMessage, rpc: d.t.Error}
	case Cancelled:
		return true, nil, fmt.Errorf("task %s: %w%s", d.t.ID, ErrCancelled, suffix(d.t.StatusMessage))
	case InputRequired:
		if err := d.answer(ctx); err != nil {
			return true, nil, err
		}
	}
	return false, nil, nil
}

// answer answers the keys of the task's input requests not answered yet,
// in one tasks/update.
func (d *driver) answer(ctx context.Context) error {
	responses := map[string]json.RawMessage{}
	for key, req := range d.t.InputRequests {
		if d.answered[key] {
			continue
		}
		if d.cfg.Answer == nil {
			d.cancel()
			return fmt.Errorf("task %s: %w (request %q)", d.t.ID, ErrNoInput, key)
		}
		resp, err := d.cfg.Answer(ctx, key, req)
		if err != nil {
			if ctx.Err() != nil {
				return d.gaveUp(ctx)
			}
			d.cancel()
			return fmt.Errorf("task %s: answering input request %q: %w", d.t.ID, key, err)
		}
		responses[key] = resp
	}
	if len(responses) == 0 {
		return nil
	}
	params := d.params()
	params["inputResponses"] = responses
	raw, err := d.sendOut(ctx, "tasks/update", params)
	if err == nil && ctx.Err() != nil {
		if u, perr := ParseGot(raw); perr == nil && u.ID == d.t.ID && u.RequestState != nil {
			d.t = u
		}
		return d.gaveUp(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return d.gaveUp(ctx)
		}
		return fmt.Errorf("task %s: tasks/update: %w", d.t.ID, err)
	}
	for key := range responses {
		d.answered[key] = true
	}
	return nil
}

func (d *driver) params() map[string]any {
	p := map[string]any{"taskId": d.t.ID}
	if d.t.RequestState != nil {
		p["requestState"] = *d.t.RequestState
	}
	return p
}

// interval is the next wait: the server's suggestion (or the default)
// within the bounds, the first one lengthened by up to [Jitter].
func (d *driver) interval() time.Duration {
	iv := or(d.cfg.DefaultInterval, DefaultInterval)
	if ms := d.t.PollIntervalMilliseconds; ms != nil {
		iv = time.Duration(*ms) * time.Millisecond
	}
	iv = max(iv, or(d.cfg.MinInterval, MinInterval))
	iv = min(iv, or(d.cfg.MaxInterval, MaxInterval))
	if d.jittered {
		return iv
	}
	d.jittered = true
	return time.Duration(float64(iv) * (1 + Jitter*rand.Float64()))
}

// wait waits for the next poll, taking in the notifications that arrive
// meanwhile; told when one of them ended the task or asked for input.
func (d *driver) wait(ctx context.Context) (told bool, err error) {
	timer := time.NewTimer(d.interval())
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-timer.C:
			return false, nil
		case u, ok := <-d.cfg.Updates:
			if !ok {
				d.cfg.Updates = nil
				continue
			}
			if u == nil || u.ID != d.t.ID || (!u.LastUpdatedAt.IsZero() && u.LastUpdatedAt.Before(d.t.LastUpdatedAt)) {
				continue // another task's, or older than what the task is known to be
			}
			if u.RequestState == nil {
				// The SEP: a notification updates the requestState with
				// any value it provides; none leaves the latest in use.
				u.RequestState = d.t.RequestState
			}
			if u.PollIntervalMilliseconds == nil {
				u.PollIntervalMilliseconds = d.t.PollIntervalMilliseconds
			}
			if err := d.take(ctx, u); err != nil {
				return false, err
			}
			if u.Status.Terminal() || u.Status == InputRequired {
				return true, nil
			}
		}
	}
}

// sendOut sends one request that changes the task's requestState
// (tasks/get, tasks/update) and lets its answer arrive even when ctx ends
// meanwhile, up to [CancelTimeout] later: a server that took the request
// has moved on to a new requestState, which the tasks/cancel that follows
// must echo, or a server that refuses a stale one refuses the cancel.
func (d *driver) sendOut(ctx context.Context, method string, params any) (json.RawMessage, error) {
	sctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	unhook := context.AfterFunc(ctx, func() {
		t := time.NewTimer(CancelTimeout)
		defer t.Stop()
		select {
		case <-t.C:
			stop()
		case <-sctx.Done():
		}
	})
	defer unhook()
	return d.send(sctx, method, d.t.ID, params)
}

func (d *driver) poll(ctx context.Context) error {
	raw, err := d.sendOut(ctx, "tasks/get", d.params())
	if err == nil && ctx.Err() != nil {
		// Ended while the poll was answered: its requestState is the
		// one the cancel echoes.
		if u, perr := ParseGot(raw); perr == nil && u.ID == d.t.ID {
			d.t = u
		}
		return d.gaveUp(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return d.gaveUp(ctx)
		}
		var rpc *jsonrpc.Error
		if errors.As(err, &rpc) && rpc.Code == jsonrpc.CodeInvalidParams {
			return fmt.Errorf("task %s: %w: the server answered tasks/get with %q", d.t.ID, ErrLost, rpc.Message)
		}
		return fmt.Errorf("task %s: tasks/get: %w", d.t.ID, err)
	}
	u, err := ParseGot(raw)
	if err != nil {
		d.cancel()
		return fmt.Errorf("task %s: tasks/get: %w", d.t.ID, err)
	}
	if u.ID != d.t.ID {
		d.cancel()
		return fmt.Errorf("task %s: tasks/get: %w: it answered about task %s", d.t.ID, ErrInvalid, u.ID)
	}
	return d.take(ctx, u)
}

// take makes u the task's latest description.
func (d *driver) take(ctx context.Context, u *Task) error {
	d.t = u
	if d.cfg.Seen != nil {
		d.cfg.Seen(u)
	}
	return d.keep(ctx)
}

func (d *driver) keep(_ context.Context) error {
	if d.cfg.Keep == nil {
		return nil
	}
	if err := d.cfg.Keep(d.t); err != nil {
		d.cancel()
		return fmt.Errorf("task %s: keeping it: %w", d.t.ID, err)
	}
	return nil
}

// gaveUp cancels the task after ctx ended, unless Leave leaves it
// running, and returns ctx's error, a [*CancelError] when the cancel
// failed.
func (d *driver) gaveUp(ctx context.Context) error {
	if d.cfg.Leave != nil && d.cfg.Leave(context.Cause(ctx)) {
		return ctx.Err()
	}
	if err := d.cancel(); err != nil {
		return &CancelError{ID: d.t.ID, Ctx: ctx.Err(), Err: err}
	}
	return ctx.Err()
}

// cancel sends tasks/cancel, once, on a context of its own: the caller's
// may be over. Its answer, an acknowledgement or a JSON-RPC error, changes
// nothing for the caller; its error is the sender's.
func (d *driver) cancel() error {
	if d.t.Status.Terminal() {
		return nil
	}
	ctx, stop := context.WithTimeout(context.Background(), CancelTimeout)
	defer stop()
	id := d.t.ID
	_, err := d.send(ctx, "tasks/cancel", id, d.params())
	d.t = &Task{ID: id, Status: Cancelled}
	if err != nil {
		return fmt.Errorf("tasks/cancel: %w", err)
	}
	return nil
}

// failedError is the error of a failed task: [ErrFailed] and the server's
// JSON-RPC error.
type failedError struct {
	id, message string
	rpc         *jsonrpc.Error
}

func (e *failedError) Error() string {
	if e.rpc == nil {
		return fmt.Sprintf("task %s: %v%s", e.id, ErrFailed, suffix(e.message))
	}
	return fmt.Sprintf("task %s: %v%s: %d %s", e.id, ErrFailed, suffix(e.message), e.rpc.Code, e.rpc.Message)
}

func (e *failedError) Unwrap() []error {
	if e.rpc == nil {
		return []error{ErrFailed}
	}
	return []error{ErrFailed, e.rpc}
}

func suffix(message string) string {
	if message == "" {
		return ""
	}
	return " (" + message + ")"
}

func or(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
