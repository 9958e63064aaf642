package suite

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// junitElement is what the common JUnit schema (Jenkins xunit's
// junit-10.xsd, which Jenkins, GitLab and most CI reporters accept)
// allows an element: its attributes (required ones marked) and children.
type junitElement struct {
	required, optional []string
	children           []string
	text               bool
}

var junitSchema = map[string]junitElement{
	"testsuites": {optional: []string{"name", "time", "tests", "failures", "errors"}, children: []string{"testsuite"}},
	"testsuite": {required: []string{"name", "tests", "failures", "errors"},
		optional: []string{"group", "time", "skipped", "timestamp", "hostname", "id", "package", "file", "log", "url"},
		children: []string{"testsuite", "properties", "testcase", "system-out", "system-err"}},
	"properties": {children: []string{"property"}},
	"property":   {required: []string{"name", "value"}},
	"testcase": {required: []string{"name"}, optional: []string{"time", "classname", "group"},
		children: []string{"skipped", "error", "failure", "system-out", "system-err"}},
	"failure":    {optional: []string{"type", "message"}, text: true},
	"error":      {optional: []string{"type", "message"}, text: true},
	"skipped":    {optional: []string{"type", "message"}, text: true},
	"system-out": {text: true},
	"system-err": {text: true},
}

// surefireTime is the schema's pattern for time attributes.
var surefireTime = regexp.MustCompile(`^(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?$`)

// validateJUnit checks a document against the schema's structure, and
// that every count attribute is the count of what it counts.
func validateJUnit(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	type open struct {
		name   string
		counts map[string]int
		attrs  map[string]string
	}
	var stack []*open
	root := ""
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			name := t.Name.Local
			el, ok := junitSchema[name]
			if !ok {
				return fmt.Errorf("element <%s> is not in the schema", name)
			}
			if len(stack) == 0 {
				if name != "testsuites" && name != "testsuite" {
					return fmt.Errorf("root element <%s>", name)
				}
				root = name
			} else if parent := stack[len(stack)-1]; !slices.Contains(junitSchema[parent.name].children, name) {
				return fmt.Errorf("<%s> may not hold <%s>", parent.name, name)
			} else {
				parent.counts[name]++
			}
			attrs := map[string]string{}
			for _, a := range t.Attr {
				if !slices.Contains(el.required, a.Name.Local) && !slices.Contains(el.optional, a.Name.Local) {
					return fmt.Errorf("<%s> has attribute %q, which the schema does not allow", name, a.Name.Local)
				}
				attrs[a.Name.Local] = a.Value
			}
			for _, r := range el.required {
				if _, ok := attrs[r]; !ok {
					return fmt.Errorf("<%s> lacks the required attribute %q", name, r)
				}
			}
			if tm, ok := attrs["time"]; ok && (name == "testsuite" || name == "testsuites") && !surefireTime.MatchString(tm) {
				return fmt.Errorf("<%s time=%q> does not match the schema's time pattern", name, tm)
			}
			stack = append(stack, &open{name: name, counts: map[string]int{}, attrs: attrs})
		case xml.CharData:
			if len(stack) > 0 && !junitSchema[stack[len(stack)-1].name].text && strings.TrimSpace(string(t)) != "" {
				return fmt.Errorf("<%s> holds text", stack[len(stack)-1].name)
			}
		case xml.EndElement:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.name == "testsuite" {
				for attr, child := range map[string]string{"tests": "testcase"} {
					if n, _ := strconv.Atoi(top.attrs[attr]); n != top.counts[child] {
						return fmt.Errorf("testsuite %q says %s=%d but holds %d <%s>", top.attrs["name"], attr, n, top.counts[child], child)
					}
				}
			}
			if top.name == "testcase" && len(stack) > 0 {
				suite := stack[len(stack)-1]
				for _, k := range []string{"failure", "error", "skipped"} {
					suite.counts["case-"+k] += min(top.counts[k], 1)
				}
			}
			if top.name == "testsuite" {
				for attr, k := range map[string]string{"failures": "failure", "errors": "error", "skipped": "skipped"} {
					if v, ok := top.attrs[attr]; ok {
						if n, _ := strconv.Atoi(v); n != top.counts["case-"+k] {
							return fmt.Errorf("testsuite %q says %s=%d but %d testcases have <%s>", top.attrs["name"], attr, n, top.counts["case-"+k], k)
						}
					}
				}
			}
		}
	}
	if root == "" {
		return errors.New("no root element")
	}
	return nil
}

