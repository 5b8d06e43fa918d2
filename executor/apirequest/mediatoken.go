package apirequest

import "strings"

// tokenizeMediaType reads a media type as PostgREST's tokenizeMediaType
// does, leniently where mime.ParseMediaType is strict: type/subtype, then
// as many "; key=value" parameters as parse; whatever follows is ignored
// ("application/json; $$ unrecognized-chars=ignored $$" is JSON). Type,
// subtype and parameter names are lower-cased; ok is false when even
// type/subtype does not parse.
func tokenizeMediaType(s string) (typ string, params map[string]string, ok bool) {
	main := prefixLen(s, isMediaTypeChar(".*"))
	if main == 0 || main == len(s) || s[main] != '/' {
		return "", nil, false
	}
	sub := prefixLen(s[main+1:], isMediaTypeChar(".*+-"))
	if sub == 0 {
		return "", nil, false
	}
	typ = strings.ToLower(s[:main+1+sub])
	params = map[string]string{}
	rest := s[main+1+sub:]
	for {
		k, v, after, found := mediaTypeParam(rest)
		if !found {
			return typ, params, true
		}
		params[strings.ToLower(k)] = v
		rest = after
	}
}

// mediaTypeParam reads one `; key=value` (spaces allowed around ';' and
// '=', the value quoted or made of letters, digits, '|' and '-') from the
// start of s.
func mediaTypeParam(s string) (key, value, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	if !strings.HasPrefix(s, ";") {
		return "", "", "", false
	}
	s = strings.TrimLeft(s[1:], " \t")
	n := prefixLen(s, isMediaTypeChar("-"))
	if n == 0 {
		return "", "", "", false
	}
	key, s = s[:n], strings.TrimLeft(s[n:], " \t")
	if !strings.HasPrefix(s, "=") {
		return "", "", "", false
	}
	s = strings.TrimLeft(s[1:], " \t")
	if strings.HasPrefix(s, `"`) {
		end := strings.IndexByte(s[1:], '"')
		if end < 0 {
			return "", "", "", false
		}
		return key, s[1 : 1+end], s[2+end:], true
	}
	n = prefixLen(s, isMediaTypeChar("|-"))
	if n == 0 {
		return "", "", "", false
	}
	return key, s[:n], s[n:], true
}

// isMediaTypeChar accepts ASCII letters and digits and the extra bytes.
func isMediaTypeChar(extra string) func(byte) bool {
	return func(c byte) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(extra, c) >= 0
	}
}

// prefixLen is the length of the longest prefix of s whose bytes ok accepts.
func prefixLen(s string, ok func(byte) bool) int {
	i := 0
	for i < len(s) && ok(s[i]) {
		i++
	}
	return i
}
