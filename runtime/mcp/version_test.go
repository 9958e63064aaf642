package mcp

import (
	"errors"
	"slices"
	"testing"
)

func TestVersionsOneListNewestFirst(t *testing.T) {
	vs := Versions()
	if vs[0] != LatestModern || !slices.Contains(vs, LatestLegacy) {
		t.Fatalf("Versions() = %v, want %s first and %s in it", vs, LatestModern, LatestLegacy)
	}
	if !slices.IsSortedFunc(vs, func(a, b string) int { return -compare(a, b) }) {
		t.Errorf("Versions() = %v is not newest first", vs)
	}
	vs[0] = "mutated"
	if Versions()[0] != LatestModern {
		t.Error("Versions() hands out the package's own slice")
	}
	if got, want := ModernVersions(), []string{"2026-07-28"}; !slices.Equal(got, want) {
		t.Errorf("ModernVersions() = %v, want %v", got, want)
	}
	if got, want := LegacyVersions(), []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}; !slices.Equal(got, want) {
		t.Errorf("LegacyVersions() = %v, want %v", got, want)
	}
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestEraOf(t *testing.T) {
	for v, want := range map[string]Era{
		"2026-07-28": Modern, "2027-01-01": Modern, "2025-11-25": Legacy, "2024-11-05": Legacy,
		"": Unknown, "latest": Unknown, "2026-7-28": Unknown, "2026-07-2x": Unknown,
	} {
		if got := EraOf(v); got != want {
			t.Errorf("EraOf(%q) = %v, want %v", v, got, want)
		}
	}
	if Legacy.String() != "legacy" || Modern.String() != "modern" || Unknown.String() != "unknown" {
		t.Errorf("era names: %v %v %v", Legacy, Modern, Unknown)
	}
}

func TestMutual(t *testing.T) {
	if v, ok := Mutual(Versions(), []string{"2099-01-01", "2025-06-18", "2025-11-25"}); !ok || v != "2025-11-25" {
		t.Errorf("Mutual picked %q %v, want our preferred 2025-11-25", v, ok)
	}
	if _, ok := Mutual(ModernVersions(), []string{"2099-01-01"}); ok {
		t.Error("Mutual found a version where there is none")
	}
}

func TestParsePreference(t *testing.T) {
	cases := []struct {
		in     string
		mode   Mode
		offerM []string
		offerL []string
	}{
		{"", Auto, ModernVersions(), LegacyVersions()},
		{"auto", Auto, ModernVersions(), LegacyVersions()},
		{"Legacy", LegacyOnly, nil, LegacyVersions()},
		{"modern", ModernOnly, ModernVersions(), nil},
		{"2025-06-18", Pinned, nil, []string{"2025-06-18"}},
		{"2026-07-28", Pinned, []string{"2026-07-28"}, nil},
	}
	for _, c := range cases {
		p, err := ParsePreference(c.in)
		if err != nil || p.Mode != c.mode {
			t.Errorf("ParsePreference(%q) = %+v, %v; want mode %v", c.in, p, err, c.mode)
			continue
		}
		if got := p.Offer(Modern); !slices.Equal(got, c.offerM) {
			t.Errorf("%q: Offer(Modern) = %v, want %v", c.in, got, c.offerM)
		}
		if got := p.Offer(Legacy); !slices.Equal(got, c.offerL) {
			t.Errorf("%q: Offer(Legacy) = %v, want %v", c.in, got, c.offerL)
		}
		if p.Probes() != (len(c.offerM) > 0) || p.FallsBack() != (len(c.offerL) > 0) {
			t.Errorf("%q: Probes %v FallsBack %v", c.in, p.Probes(), p.FallsBack())
		}
		if again, err := ParsePreference(p.String()); err != nil || again != p {
			t.Errorf("%q: String() %q does not parse back (%+v, %v)", c.in, p.String(), again, err)
		}
	}
	for _, bad := range []string{"2099-01-01", "newest", "1.0"} {
		if _, err := ParsePreference(bad); !errors.Is(err, ErrBadPreference) {
			t.Errorf("ParsePreference(%q) error = %v, want ErrBadPreference", bad, err)
		}
	}
}
