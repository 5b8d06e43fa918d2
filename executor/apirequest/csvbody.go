package apirequest

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

// csvPayload reads a text/csv body as PostgREST does, which reads it with
// Haskell's cassava (decodeByName): a header line, then records, each
// turned into an object by pairing the header's names with the record's
// fields. A record shorter than the header lacks the names past its end,
// one longer loses its extra fields, a repeated name takes its last field,
// and an empty line is skipped. Every row must then have the first row's
// names ("All lines must have same number of fields"). A field NULL is
// null. A body cassava cannot parse is its "parse error (...) at ..."
// message. Each record is written as a JSON object as soon as it is read.
func csvPayload(body []byte) (*Payload, *apierr.Error) {
	c := &csvScanner{in: body}
	header, perr := c.header()
	if perr != nil {
		return nil, perr
	}
	out := bytes.NewBuffer(make([]byte, 0, len(body)+len(body)/2+2))
	out.WriteByte('[')
	p := &Payload{}
	var want map[string]bool
	for {
		rec, done, perr := c.record()
		if perr != nil {
			return nil, perr
		}
		if done {
			break
		}
		n := min(len(rec), len(header))
		last := make(map[string]int, n)
		for i := range n {
			last[header[i]] = i
		}
		if p.Count == 0 {
			want = make(map[string]bool, len(last))
			for i := range n {
				if k := header[i]; !want[k] {
					want[k] = true
					p.Keys = append(p.Keys, k)
				}
			}
		} else if len(last) != len(want) || !sameKeys(last, want) {
			return nil, apierr.InvalidBody("All lines must have same number of fields")
		}
		start := out.Len()
		if p.Count > 0 {
			out.WriteByte(',')
			start++
		}
		out.WriteByte('{')
		for i, k := range p.Keys {
			if i > 0 {
				out.WriteByte(',')
			}
			writeJSONString(out, k)
			out.WriteByte(':')
			if v := rec[last[k]]; string(v) == "NULL" {
				out.WriteString("null")
			} else {
				writeJSONString(out, strings.ToValidUTF8(string(v), "\uFFFD"))
			}
		}
		out.WriteByte('}')
		if p.Count == 0 {
			p.First = bytes.Clone(out.Bytes()[start:])
		}
		p.Count++
	}
	out.WriteByte(']')
	p.Rows = out.Bytes()
	return p, nil
}

func sameKeys(got map[string]int, want map[string]bool) bool {
	for k := range got {
		if !want[k] {
			return false
		}
	}
	return true
}

// csvScanner follows cassava's CSV grammar over a body: fields separated
// by commas; records ended by \n, \r\n or \r; a field starting with a
// double quote runs to the next quote not doubled, others stop at a
// quote, a comma or a line end.
type csvScanner struct {
	in  []byte
	pos int
}

// header reads the header line, which must end with a line end.
func (c *csvScanner) header() ([]string, *apierr.Error) {
	fields, perr := c.fields()
	if perr != nil {
		return nil, perr
	}
	if !c.endOfLine() {
		return nil, c.fail()
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = strings.ToValidUTF8(string(f), "\uFFFD")
	}
	return names, nil
}

// record reads the next record, skipping empty lines; done is true at the
// end of the body.
func (c *csvScanner) record() (rec [][]byte, done bool, perr *apierr.Error) {
	for {
		if c.pos == len(c.in) {
			return nil, true, nil
		}
		if rec, perr = c.fields(); perr != nil {
			return nil, false, perr
		}
		blank := len(rec) == 1 && len(rec[0]) == 0
		if c.pos < len(c.in) && !c.endOfLine() {
			return nil, false, c.fail()
		}
		if !blank {
			return rec, false, nil
		}
	}
}

// fields reads the fields of one line, up to its end (not consumed).
func (c *csvScanner) fields() ([][]byte, *apierr.Error) {
	var fields [][]byte
	for {
		f, perr := c.field()
		if perr != nil {
			return nil, perr
		}
		fields = append(fields, f)
		if c.pos < len(c.in) && c.in[c.pos] == ',' {
			c.pos++
			continue
		}
		return fields, nil
	}
}

