package apirequest

import (
	"math"
	"strconv"
	"testing"

	apierr "github.com/pgrest/caddy-pgrest/errors"
)

func TestParseRangeHeader(t *testing.T) {
	tests := []struct {
		name, value string
		offset      int64
		limit       *int64
		ok          bool
	}{
		{"first-last is a closed window", "0-24", 0, lim(25), true},
		{"first- is open-ended", "10-", 10, nil, true},
		{"one item is first-first", "5-5", 5, lim(1), true},
		{"last below first gives a negative count", "5-3", 5, lim(-1), true},
		{"last just below first gives zero", "1-0", 1, lim(0), true},
		{"huge positions saturate", "99999999999999999999-", math.MaxInt64, nil, true},
		{"a unit prefix is not PostgREST's form", "items=0-24", 0, nil, false},
		{"a missing first position is not a range", "-24", 0, nil, false},
		{"negative positions are not a range", "0--1", 0, nil, false},
		{"spaces are not allowed", "0 - 24", 0, nil, false},
		{"several ranges are not understood", "0-1,3-4", 0, nil, false},
		{"an empty value is not a range", "", 0, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offset, limit, ok := ParseRangeHeader(tt.value)
			if ok != tt.ok || offset != tt.offset || !sameLimit(limit, tt.limit) {
				t.Errorf("ParseRangeHeader(%q) = %d, %s, %v; want %d, %s, %v", tt.value,
					offset, showLimit(limit), ok, tt.offset, showLimit(tt.limit), tt.ok)
			}
		})
	}
}

func sameLimit(a, b *int64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

func showLimit(l *int64) string {
	if l == nil {
		return "nil"
	}
	return strconv.FormatInt(*l, 10)
}

func TestRootRange(t *testing.T) {
	tests := []struct {
		name, header, query string
		want                Range
		details             string // PGRST103 details when an error is expected
	}{
		{"nothing requested selects every row", "", "", Range{}, ""},
		{"the header alone sets the window", "0-24", "", Range{Limit: lim(25)}, ""},
		{"an open header skips rows", "10-", "", Range{Offset: 10}, ""},
		{"a malformed header is ignored", "items=0-9", "limit=5", Range{Limit: lim(5)}, ""},
		{"limit alone caps the rows", "", "limit=5", Range{Limit: lim(5)}, ""},
		{"limit and offset alone set the window", "", "limit=5&offset=10", Range{Offset: 10, Limit: lim(5)}, ""},
		{"limit and offset apply within the header", "0-9", "limit=5&offset=3", Range{Offset: 3, Limit: lim(5)}, ""},
		{"the header cuts a limit that reaches past it", "0-9", "limit=50&offset=5", Range{Offset: 5, Limit: lim(5)}, ""},
		{"an offset past the header leaves nothing and is refused", "0-9", "offset=20", Range{}, apierr.RangeNegativeLimit},
		{"limit=0 is an empty window", "", "limit=0", Range{Limit: lim(0)}, ""},
		{"limit=0 wins over the header", "5-10", "limit=0", Range{Limit: lim(0)}, ""},
		{"limit=0 wins even over an inverted header", "5-1", "limit=0", Range{Limit: lim(0)}, ""},
		{"limit=0 with an offset is refused, as in PostgREST", "", "limit=0&offset=5", Range{}, apierr.RangeNegativeLimit},
		{"a negative limit is refused", "", "limit=-1", Range{}, apierr.RangeNegativeLimit},
		{"a negative limit beside an offset is refused", "", "limit=-2&offset=5", Range{}, apierr.RangeNegativeLimit},
		{"an inverted header is refused", "5-3", "", Range{}, apierr.RangeLowerGTUpper},
		{"an inverted header is refused whatever the limit", "1-0", "limit=-1", Range{}, apierr.RangeLowerGTUpper},
		{"an unparsable limit beside an offset is refused, as in PostgREST", "", "limit=x&offset=3", Range{}, apierr.RangeNegativeLimit},
		{"an unparsable limit beside offset 0 reads as limit 0, as in PostgREST", "", "limit=x&offset=0", Range{Limit: lim(0)}, ""},
		{"embedded ranges do not touch the root", "", "tasks.limit=-1", Range{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := mustParse(t, tt.query)
			got, err := RootRange(tt.header, q.Ranges)
			if tt.details != "" {
				if err == nil {
					t.Fatalf("RootRange = %+v, want PGRST103", got)
				}
				if err.Code != "PGRST103" || err.Status != 416 || err.Message != "Requested range not satisfiable" || err.Details != tt.details {
					t.Errorf("got %d %s %q %v, want 416 PGRST103 %q", err.Status, err.Code, err.Message, err.Details, tt.details)
				}
				return
			}
			if err != nil {
				t.Fatalf("RootRange: %s %v", err.Code, err.Details)
			}
			if got.Offset != tt.want.Offset || !sameLimit(got.Limit, tt.want.Limit) {
				t.Errorf("got offset %d limit %s, want offset %d limit %s", got.Offset, showLimit(got.Limit), tt.want.Offset, showLimit(tt.want.Limit))
			}
		})
	}
}

func TestRangeIsAll(t *testing.T) {
	tests := []struct {
		name  string
		query string
		all   bool
	}{
		{"no limit or offset is every row", "", true},
		{"offset=0 is every row", "offset=0", true},
		{"an unparsable limit is every row", "limit=x", true},
		{"a limit is not every row", "limit=10", false},
		{"an offset is not every row", "offset=1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := mustParse(t, tt.query).Ranges[""].IsAll(); got != tt.all {
				t.Errorf("IsAll = %v, want %v", got, tt.all)
			}
		})
	}
}

