package auth

import (
	"context"
	"sync"
)

// flights runs one piece of slow work (a refresh, a login, a discovery)
// per key at a time, however many callers ask for it: the first caller
// starts it, later ones join it, and all get its one result. It is
// golang.org/x/sync/singleflight's DoChan with two changes that a login
// needs:
//   - the work runs on its own context, detached from the caller that
//     happened to start it, so that caller giving up does not fail the
//     others;
//   - each waiter selects on its own context and returns when that ends;
//     when the last waiter has left, the work's context is cancelled (a
//     browser login nobody waits for closes its listener at once), and a
//     caller that comes meanwhile starts afresh once that run has wound
//     down (a fixed redirect port is free again by then).
//
// No lock is held while the work runs: the mutex guards only the map.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
	// dying holds the abandoned run per key until its work has returned.
	dying map[string]*flight
	// changed, when set (by tests), is called after a flight starts, gains
	// or loses a waiter, or ends, so a test waits on events, not time.
	changed func()
}

func (f *flights) notify() {
	if f.changed != nil {
		f.changed()
	}
}

type flight struct {
	done    chan struct{} // closed when val and err are set
	val     any
	err     error
	waiters int
	cancel  context.CancelFunc
}

// do runs fn under key, or joins the run in progress, and returns its
// result or ctx's error when ctx ends first. fn's context carries ctx's
// values (not its deadline or cancellation).
func (f *flights) do(ctx context.Context, key string, fn func(context.Context) (any, error)) (any, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f.mu.Lock()
	if f.m == nil {
		f.m, f.dying = map[string]*flight{}, map[string]*flight{}
	}
	for f.m[key] == nil && f.dying[key] != nil {
		d := f.dying[key]
		f.mu.Unlock()
		select {
		case <-d.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		f.mu.Lock()
	}
	fl := f.m[key]
	if fl == nil {
		work, cancel := context.WithCancel(context.WithoutCancel(ctx))
		fl = &flight{done: make(chan struct{}), cancel: cancel}
		f.m[key] = fl
		go func() {
			defer cancel()
			val, err := fn(work)
			f.mu.Lock()
			if f.m[key] == fl {
				delete(f.m, key)
			}
			if f.dying[key] == fl {
				delete(f.dying, key)
			}
			fl.val, fl.err = val, err
			close(fl.done)
			f.mu.Unlock()
			f.notify()
		}()
	}
	fl.waiters++
	f.mu.Unlock()
	f.notify()

	select {
	case <-fl.done:
		return fl.val, fl.err
	case <-ctx.Done():
		f.mu.Lock()
		fl.waiters--
		if fl.waiters == 0 {
			// Nobody wants the result: stop the work, and let the next
			// caller start afresh rather than join a dying run.
			fl.cancel()
			if f.m[key] == fl {
				delete(f.m, key)
				f.dying[key] = fl
			}
		}
		f.mu.Unlock()
		f.notify()
		return nil, ctx.Err()
	}
}

// waiters counts the callers waiting for the work under key.
func (f *flights) waiters(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fl := f.m[key]; fl != nil {
		return fl.waiters
	}
	return 0
}

// running reports whether work under key is in progress, an abandoned
// run that has not yet returned included.
func (f *flights) running(key string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.m[key]
	_, dying := f.dying[key]
	return ok || dying
}
