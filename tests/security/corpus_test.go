package security

import (
	"bufio"
	"bytes"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// minPayloads is the fewest distinct payloads the corpus may hold: below it
// the test has lost most of its reach.
const minPayloads = 300

// breakers end whatever context a payload lands in (a string, a quoted
// identifier, a parenthesis, a dollar quote, a comment, a cast) so that a
// tail from sql_tails.txt after it would run as SQL.
var breakers = []string{"", "'", "\"", "')", "$$", "*/", `\'`, "title::text"}

// loadCorpus returns the distinct payloads: payloads.txt, every breaker
// followed by every tail of sql_tails.txt, long strings, and encoded forms
// of some, in that order.
func loadCorpus(t testing.TB) []string {
	t.Helper()
	base := readPayloadFile(t, "testdata/payloads.txt")
	tails := readPayloadFile(t, "testdata/sql_tails.txt")
	all := append([]string(nil), base...)
	for _, tail := range tails {
		for _, b := range breakers {
			all = append(all, b+tail)
		}
	}
	all = append(all, longPayloads()...)
	for _, tail := range tails[:5] {
		// Encoded once here and once more by the request: what a
		// decoder run twice would turn back into SQL.
		all = append(all, url.QueryEscape("'"+tail), url.PathEscape("\""+tail))
	}
	return distinct(all)
}

// longPayloads are strings of 10 kB and 100 kB, of quotes, backslashes,
// parentheses and select items, which stress buffers, parsers' recursion
// and PostgreSQL's limits (a target list holds at most 1,664 entries).
func longPayloads() []string {
	rep := func(s string, size int) string { return strings.Repeat(s, size/len(s)) }
	return []string{
		rep("a", 10_000),
		rep("a", 100_000),
		rep("'", 10_000),
		rep("'", 100_000),
		rep(`\`, 10_000),
		rep("\"", 10_000),
		rep("');--", 100_000),
		rep("\u2019", 10_000),
		rep("(", 10_000),
		rep("[", 10_000),
		rep("{", 10_000),
		rep("%27", 10_000),
		strings.TrimSuffix(rep("title,", 12_000), ","),
		strings.TrimSuffix(rep("or(", 3_000), "(") + strings.Repeat(")", 999),
		rep("x", 100_000) + "'; select private.trip(); --",
		"'" + rep("\x00", 10_000),
	}
}

func distinct(ps []string) []string {
	seen := make(map[string]bool, len(ps))
	out := ps[:0:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// readPayloadFile reads one payload a line (format in payloads.txt),
// failing t on a bad escape.
func readPayloadFile(t testing.TB, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, err := unescape(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// unescape decodes the escapes of payloads.txt.
func unescape(line string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(line) {
			return "", fmt.Errorf("a backslash ends the line")
		}
		i++
		switch line[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '0':
			b.WriteByte(0)
		case 's':
			b.WriteByte(' ')
		case '#':
			b.WriteByte('#')
		case 'x':
			v, err := hexAt(line, i+1, 2)
			if err != nil {
				return "", err
			}
			b.WriteByte(byte(v))
			i += 2
		case 'u':
			v, err := hexAt(line, i+1, 4)
			if err != nil {
				return "", err
			}
			writeCodePoint(&b, rune(v))
			i += 4
		default:
			return "", fmt.Errorf("unknown escape \\%c", line[i])
		}
	}
	return b.String(), nil
}

func hexAt(s string, at, n int) (uint64, error) {
	if at+n > len(s) {
		return 0, fmt.Errorf("escape needs %d hex digits", n)
	}
	return strconv.ParseUint(s[at:at+n], 16, 32)
}

// writeCodePoint writes r in UTF-8; a surrogate, which UTF-8 cannot hold,
// gets the three bytes its number would take (as CESU-8 and WTF-8 do).
func writeCodePoint(b *strings.Builder, r rune) {
	if r >= 0xD800 && r <= 0xDFFF {
		b.Write([]byte{0xE0 | byte(r>>12), 0x80 | byte(r>>6)&0x3F, 0x80 | byte(r)&0x3F})
		return
	}
	b.WriteRune(r)
}

func TestCorpusHoldsEnoughDistinctPayloads(t *testing.T) {
	ps := loadCorpus(t)
	if len(ps) < minPayloads {
		t.Fatalf("the corpus holds %d distinct payloads, want at least %d", len(ps), minPayloads)
	}
	var invalid, long int
	for _, p := range ps {
		if !utf8.ValidString(p) {
			invalid++
		}
		if len(p) >= 10_000 {
			long++
		}
	}
	// The classes the brief of this test names must stay in the corpus.
	for _, want := range []string{"\x00", "$$", "$tag$", "pg_sleep(5)", "set_config", "current_setting('app.jwt_secret')",
		"to program", "union select", "text array as x from", "E'\\\\'", "\u202e", "/*", "--", ";"} {
		found := false
		for _, p := range ps {
			if strings.Contains(p, want) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no payload holds %q", want)
		}
	}
	if invalid < 5 || long < 10 {
		t.Errorf("%d payloads are invalid UTF-8 and %d are 10 kB or longer; want at least 5 and 10", invalid, long)
	}
	t.Logf("%d distinct payloads, %d of them invalid UTF-8, %d of 10 kB or more", len(ps), invalid, long)
}