func TestReadInteger(t *testing.T) {
	tests := []struct {
		name, in string
		want     int64
		ok       bool
	}{
		{"digits are a number", "42", 42, true},
		{"leading zeros are fine", "007", 7, true},
		{"surrounding spaces are allowed", " 5\t", 5, true},
		{"a minus sign negates", "-5", -5, true},
		{"a minus sign may stand apart", "- 5", -5, true},
		{"parentheses may wrap the number", "((-3))", -3, true},
		{"hexadecimal takes 0x", "0x1F", 31, true},
		{"octal takes 0o", "0O17", 15, true},
		{"a plus sign is not a number", "+5", 0, false},
		{"a fraction is not an integer", "1.5", 0, false},
		{"an exponent is not an integer", "1e3", 0, false},
		{"a signed exponent is not an integer", "1E-3", 0, false},
		{"trailing text is not a number", "12abc", 0, false},
		{"a sign before parentheses is not a number", "-(5)", 0, false},
		{"two minus signs are not a number", "--5", 0, false},
		{"the empty string is not a number", "", 0, false},
		{"0x without digits is not a number", "0x", 0, false},
		{"numbers below int64 saturate", "-99999999999999999999", math.MinInt64, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := readInteger(tt.in)
			if got != tt.want || ok != tt.ok {
				t.Errorf("readInteger(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSaturatingArithmetic(t *testing.T) {
	const maxI, minI = math.MaxInt64, math.MinInt64
	tests := []struct {
		name      string
		got, want int64
	}{
		{"a sum in range is exact", satAdd(2, -5), -3},
		{"a sum past the top stops there", satAdd(maxI, 1), maxI},
		{"a sum past the bottom stops there", satAdd(minI, -1), minI},
		{"opposite signs never overflow", satAdd(maxI, minI), -1},
		{"a difference in range is exact", satSub(2, 5), -3},
		{"subtracting the minimum from zero stops at the top", satSub(0, minI), maxI},
		{"subtracting the minimum from a negative is exact", satSub(-5, minI), maxI - 4},
		{"a difference past the bottom stops there", satSub(minI, 1), minI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %d, want %d", tt.got, tt.want)
			}
		})
	}
}
