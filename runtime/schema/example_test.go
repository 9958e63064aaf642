package schema

import "testing"

func TestExampleOfRequiredAndDefaulted(t *testing.T) {
	schema := []byte(`{"type":"object","properties":{
		"name":{"type":"string"},
		"mode":{"type":"string","enum":["fast","safe"]},
		"count":{"type":"integer","default":3},
		"optional":{"type":"string"},
		"limits":{"type":"object","properties":{"cpu":{"type":"number"},"memory":{"type":"integer"}},"required":["memory"]},
		"tags":{"type":["array","null"],"items":{"type":"string"}},
		"flag":{"type":"boolean"}
	},"required":["name","mode","limits","tags","flag"]}`)
	want := `{
  "name": "",
  "mode": "fast",
  "count": 3,
  "limits": {
    "memory": 0
  },
  "tags": [],
  "flag": false
}`
	if got := string(Example(schema)); got != want {
		t.Errorf("Example =\n%s\nwant\n%s", got, want)
	}
	if got := string(Example([]byte(`{"type":"string"}`))); got != "{}" {
		t.Errorf("a non-object schema gives %s, want {}", got)
	}
	deep := `{"type":"object","required":["a"],"properties":{"a":`
	s := ""
	for range 50 {
		s += deep
	}
	s += `{"type":"string"}`
	for range 50 {
		s += "}}"
	}
	if got := Example([]byte(s)); len(got) == 0 || len(got) > 4000 {
		t.Errorf("a deep schema's example is %d bytes", len(got))
	}
}
