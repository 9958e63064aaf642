package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"mcpdeck/runtime"
)

// samplingFlag is --sampling: how a headless command answers a server's
// sampling/createMessage, which the TUI shows a person instead.
const samplingFlag = "sampling"

// addSamplingFlag adds --sampling to a command whose requests a server may
// answer with a sampling request; def is its default ("" declares no
// sampling).
func addSamplingFlag(cmd *cobra.Command, def string) {
	usage := "answer the servers' sampling requests: decline, or `FILE` (a canned reply: its text, or a whole CreateMessageResult when it is JSON); unset, sampling is not offered"
	if def != "" {
		usage = "answer the servers' sampling requests the client that caused them cannot: decline, or `FILE` (a canned reply: its text, or a whole CreateMessageResult when it is JSON)"
	}
	cmd.Flags().String(samplingFlag, def, usage)
}

// samplerFlag reads --sampling: nil when it is not set (sampling is then
// not declared), DeclineSampler for "decline", else the canned reply of
// the file, read and checked now so a mistake costs nothing. What it
// answers is said on stderr: the server only hears the answer.
func samplerFlag(cmd *cobra.Command) (runtime.Sampler, error) {
	s, err := plainSamplerFlag(cmd)
	if s == nil || err != nil {
		return s, err
	}
	return reportSampling{s, cmd.ErrOrStderr(), tuiAdvice(cmd)}, nil
}

// plainSamplerFlag is samplerFlag without the words on stderr, for the
// gateway, which logs every decision in its own.
func plainSamplerFlag(cmd *cobra.Command) (runtime.Sampler, error) {
	f := cmd.Flags().Lookup(samplingFlag)
	if f == nil || f.Value.String() == "" {
		return nil, nil
	}
	var s runtime.Sampler
	switch mode := f.Value.String(); mode {
	case "decline":
		s = runtime.DeclineSampler{}
	default:
		canned, err := runtime.ReadCannedReply(mode)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--sampling %q: %w (give decline, or a file with the reply; a file named decline is ./decline)", mode, err))
		}
		s = canned
	}
	return s, nil
}

// reportSampling says on stderr how each sampling request was answered.
type reportSampling struct {
	runtime.Sampler
	w      io.Writer
	advice string // tuiAdvice
}

func (r reportSampling) Sample(ctx context.Context, req runtime.SampleRequest) (runtime.SampleResponse, error) {
	resp, err := r.Sampler.Sample(ctx, req)
	switch {
	case err != nil:
	case resp.Declined:
		warnf(r.w, "declined %s's sampling request (%s); give --sampling FILE with a reply, or %s", req.Server, resp.By, r.advice)
	default:
		warnf(r.w, "answered %s's sampling request with the canned reply (%s)", req.Server, resp.By)
	}
	return resp, err
}
