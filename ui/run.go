package ui

import (
	"context"
	"errors"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"mcpdeck/ui/styles"
)

// framesPerSecond caps the renderer; the model coalesces event bursts to
// the same rate.
const framesPerSecond = 30

// Run runs the UI until the user quits or ctx ends, then makes sure the
// runtime is shut down: the model tears down on `q` with a visible status,
// and Run shuts down again (a no-op for a runtime already stopped) in case
// the program ended some other way. It returns ErrForcedQuit when a second
// ctrl+c cut teardown short.
func Run(ctx context.Context, opts Options) error {
	if opts.Runtime == nil {
		return ErrNoRuntime
	}
	styles.RespectNoColor()
	if opts.Context == nil {
		opts.Context = ctx
	}
	opts = opts.withDefaults()
	if opts.Clipboard == nil {
		opts.Clipboard, opts.defaultClipboard = terminalClipboard(opts.Output), true
	}
	m := newModel(opts)
	popts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithContext(ctx), tea.WithFPS(framesPerSecond)}
	if opts.Input != nil {
		popts = append(popts, tea.WithInput(opts.Input))
	}
	if opts.Output != nil {
		popts = append(popts, tea.WithOutput(opts.Output))
	}
	p := tea.NewProgram(m, popts...)
	detach := Attach(opts.Runtime, p.Send)
	if opts.Serving != nil && opts.Serving.Gateway != nil {
		defer AttachGateway(opts.Serving.Gateway, p.Send)()
	}
	if opts.LoginURLs != nil {
		defer opts.LoginURLs.Attach(p.Send)()
	}
	if opts.AppNotices != nil {
		defer opts.AppNotices.Attach(p.Send)()
	}
	final, runErr := p.Run()
	detach()

	var fm *Model
	forced := false
	if f, ok := final.(*Model); ok {
		fm, forced = f, f.forced
	}
	timeout := opts.ShutdownTimeout
	if forced {
		// The person asked to leave now; processes still die with us
		// (parent-death signal), so do not make them wait for a slow stop.
		timeout = min(timeout, forcedShutdownTimeout)
	}
	if fm != nil {
		fm.waitCheckEnd(timeout)
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	defer cancel()
	if opts.Serving != nil && opts.Serving.Gateway != nil {
		_ = opts.Serving.Gateway.Close(sctx) // clients before servers, as q does
	}
	shutErr := opts.Runtime.Shutdown(sctx)
	// A cancelled ctx or SIGINT ends the program like `q` does: not an error.
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, tea.ErrInterrupted) {
		return fmt.Errorf("running the terminal UI: %w", runErr)
	}
	if forced {
		return ErrForcedQuit
	}
	if shutErr != nil {
		return fmt.Errorf("stopping servers: %w", shutErr)
	}
	return nil
}

// NewModel returns the root model for opts. It reads the runtime's first
// snapshot but starts nothing: events arrive once Attach connects the
// program (Run does this; tests call Attach with TestModel.Send).
func NewModel(opts Options) tea.Model { return newModel(opts.withDefaults()) }
