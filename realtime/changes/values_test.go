package changes

import (
	"testing"
	"time"
)

func TestToJSON(t *testing.T) {
	num := &typeInfo{name: "int4", kind: kindNumber}
	text := &typeInfo{name: "text", kind: kindString}
	cases := []struct {
		t    *typeInfo
		in   string
		want string
	}{
		{num, "42", "42"},
		{&typeInfo{name: "float8", kind: kindNumber}, "NaN", `"NaN"`},
		{&typeInfo{name: "bool", kind: kindBool}, "t", "true"},
		{&typeInfo{name: "bool", kind: kindBool}, "f", "false"},
		{&typeInfo{name: "jsonb", kind: kindJSON}, `{"a": [1, 2]}`, `{"a":[1,2]}`},
		{text, `say "hi"`, `"say \"hi\""`},
		{&typeInfo{name: "timestamptz", kind: kindTimestamptz}, "2024-05-01 12:30:00.5+00", `"2024-05-01T12:30:00.5+00:00"`},
		{&typeInfo{name: "timestamptz", kind: kindTimestamptz}, "2024-05-01 12:30:00+05:30", `"2024-05-01T12:30:00+05:30"`},
		{&typeInfo{name: "timestamp", kind: kindTimestamp}, "2024-05-01 12:30:00", `"2024-05-01T12:30:00"`},
		{&typeInfo{name: "date", kind: kindDate}, "2024-05-01", `"2024-05-01"`},
		{&typeInfo{name: "_int4", kind: kindArray, elem: num}, "{1,2,NULL}", "[1,2,null]"},
		{&typeInfo{name: "_int4", kind: kindArray, elem: num}, "{{1,2},{3,4}}", "[[1,2],[3,4]]"},
		{&typeInfo{name: "_text", kind: kindArray, elem: text}, `{a,"b c","d\"e",NULL,"NULL"}`, `["a","b c","d\"e",null,"NULL"]`},
		{&typeInfo{name: "_int4", kind: kindArray, elem: num}, "{}", "[]"},
	}
	for _, c := range cases {
		if got := string(toJSON(c.t, c.in)); got != c.want {
			t.Errorf("toJSON(%s, %q) = %s, want %s", c.t.name, c.in, got, c.want)
		}
	}
}

func TestCommitTimestamp(t *testing.T) {
	// realtime.apply_rls: to_char(... at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"').
	at := time.Date(2024, 5, 1, 14, 30, 0, 0, time.FixedZone("", 2*3600))
	if got, want := commitTimestamp(at), "2024-05-01T12:30:00.000Z"; got != want {
		t.Errorf("commitTimestamp = %s, want %s", got, want)
	}
}
