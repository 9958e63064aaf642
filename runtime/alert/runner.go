package alert

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"mcpdeck/config"
)

// Options configure a Runner.
type Options struct {
	Settings
	// Interval is how often the rules are evaluated; 0 means
	// config.DefaultAlertEvaluationInterval.
	Interval time.Duration
	// Servers reports the servers at each evaluation.
	Servers func() []Server
	// Webhook delivers the alerts; nil delivers nothing (OnChange still
	// hears of every change).
	Webhook *Webhook
	// OnChange is told of every alert that begins firing or resolves, on
	// the Runner's goroutine (the monitor logs it).
	OnChange func(Alert)
	// OnDelivery is told of every delivery attempt's outcome, on the
	// sending goroutine.
	OnDelivery func(a Alert, err error)
	// Logger gets delivery failures; nil discards them.
	Logger *slog.Logger
	// Latencies is the store latency rules read; the caller feeds it.
	Latencies *Latencies
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// keepUndelivered is how long a resolved alert that could not be
// delivered is retried.
const keepUndelivered = 24 * time.Hour

// Runner evaluates the rules every Interval and delivers what is due. It
// owns two goroutines: the evaluator (which alone touches the Engine) and
// the sender, which posts one alert at a time and reports each outcome
// back to the evaluator, so a slow receiver never delays an evaluation.
type Runner struct {
	opts   Options
	engine *Engine

	// outbox holds the alerts waiting for the sender, by fingerprint: a
	// newer state of an alert replaces an older one not yet sent.
	mu     sync.Mutex
	outbox map[string]Alert
	order  []string
	wake   chan struct{} // one token: the outbox has something
	// results carries delivery outcomes from the sender to the evaluator.
	results chan delivery

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

type delivery struct {
	alert Alert
	at    time.Time
	err   error
}

// Start starts evaluating until ctx ends or Stop is called.
func Start(ctx context.Context, opts Options) *Runner {
	if opts.Interval <= 0 {
		opts.Interval = config.DefaultAlertEvaluationInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Latencies == nil {
		opts.Latencies = NewLatencies()
	}
	ctx, cancel := context.WithCancel(ctx)
	r := &Runner{opts: opts, engine: NewEngine(opts.Settings, opts.Latencies), outbox: map[string]Alert{},
		wake: make(chan struct{}, 1), results: make(chan delivery, 64), cancel: cancel}
	r.wg.Add(1)
	go r.evaluate(ctx)
	if opts.Webhook != nil {
		r.wg.Add(1)
		go r.send(ctx)
	}
	return r
}

// Stop stops both goroutines and waits for them; an alert being posted is
// given up (the receiver's timeout bounds that wait).
func (r *Runner) Stop() {
	r.cancel()
	r.wg.Wait()
}

// Rules are the rules in force.
func (r *Runner) Rules() []config.AlertRule { return r.engine.Rules() }

func (r *Runner) evaluate(ctx context.Context) {
	defer r.wg.Done()
	tick := time.NewTicker(r.opts.Interval)
	defer tick.Stop()
	window := r.longestWindow()
	r.once()
	for {
		select {
		case <-ctx.Done():
			return
		case d := <-r.results:
			r.delivered(d)
		case <-tick.C:
			now := r.opts.Now()
			r.opts.Latencies.Prune(now.Add(-window))
			r.once()
		}
	}
}

// once runs one evaluation and queues what is due.
func (r *Runner) once() {
	// Outcomes that arrived since the last evaluation first, so a
	// delivered alert is not queued again.
	for drained := false; !drained; {
		select {
		case d := <-r.results:
			r.delivered(d)
		default:
			drained = true
		}
	}
	now := r.opts.Now()
	res := r.engine.Evaluate(now, r.opts.Servers())
	r.engine.Forget(now, keepUndelivered)
	for _, a := range res.Changed {
		if r.opts.OnChange != nil {
			r.opts.OnChange(a)
		}
	}
	if r.opts.Webhook == nil {
		for _, a := range res.Due {
			r.engine.Delivered(a, now) // nowhere to deliver: nothing is owed
		}
		return
	}
	r.mu.Lock()
	for _, a := range res.Due {
		if _, queued := r.outbox[a.Fingerprint]; !queued {
			r.order = append(r.order, a.Fingerprint)
		}
		r.outbox[a.Fingerprint] = a
	}
	r.mu.Unlock()
	if len(res.Due) > 0 {
		select {
		case r.wake <- struct{}{}:
		default:
		}
	}
}

func (r *Runner) delivered(d delivery) {
	if d.err == nil {
		r.engine.Delivered(d.alert, d.at)
	}
}

// send posts the outbox's alerts one at a time, in the order they were
// queued. A failed delivery is not retried here: the alert stays due and
// the next evaluation queues it again, so retries follow the evaluation
// interval.
func (r *Runner) send(ctx context.Context) {
	defer r.wg.Done()
	var failing bool
	// sent remembers each alert's last successful delivery: an alert
	// queued again while its delivery was under way (a receiver slower
	// than the evaluation interval) is not sent twice.
	sent := map[string]delivery{}
	for {
		r.mu.Lock()
		var a Alert
		ok := len(r.order) > 0
		if ok {
			fp := r.order[0]
			r.order = r.order[1:]
			a = r.outbox[fp]
			delete(r.outbox, fp)
		}
		r.mu.Unlock()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-r.wake:
				continue
			}
		}
		if last, ok := sent[a.Fingerprint]; ok && sameAlert(last.alert, a) && r.opts.Now().Sub(last.at) < r.engine.repeat/2 {
			continue
		}
		err := r.opts.Webhook.Send(ctx, a)
		if ctx.Err() != nil {
			return
		}
		now := r.opts.Now()
		if err == nil {
			sent[a.Fingerprint] = delivery{alert: a, at: now}
			for fp, d := range sent {
				if now.Sub(d.at) > r.engine.repeat {
					delete(sent, fp)
				}
			}
		}
		switch {
		case err != nil && !failing:
			r.opts.Logger.Warn("alert delivery failed; retrying at each evaluation until the receiver accepts",
				"alert", a.Labels[LabelAlertName], "server", a.Labels[LabelServer], "status", a.Status, "err", err)
			failing = true
		case err == nil && failing:
			r.opts.Logger.Info("alert delivery works again", "alert", a.Labels[LabelAlertName])
			failing = false
		}
		if r.opts.OnDelivery != nil {
			r.opts.OnDelivery(a, err)
		}
		select {
		case r.results <- delivery{alert: a, at: now, err: err}:
		case <-ctx.Done():
			return
		}
	}
}

// longestWindow is the longest latency window of the rules, how far back
// samples are kept.
func (r *Runner) longestWindow() time.Duration {
	w := time.Minute
	for _, rule := range r.engine.Rules() {
		w = max(w, rule.Window)
	}
	return w
}

// sameAlert reports whether two deliveries carry the same state of an alert.
func sameAlert(a, b Alert) bool {
	return a.Status == b.Status && a.StartsAt.Equal(b.StartsAt) && a.EndsAt.Equal(b.EndsAt)
}
