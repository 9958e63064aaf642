package suite

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// JUnit XML, as CI systems read it (Jenkins, GitLab, GitHub Actions
// reporters, CircleCI, Azure Pipelines): <testsuites> holding one
// <testsuite> per run of a suite (suite × protocol), one <testcase> per
// step, with <failure message type> for an expectation the server did not
// meet, <error> for a step that could not be judged and <skipped> for one
// that did not run. A run whose server did not connect has one more
// testcase, "connect", with the <error>. Only the attributes the common
// JUnit schema (Jenkins xunit's junit-10.xsd) allows are written;
// encoding/xml replaces characters XML cannot carry (a server's control
// characters) with U+FFFD, so the report stays readable.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr"`
	ID         int             `xml:"id,attr"`
	File       string          `xml:"file,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// WriteJUnit writes the runs as one JUnit XML document.
func WriteJUnit(w io.Writer, results []*Result, total time.Duration) error {
	doc := junitSuites{Name: "mcpdeck test", Time: seconds(total)}
	for i, r := range results {
		js := junitSuite{Name: r.Name(), Time: seconds(r.Duration), Timestamp: r.Started.UTC().Format("2006-01-02T15:04:05"),
			ID: i, File: r.File}
		js.Properties = append(js.Properties, junitProperty{"server", r.Server})
		if r.Protocol != "" {
			js.Properties = append(js.Properties, junitProperty{"protocol", r.Protocol})
		}
		if r.Era != "" {
			js.Properties = append(js.Properties, junitProperty{"era", r.Era}, junitProperty{"protocolVersion", r.Version})
		}
		if r.ConnectFailed {
			js.Cases = append(js.Cases, junitCase{Name: "connect", Classname: r.Name(), Time: "0.000",
				Error: &junitProblem{Message: firstLine(r.Error), Type: "connection", Text: r.Error}})
			js.Errors++
		}
		for _, s := range r.Steps {
			c := junitCase{Name: s.Key + ": " + s.Label, Classname: r.Name(), Time: seconds(s.Duration)}
			switch s.Status {
			case Failed:
				c.Failure = failureOf(s)
				js.Failures++
			case Errored:
				c.Error = &junitProblem{Message: firstLine(s.Error), Type: "error", Text: s.Pos + ": " + s.Error}
				js.Errors++
			case Skipped:
				c.Skipped = &junitProblem{Message: firstLine(s.Error)}
				js.Skipped++
			}
			js.Cases = append(js.Cases, c)
		}
		js.Tests = len(js.Cases)
		doc.Tests += js.Tests
		doc.Failures += js.Failures
		doc.Errors += js.Errors
		doc.Suites = append(doc.Suites, js)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteJUnitFile writes the JUnit document to path, atomically.
func WriteJUnitFile(path string, results []*Result, total time.Duration) error {
	var b strings.Builder
	if err := WriteJUnit(&b, results, total); err != nil {
		return err
	}
	if err := writeAtomic(path, []byte(b.String())); err != nil {
		return fmt.Errorf("writing the JUnit report: %w", err)
	}
	return nil
}

func failureOf(s StepResult) *junitProblem {
	var msgs []string
	var text strings.Builder
	fmt.Fprintf(&text, "%s\n", s.Pos)
	for _, f := range s.Failures {
		msgs = append(msgs, f.Headline())
		text.WriteString(f.Text())
		text.WriteString("\n")
	}
	typ := "expectation"
	if len(s.Failures) > 0 {
		typ = s.Failures[0].Expectation
	}
	return &junitProblem{Message: strings.Join(msgs, "; "), Type: typ, Text: strings.TrimRight(text.String(), "\n")}
}

// Headline is a failure in one line: the expectation, its path, what
// happened.
func (f Failure) Headline() string {
	s := f.Expectation
	if f.Path != "" {
		s += " " + f.Path
	}
	return s + ": " + firstLine(f.Message)
}

// Text is a failure in full, for a report: the headline, where the
// expectation is written, the expected and actual values, and the diff.
func (f Failure) Text() string {
	var b strings.Builder
	b.WriteString(f.Expectation)
	if f.Path != "" {
		b.WriteString(" " + f.Path)
	}
	if f.Pos != "" {
		b.WriteString(" (" + f.Pos + ")")
	}
	b.WriteString(": " + f.Message + "\n")
	if f.Expected != "" {
		b.WriteString("  expected: " + f.Expected + "\n")
	}
	if f.Actual != "" {
		b.WriteString("  actual:   " + f.Actual + "\n")
	}
	if f.Diff != "" {
		for _, line := range strings.Split(f.Diff, "\n") {
			b.WriteString("  " + line + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
