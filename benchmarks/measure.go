package benchmarks

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"
)

// Stats summarises latency samples.
type Stats struct {
	// N is the number of samples.
	N int
	// P50, P90 and P99 are percentiles by nearest rank.
	P50, P90, P99 time.Duration
	// Mean and Max are the mean and the largest sample.
	Mean, Max time.Duration
}

// Summarize sorts samples in place and returns their percentiles
// (nearest rank), mean and maximum.
func Summarize(samples []time.Duration) Stats {
	if len(samples) == 0 {
		return Stats{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	rank := func(p float64) time.Duration {
		i := int(p*float64(len(samples))+0.999999) - 1
		return samples[max(0, min(i, len(samples)-1))]
	}
	return Stats{N: len(samples), P50: rank(0.50), P90: rank(0.90), P99: rank(0.99), Mean: sum / time.Duration(len(samples)), Max: samples[len(samples)-1]}
}

// Result is what one subject measured in one scenario.
type Result struct {
	// Subject is the subject's name.
	Subject string
	// Latency is per operation.
	Latency Stats
	// AllocsPerOp and BytesPerOp are heap allocations of the whole process
	// per operation, background goroutines included (servers run in child
	// processes, so they are not counted).
	AllocsPerOp, BytesPerOp float64
	// CPUPerOp is the CPU time (user + system, all threads) this process
	// spent per operation; the servers' CPU, in child processes, is not in
	// it.
	CPUPerOp time.Duration
	// Callers is the number of goroutines calling at once; 0 for a latency
	// scenario.
	Callers int
	// OpsPerSec is operations completed per second of wall time, for
	// throughput scenarios.
	OpsPerSec float64
}

// memDelta counts the allocations made, and the CPU time spent, between
// start and stop.
type memDelta struct {
	m0      runtime.MemStats
	cpu0    time.Duration
	mallocs uint64
	bytes   uint64
	cpu     time.Duration
}

func (d *memDelta) start() {
	runtime.ReadMemStats(&d.m0)
	d.cpu0 = processCPU()
}

func (d *memDelta) stop() {
	cpu := processCPU()
	var m1 runtime.MemStats
	runtime.ReadMemStats(&m1)
	d.cpu += cpu - d.cpu0
	d.mallocs += m1.Mallocs - d.m0.Mallocs
	d.bytes += m1.TotalAlloc - d.m0.TotalAlloc
}

// perOp divides what d counted among n operations.
func (d *memDelta) perOp(n float64) (allocs, bytes float64, cpu time.Duration) {
	if n == 0 {
		return 0, 0, 0
	}
	return float64(d.mallocs) / n, float64(d.bytes) / n, time.Duration(float64(d.cpu) / n)
}

// Interleave measures subjects side by side: in each of rounds rounds, each
// subject runs perRound ops from one goroutine, timing each op. The order of
// subjects rotates every round, so that a noisy neighbour or a drifting
// machine weighs on all of them alike. Each subject first runs warmup ops.
func Interleave(ctx context.Context, subjects []*Subject, rounds, perRound, warmup int) ([]Result, error) {
	ops := make([]Op, len(subjects))
	samples := make([][]time.Duration, len(subjects))
	mem := make([]memDelta, len(subjects))
	for i, s := range subjects {
		ops[i] = s.New()
		samples[i] = make([]time.Duration, 0, rounds*perRound)
		for range warmup {
			if err := ops[i](ctx); err != nil {
				return nil, fmt.Errorf("%s: warmup: %w", s.Name, err)
			}
		}
	}
	for r := range rounds {
		for k := range subjects {
			i := (k + r) % len(subjects)
			mem[i].start()
			for range perRound {
				t0 := time.Now()
				err := ops[i](ctx)
				samples[i] = append(samples[i], time.Since(t0))
				if err != nil {
					return nil, fmt.Errorf("%s: %w", subjects[i].Name, err)
				}
			}
			mem[i].stop()
		}
	}
	out := make([]Result, len(subjects))
	for i, s := range subjects {
		out[i] = Result{Subject: s.Name, Latency: Summarize(samples[i])}
		out[i].AllocsPerOp, out[i].BytesPerOp, out[i].CPUPerOp = mem[i].perOp(float64(len(samples[i])))
	}
	return out, nil
}

// Batched measures an op too fast to time one by one: each sample is the
// mean of a batch of batchSize ops, so the percentiles are over batches.
// Subjects are interleaved by batch, as in [Interleave].
func Batched(ctx context.Context, subjects []*Subject, batches, batchSize int) ([]Result, error) {
	ops := make([]Op, len(subjects))
	samples := make([][]time.Duration, len(subjects))
	mem := make([]memDelta, len(subjects))
	for i, s := range subjects {
		ops[i] = s.New()
		samples[i] = make([]time.Duration, 0, batches)
		for range batchSize {
			if err := ops[i](ctx); err != nil {
				return nil, fmt.Errorf("%s: warmup: %w", s.Name, err)
			}
		}
	}
	for b := range batches {
		for k := range subjects {
			i := (k + b) % len(subjects)
			op := ops[i]
			mem[i].start()
			t0 := time.Now()
			for range batchSize {
				_ = op(ctx)
			}
			samples[i] = append(samples[i], time.Since(t0)/time.Duration(batchSize))
			mem[i].stop()
		}
	}
	out := make([]Result, len(subjects))
	for i, s := range subjects {
		out[i] = Result{Subject: s.Name, Latency: Summarize(samples[i])}
		out[i].AllocsPerOp, out[i].BytesPerOp, out[i].CPUPerOp = mem[i].perOp(float64(batches * batchSize))
	}
	return out, nil
}

// Throughput runs callers goroutines, each calling its own op of s in a
// loop until d has passed, and counts the ops completed per second of wall
// time, from the start until the last op in flight has returned. Each
// caller first makes one op unmeasured.
func Throughput(ctx context.Context, s *Subject, callers int, d time.Duration) (Result, error) {
	res, err := ThroughputInterleaved(ctx, []*Subject{s}, callers, d, 1)
	if err != nil {
		return Result{}, err
	}
	return res[0], nil
}

// ThroughputInterleaved measures subjects as [Throughput] does, side by
// side: in each of rounds rounds, each subject runs for slice, in an order
// that rotates every round, so that a burst of load from elsewhere weighs on
// all of them alike. Completed ops and wall time add up over the rounds.
func ThroughputInterleaved(ctx context.Context, subjects []*Subject, callers int, slice time.Duration, rounds int) ([]Result, error) {
	type state struct {
		ops     []Op
		samples [][]time.Duration
		mem     memDelta
		elapsed time.Duration
	}
	st := make([]*state, len(subjects))
	for i, s := range subjects {
		x := &state{ops: make([]Op, callers), samples: make([][]time.Duration, callers)}
		errs := make([]error, callers)
		var wg sync.WaitGroup
		for c := range callers {
			x.ops[c] = s.New()
			x.samples[c] = make([]time.Duration, 0, 1024)
			wg.Go(func() { errs[c] = x.ops[c](ctx) })
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s: warmup: %w", s.Name, err)
			}
		}
		st[i] = x
	}
	for r := range rounds {
		for k := range subjects {
			i := (k + r) % len(subjects)
			x := st[i]
			errs := make([]error, callers)
			var wg sync.WaitGroup
			x.mem.start()
			start := time.Now()
			deadline := start.Add(slice)
			for c := range callers {
				wg.Go(func() {
					for time.Now().Before(deadline) {
						t0 := time.Now()
						err := x.ops[c](ctx)
						x.samples[c] = append(x.samples[c], time.Since(t0))
						if err != nil {
							errs[c] = err
							return
						}
					}
				})
			}
			wg.Wait()
			x.elapsed += time.Since(start)
			x.mem.stop()
			for _, err := range errs {
				if err != nil {
					return nil, fmt.Errorf("%s: %w", subjects[i].Name, err)
				}
			}
		}
	}
	out := make([]Result, len(subjects))
	for i, s := range subjects {
		all := slices.Concat(st[i].samples...)
		out[i] = Result{Subject: s.Name, Latency: Summarize(all), Callers: callers,
			OpsPerSec: float64(len(all)) / st[i].elapsed.Seconds()}
		out[i].AllocsPerOp, out[i].BytesPerOp, out[i].CPUPerOp = st[i].mem.perOp(float64(len(all)))
	}
	return out, nil
}

// Footprint is what k idle connections cost the process that holds them.
type Footprint struct {
	// Connect is the time of each connection's setup.
	Connect Stats
	// AllocsPerConnect and BytesPerConnect count the setup's allocations,
	// CPUPerConnect its CPU time in this process.
	AllocsPerConnect, BytesPerConnect float64
	CPUPerConnect                     time.Duration
	// HeapPerConn is live heap plus goroutine stacks per idle connection,
	// after a GC.
	HeapPerConn float64
	// GoroutinesPerConn is goroutines per idle connection.
	GoroutinesPerConn float64

	connects []time.Duration // Connect's samples, for meanFootprint
}

// meanFootprint is the mean of footprints measured alike (as many
// connections each), their connect times pooled.
func meanFootprint(fps ...Footprint) Footprint {
	var m Footprint
	for _, fp := range fps {
		m.AllocsPerConnect += fp.AllocsPerConnect
		m.BytesPerConnect += fp.BytesPerConnect
		m.CPUPerConnect += fp.CPUPerConnect
		m.HeapPerConn += fp.HeapPerConn
		m.GoroutinesPerConn += fp.GoroutinesPerConn
		m.connects = append(m.connects, fp.connects...)
	}
	n := float64(len(fps))
	m.AllocsPerConnect /= n
	m.BytesPerConnect /= n
	m.CPUPerConnect /= time.Duration(len(fps))
	m.HeapPerConn /= n
	m.GoroutinesPerConn /= n
	m.Connect = Summarize(m.connects)
	return m
}

// Idle opens k connections one after another with connect, timing each, lets
// them settle, measures what they hold, then closes them all.
func Idle(ctx context.Context, k int, connect func(context.Context) (func() error, error)) (Footprint, error) {
	closers := make([]func() error, 0, k)
	defer func() {
		for _, c := range closers {
			_ = c()
		}
	}()
	settledGoroutines()
	release := holdFreeGoroutines()
	defer release()
	g0 := settledGoroutines()
	base := settledMemory()
	samples := make([]time.Duration, 0, k)
	var mem memDelta
	for range k {
		mem.start()
		t0 := time.Now()
		c, err := connect(ctx)
		samples = append(samples, time.Since(t0))
		mem.stop()
		if err != nil {
			return Footprint{}, err
		}
		closers = append(closers, c)
	}
	time.Sleep(200 * time.Millisecond)
	held, g1 := settledMemory(), runtime.NumGoroutine()
	fp := Footprint{
		Connect:           Summarize(samples),
		connects:          samples,
		HeapPerConn:       (float64(held) - float64(base)) / float64(k),
		GoroutinesPerConn: float64(g1-g0) / float64(k),
	}
	fp.AllocsPerConnect, fp.BytesPerConnect, fp.CPUPerConnect = mem.perOp(float64(k))
	return fp, nil
}

// holdFreeGoroutines starts goroutines that block until release is
// called, enough to take every exited goroutine the runtime keeps for
// reuse with its stack (up to 64 on each P's list): the goroutines of the
// connections measured then get stacks of their own, which count in
// StackInuse. Without it, whatever kind is measured after another gets its
// goroutines' stacks free, from those the other's closed goroutines left.
func holdFreeGoroutines() (release func()) {
	const spawners, each = 16, 64
	stop := make(chan struct{})
	var started sync.WaitGroup
	started.Add(spawners * each)
	for range spawners {
		go func() {
			for range each {
				go func() {
					started.Done()
					<-stop
				}()
			}
		}()
	}
	started.Wait()
	return func() { close(stop) }
}

// settledGoroutines waits, up to 3s, until the goroutine count has not
// changed for 150 ms (what an earlier measurement closed has finished
// closing), and returns it.
func settledGoroutines() int {
	n, same := runtime.NumGoroutine(), 0
	for deadline := time.Now().Add(3 * time.Second); same < 3 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
		if m := runtime.NumGoroutine(); m == n {
			same++
		} else {
			n, same = m, 0
		}
	}
	return n
}

