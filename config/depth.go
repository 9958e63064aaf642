package config

// maxNesting bounds how deeply objects and arrays may nest in a
// configuration file. A real mcp.json nests five levels at most (file,
// servers, server, env or autoReconnect, value); the JSONC parser recurses
// once per level with no limit of its own, so a hostile project file of a
// million "[" would overflow the stack before anyone was asked to approve it.
const maxNesting = 64

// nestingTooDeep scans JSONC (strings, comments and all) without recursion
// and returns the offset of the first "[" or "{" that opens level
// maxNesting+1, or -1 when the data stays within the bound. Malformed input
// is not its business: the parser reports it afterwards.
func nestingTooDeep(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '"':
			// Skip the string, honouring backslash escapes.
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '/':
			if i+1 >= len(data) {
				continue
			}
			switch data[i+1] {
			case '/':
				for i += 2; i < len(data) && data[i] != '\n'; i++ {
				}
			case '*':
				for i += 2; i+1 < len(data) && !(data[i] == '*' && data[i+1] == '/'); i++ {
				}
				i++
			}
		case '[', '{':
			depth++
			if depth > maxNesting {
				return i
			}
		case ']', '}':
			depth--
		}
	}
	return -1
}