func (c *csvScanner) field() ([]byte, *apierr.Error) {
	if c.pos < len(c.in) && c.in[c.pos] == '"' {
		return c.quoted()
	}
	start := c.pos
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case '"', ',', '\n', '\r':
			return c.in[start:c.pos], nil
		}
		c.pos++
	}
	return c.in[start:], nil
}

// quoted reads a quoted field as cassava does: the text up to a quote
// that is not doubled (or the end of the body, whose last character is
// then dropped as if it were the closing quote), doubled quotes undone.
func (c *csvScanner) quoted() ([]byte, *apierr.Error) {
	c.pos++ // the opening quote
	start, afterQuote := c.pos, false
	for c.pos < len(c.in) {
		if c.in[c.pos] == '"' {
			afterQuote = !afterQuote
		} else if afterQuote {
			break
		}
		c.pos++
	}
	raw := c.in[start:c.pos]
	if len(raw) > 0 {
		raw = raw[:len(raw)-1]
	}
	if !bytes.Contains(raw, []byte{'"'}) {
		return raw, nil
	}
	var f []byte
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '"')
		if i < 0 {
			f = append(f, raw...)
			break
		}
		if i+1 >= len(raw) || raw[i+1] != '"' {
			return nil, csvParseError("Failed reading: invalid CSV escape sequence", c.in[c.pos:])
		}
		f = append(append(f, raw[:i]...), '"')
		raw = raw[i+2:]
	}
	return f, nil
}

// endOfLine consumes a line end: \n, \r\n or \r.
func (c *csvScanner) endOfLine() bool {
	switch {
	case c.pos < len(c.in) && c.in[c.pos] == '\n':
		c.pos++
	case c.pos+1 < len(c.in) && c.in[c.pos] == '\r' && c.in[c.pos+1] == '\n':
		c.pos += 2
	case c.pos < len(c.in) && c.in[c.pos] == '\r':
		c.pos++
	default:
		return false
	}
	return true
}

// fail is cassava's error where a line end was due: at the end of the
// body it needed more input, elsewhere a character was not one.
func (c *csvScanner) fail() *apierr.Error {
	if c.pos == len(c.in) {
		return csvParseError("not enough input", nil)
	}
	return csvParseError("Failed reading: satisfy", c.in[c.pos:])
}

// csvParseError is cassava's message for a body it cannot parse: the
// parser's message and the rest of the body, shown as a Haskell string,
// or its first 100 bytes as they are when it is longer.
func csvParseError(msg string, rest []byte) *apierr.Error {
	var at string
	if len(rest) > 100 {
		var b strings.Builder
		for _, c := range rest[:100] {
			b.WriteRune(rune(c)) // each byte a character, as BL8.unpack has it
		}
		at = b.String() + " (truncated)"
	} else {
		at = haskellShow(rest)
	}
	return apierr.InvalidBody("parse error (" + msg + ") at " + at)
}

// asciiControlNames are Haskell's names of the control characters.
var asciiControlNames = [...]string{"NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "a", "b", "t", "n", "v", "f", "r",
	"SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS", "RS", "US"}

// haskellShow renders bytes, each a character, as Haskell's show renders
// a String: in double quotes, with its escapes.
func haskellShow(s []byte) string {
	var b strings.Builder
	b.WriteByte('"')
	for i, c := range s {
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == '\\':
			b.WriteString(`\\`)
		case c >= 32 && c < 127:
			b.WriteByte(c)
		case c == 127:
			b.WriteString(`\DEL`)
		case c < 32:
			b.WriteString(`\` + asciiControlNames[c])
			if c == 14 && next == 'H' { // \SO followed by H would read as \SOH
				b.WriteString(`\&`)
			}
		default:
			b.WriteString(`\` + strconv.Itoa(int(c)))
			if next >= '0' && next <= '9' {
				b.WriteString(`\&`)
			}
		}
	}
	b.WriteByte('"')
	if !utf8.ValidString(b.String()) {
		return strings.ToValidUTF8(b.String(), "\uFFFD")
	}
	return b.String()
}