func TestJUnitValidates(t *testing.T) {
	started := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	results := []*Result{
		{File: "mcp-tests/a.mcptest.yaml", Suite: "a", Server: "demo", Protocol: "legacy", Era: "legacy", Version: "2025-11-25",
			Started: started, Duration: 1500 * time.Millisecond, Steps: []StepResult{
				{Key: "echo", Label: "call echo", Kind: KindCall, Pos: "a:3:5", Status: Passed, Duration: 2 * time.Millisecond},
				{Key: "add", Label: "call add", Kind: KindCall, Pos: "a:9:5", Status: Failed, Duration: time.Millisecond, Failures: []Failure{
					{Expectation: "equals", Path: "$.structuredContent.sum", Message: "differs", Expected: "5", Actual: "6", Pos: "a:12:9"},
					{Expectation: "snapshot", Message: "the result differs", Diff: "--- snapshot\n+++ live\n-a\n+b"}}},
				{Key: "gone", Label: "read x", Kind: KindRead, Status: Errored, Error: "the connection was lost\x01 <&>"},
				{Key: "after", Label: "read y", Kind: KindRead, Status: Skipped, Error: "the connection was lost"},
			}},
		{File: "mcp-tests/b.mcptest.yaml", Suite: "b", Server: "remote", Started: started, ConnectFailed: true,
			Error: "server \"remote\" is failed: connection refused", Steps: []StepResult{
				{Key: "step-1", Label: "list tools", Kind: KindList, Status: Skipped, Error: "server \"remote\" is failed"}}},
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, results, 2*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := validateJUnit(buf.Bytes()); err != nil {
		t.Fatalf("the report does not validate: %v\n%s", err, buf.String())
	}
	// What a CI system shows: read back with a plain decoder.
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
				Error *struct {
					Message string `xml:"message,attr"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 6 || doc.Failures != 1 || doc.Errors != 2 || len(doc.Suites) != 2 {
		t.Errorf("totals: tests %d failures %d errors %d suites %d; want 6, 1, 2, 2", doc.Tests, doc.Failures, doc.Errors, len(doc.Suites))
	}
	if doc.Suites[0].Name != "a [legacy]" {
		t.Errorf("suite name %q", doc.Suites[0].Name)
	}
	f := doc.Suites[0].Cases[1].Failure
	if f == nil || f.Type != "equals" || f.Message != "equals $.structuredContent.sum: differs; snapshot: the result differs" ||
		!strings.Contains(f.Text, "expected: 5") || !strings.Contains(f.Text, "+++ live") {
		t.Errorf("failure = %+v", f)
	}
	if e := doc.Suites[0].Cases[2].Error; e == nil || e.Message != "the connection was lost\uFFFD <&>" {
		t.Errorf("error = %+v, want the control character replaced and the rest kept", e)
	}
	if c := doc.Suites[1].Cases[0]; c.Name != "connect" || c.Error == nil {
		t.Errorf("a run that could not connect: first case %+v", c)
	}
}

// TestJUnitValidatorRejects proves the validator can fail.
func TestJUnitValidatorRejects(t *testing.T) {
	for _, bad := range []string{
		`<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="x" file="y"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="2" failures="0" errors="0"><testcase name="x"/></testsuite></testsuites>`,
		`<testsuites><testsuite name="a" tests="1" failures="1" errors="0"><testcase name="x"/></testsuite></testsuites>`,
		`<testsuites><testsuite tests="0" failures="0" errors="0"/></testsuites>`,
		`<testsuites><testcase name="x"/></testsuites>`,
		`<testsuites time="1e3"/>`,
	} {
		if err := validateJUnit([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}
