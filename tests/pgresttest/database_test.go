package pgresttest

import "testing"

func TestSectionTakesTheLinesBetweenTwoHeadings(t *testing.T) {
	const text = "-- Roles --\ncreate role a;\n-- Login --\ncreate table l ();\n-- Login helpers\n-- Data --\ninsert 1;\n"
	tests := []struct {
		name, from, to, want, err string
	}{
		{name: "from the heading up to the next", from: "-- Login", to: "-- Data",
			want: "-- Login --\ncreate table l ();\n-- Login helpers\n"},
		{name: "from the first heading to the second", from: "-- Roles", to: "-- Login --",
			want: "-- Roles --\ncreate role a;\n"},
		{name: "a missing start is an error", from: "-- Users", to: "-- Data",
			err: `no line starts with "-- Users"`},
		{name: "a missing end is an error", from: "-- Login", to: "-- Sample",
			err: `no line after "-- Login" starts with "-- Sample"`},
		{name: "the end is looked for after the start only", from: "-- Login", to: "-- Roles",
			err: `no line after "-- Login" starts with "-- Roles"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := section(text, tt.from, tt.to)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("section = %q, %v; want the error %q", got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("section = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}
