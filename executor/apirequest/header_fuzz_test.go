package apirequest

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// FuzzParsePreferences checks the Prefer parser: every recognised field
// holds a value the preference allows, the result is the same when the
// recognised preferences are written back and read again, and the only
// error is strict handling's 400 PGRST122 naming what was not understood.
func FuzzParsePreferences(f *testing.F) {
	for _, seed := range [][2]string{
		{"return=representation, count=exact", "tx=rollback"},
		{"handling=strict, foo=bar", ""},
		{"max-affected=5, missing=default", "resolution=merge-duplicates"},
		{" return = minimal ,, count=exact ", "timezone=Europe/Paris"},
		{"max-affected=-1, tx=bogus, tx=commit", "params=single-object, handling=lenient"},
		{"=,=x,x=", "max-affected=99999999999999999999"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, h1, h2 string) {
		p, err := ParsePreferences([]string{h1, h2})
		for name, v := range map[string]string{"return": p.Return, "count": p.Count, "resolution": p.Resolution,
			"missing": p.Missing, "handling": p.Handling, "tx": p.Tx} {
			if v != "" && !slices.Contains(allowedValues[name], v) {
				t.Fatalf("%q %q: %s=%q is not an allowed value", h1, h2, name, v)
			}
		}
		if p.MaxAffected != nil && *p.MaxAffected < 0 {
			t.Fatalf("%q %q: max-affected %d", h1, h2, *p.MaxAffected)
		}
		strictRefusal := p.Handling == "strict" && len(p.Invalid) > 0
		if (err != nil) != strictRefusal {
			t.Fatalf("%q %q: error %v with handling %q and invalid %q", h1, h2, err, p.Handling, p.Invalid)
		}
		if err != nil && (err.Code != "PGRST122" || err.Status != 400 ||
			err.Details != "Invalid preferences: "+strings.Join(p.Invalid, ", ")) {
			t.Fatalf("%q %q: unexpected error %+v", h1, h2, err)
		}

		again, _ := ParsePreferences([]string{renderPreferences(p)})
		p.Invalid, again.Invalid = nil, nil
		if !reflect.DeepEqual(p, again) {
			t.Fatalf("%q %q: read %+v, written back and read again %+v", h1, h2, p, again)
		}
	})
}

// renderPreferences writes the recognised preferences as one Prefer value.
func renderPreferences(p Preferences) string {
	var parts []string
	add := func(name, v string) {
		if v != "" {
			parts = append(parts, name+"="+v)
		}
	}
	add("return", p.Return)
	add("count", p.Count)
	add("resolution", p.Resolution)
	add("missing", p.Missing)
	add("handling", p.Handling)
	add("tx", p.Tx)
	add("timezone", p.Timezone)
	if p.MaxAffected != nil {
		add("max-affected", strconv.FormatInt(*p.MaxAffected, 10))
	}
	return strings.Join(parts, ", ")
}

// rangeHeaderForm is the only form of Range header pgrest reads.
var rangeHeaderForm = regexp.MustCompile(`^[0-9]+-[0-9]*$`)

// FuzzRange checks the Range header and the root limit and offset: a
// header is read exactly when it has the form first-[last], with a
// non-negative offset; the window RootRange picks lies inside both the
// header's and the query's, with a limit that is nil or not negative;
// and its only error is 416 PGRST103.
func FuzzRange(f *testing.F) {
	for _, seed := range []struct {
		header, limit, offset string
	}{
		{"0-9", "", ""}, {"10-", "5", "2"}, {"5-4", "", ""}, {"0-0", "0", ""}, {"", "-1", ""},
		{"99999999999999999999-", "", "3"}, {"1-2", "0x10", "( - 1 )"}, {"items=0-9", "3", ""},
	} {
		f.Add(seed.header, seed.limit, seed.offset)
	}
	f.Fuzz(func(t *testing.T, header, limit, offset string) {
		off, lim, ok := ParseRangeHeader(header)
		if ok != rangeHeaderForm.MatchString(header) {
			t.Fatalf("Range %q: read %v", header, ok)
		}
		if ok && off < 0 {
			t.Fatalf("Range %q: offset %d", header, off)
		}
		if !ok && (off != 0 || lim != nil) {
			t.Fatalf("Range %q: unread yet offset %d limit %v", header, off, lim)
		}

		ranges := map[string]Range{}
		var query Range
		if n, ok := readInteger(limit); ok && limit != "" {
			query.Limit = &n
		}
		if n, ok := readInteger(offset); ok && offset != "" {
			query.Offset = n
		}
		ranges[""] = query
		r, err := RootRange(header, ranges)
		if err != nil {
			if err.Code != "PGRST103" || err.Status != 416 {
				t.Fatalf("%q %q %q: unexpected error %+v", header, limit, offset, err)
			}
			return
		}
		if r.Limit != nil && *r.Limit < 0 {
			t.Fatalf("%q %q %q: limit %d", header, limit, offset, *r.Limit)
		}
		if r.Limit != nil && *r.Limit == 0 {
			return // limit=0 is the empty window wherever it starts
		}
		if query.Offset >= 0 && r.Offset < 0 {
			t.Fatalf("%q %q %q: offset %d", header, limit, offset, r.Offset)
		}
		if r.Offset < query.Offset || (ok && r.Offset < off) {
			t.Fatalf("%q %q %q: window starts at %d, before a window it intersects", header, limit, offset, r.Offset)
		}
	})
}

// FuzzNegotiate checks Accept negotiation: the same header always picks
// the same representation, which is one of those offered, and the only
// error is 406 PGRST107.
func FuzzNegotiate(f *testing.F) {
	for _, seed := range []string{
		"", "*/*", "application/json", "text/csv;q=0.5, application/json;q=0.9",
		"application/vnd.pgrst.object+json;nulls=stripped", "application/xml", "text/*;q=0",
		"application/*;q=NaN, text/csv", ";;;,,a/b;q=1e999", "APPLICATION/JSON; charset=utf-8",
	} {
		f.Add(seed)
	}
	offers := [][]MediaType{
		{MediaJSON, MediaSingleObject, MediaCSV},
		{MediaOpenAPI, MediaJSON},
		{MediaCSV},
	}
	f.Fuzz(func(t *testing.T, accept string) {
		for _, offered := range offers {
			rep, err := Negotiate(accept, offered)
			rep2, err2 := Negotiate(accept, offered)
			if rep != rep2 || (err == nil) != (err2 == nil) {
				t.Fatalf("%q: %+v %v, then %+v %v", accept, rep, err, rep2, err2)
			}
			if err != nil {
				if err.Code != "PGRST107" || err.Status != 406 {
					t.Fatalf("%q: unexpected error %+v", accept, err)
				}
				continue
			}
			if !slices.Contains(offered, rep.Media) {
				t.Fatalf("%q: picked %v, not among %v", accept, rep.Media, offered)
			}
		}
	})
}
