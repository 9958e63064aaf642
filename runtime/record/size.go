package record

import (
	"fmt"
	"strconv"
	"strings"
)

// sizeUnits are the suffixes ParseSize accepts: SI (KB = 1000) and IEC
// (KiB = 1024); a bare K, M or G is binary, as in most tools' flags.
var sizeUnits = []struct {
	suffix string
	mult   float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30},
	{"b", 1},
}

// ParseSize reads a size such as 512KiB, 10MB, 1.5G or 1048576 (bytes).
func ParseSize(s string) (int64, error) {
	in := strings.ToLower(strings.TrimSpace(s))
	mult := 1.0
	for _, u := range sizeUnits {
		if strings.HasSuffix(in, u.suffix) {
			in, mult = strings.TrimSpace(strings.TrimSuffix(in, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseFloat(in, 64)
	if err != nil || n <= 0 || n*mult < 1 {
		return 0, fmt.Errorf("size %q: give a positive size such as 10MB, 512KiB or 1G", s)
	}
	return int64(n * mult), nil
}