// settledMemory is live heap plus goroutine stacks after two GCs.
func settledMemory() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc + m.StackInuse
}

// Connector opens a connection and returns what closes it. When it returns
// both a closer and an error, the closer is still called.
type Connector struct {
	// Name identifies the connector in tables.
	Name string
	// Connect opens one connection.
	Connect func(context.Context) (func() error, error)
}

// Connects times rounds connections per connector, interleaved, each closed
// (untimed) before the next one opens.
func Connects(ctx context.Context, rounds int, connectors []Connector) ([]Result, error) {
	samples := make([][]time.Duration, len(connectors))
	mem := make([]memDelta, len(connectors))
	for r := range rounds {
		for k := range connectors {
			i := (k + r) % len(connectors)
			mem[i].start()
			t0 := time.Now()
			closer, err := connectors[i].Connect(ctx)
			samples[i] = append(samples[i], time.Since(t0))
			mem[i].stop()
			if closer != nil {
				if cerr := closer(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", connectors[i].Name, err)
			}
		}
	}
	out := make([]Result, len(connectors))
	for i, c := range connectors {
		out[i] = Result{Subject: c.Name, Latency: Summarize(samples[i])}
		out[i].AllocsPerOp, out[i].BytesPerOp, out[i].CPUPerOp = mem[i].perOp(float64(len(samples[i])))
	}
	return out, nil
}
