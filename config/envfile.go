package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
)

// maxEnvFileSize bounds an envFile; a dotenv file is a few lines, and a huge
// one is almost certainly the wrong path.
const maxEnvFileSize = 1 << 20

// envFileKey accepts the keys dotenv tools accept.
var envFileKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// envFileProblem is a problem on one line of an envFile.
type envFileProblem struct {
	line    int
	message string
}

// readRegular reads a file mcpdeck is given by name (a configuration
// file, an envFile, a file to edit): at most limit bytes, and only a
// regular file, since a FIFO or a device named by mistake would block or
// never end. The size from Stat is not trusted: files under /proc report
// 0 and may be endless.
func readRegular(path string, limit int64) ([]byte, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, errors.New("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil, err
	}
	if int64(len(data)) > limit {
		return nil, nil, fmt.Errorf("larger than %d bytes", limit)
	}
	return data, info, nil
}

// parseEnvFile parses KEY=VALUE lines: blank lines and "#" comments are
// skipped, an "export " prefix is allowed, a value may be single-quoted
// (literal) or double-quoted (\n, \t, \" and \\ escapes), and an unquoted
// value ends at " #". Values are not expanded: VS Code reads them literally.
func parseEnvFile(data []byte) (map[string]string, []envFileProblem) {
	env := map[string]string{}
	var problems []envFileProblem
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxEnvFileSize+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(strings.TrimSuffix(sc.Text(), "\r"))
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		key, value, ok := strings.Cut(line, "=")
		key = strings.TrimSpace(key)
		if !ok {
			problems = append(problems, envFileProblem{n, fmt.Sprintf("line %q is not KEY=VALUE", line)})
			continue
		}
		if !envFileKey.MatchString(key) {
			problems = append(problems, envFileProblem{n, fmt.Sprintf("invalid variable name %q", key)})
			continue
		}
		v, err := envFileValue(strings.TrimSpace(value))
		if err != "" {
			problems = append(problems, envFileProblem{n, fmt.Sprintf("%s: %s", key, err)})
			continue
		}
		env[key] = v
	}
	if err := sc.Err(); err != nil {
		problems = append(problems, envFileProblem{0, err.Error()})
	}
	return env, problems
}

// envFileValue unquotes one value; it returns a problem message instead of
// an error because the caller attaches a position.
func envFileValue(v string) (string, string) {
	switch {
	case strings.HasPrefix(v, `'`):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", "unterminated single quote"
		}
		return v[1 : 1+end], ""
	case strings.HasPrefix(v, `"`):
		var b strings.Builder
		for i := 1; i < len(v); i++ {
			switch c := v[i]; {
			case c == '"':
				return b.String(), ""
			case c == '\\' && i+1 < len(v):
				i++
				switch v[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case 'r':
					b.WriteByte('\r')
				default:
					b.WriteByte(v[i])
				}
			default:
				b.WriteByte(c)
			}
		}
		return "", "unterminated double quote"
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = strings.TrimSpace(v[:i])
	}
	return v, ""
}
