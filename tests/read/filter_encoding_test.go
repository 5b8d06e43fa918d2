package read

import "testing"

// TestFilterEncoding checks that query strings are decoded as PostgREST
// decodes them: percent-encoding everywhere, + as a space, and reserved
// characters kept inside values once encoded.
func TestFilterEncoding(t *testing.T) {
	s := startServer(t)
	runIDsCases(t, s, []idsCase{
		{"a plus in the query is a space", "/tasks?select=id&title=eq.Design+login", []int{1}},
		{"an encoded space is a space", "/tasks?select=id&title=eq.Design%20login", []int{1}},
		{"an encoded plus is a plus", "/tasks?select=id&tags=cs.%7Bc%2B%2B%7D", []int{56}},
		{"an encoded ampersand stays in the value", "/projects?select=id&code=eq.INT-R%26D", []int{12}},
		{"an encoded equals sign stays in the value", "/events?select=id&payload->>path=eq./films%3Fselect%3Dtitle", []int{11}},
		{"an encoded hash stays in the value", "/projects?select=id&settings->notify->slack->>channel=eq.%23alpha", []int{2}},
		{"a raw equals sign after the first stays in the value", "/events?select=id&payload->>path=eq./films?select=title", []int{11}},
		{"encoded UTF-8 is decoded", "/tasks?select=id&title=like.*%F0%9F%9A%80", []int{57}},
		{"an encoded key is decoded", "/tasks?select=id&%70roject_id=eq.11&%74itle=eq.Cleanup", []int{59}},
		{"a quoted key names a column with a space", "/users?select=id&%22Display%20Name%22=eq.Eve", []int{5}},
		{"a quoted key names a column with an uppercase letter", "/Audit%20Log?select=id&%22Target%20Table%22=eq.Audit%20Log", []int{6}},
		{"an encoded colon and slash in a value", "/events?select=id&payload->>referrer=eq.https%3A%2F%2Fexample.com%2F%3Fq%3Da%2Cb", []int{11}},
		{"a value may hold dots", "/users?select=id&email=eq.grace@navy.example", []int{7}},
		{"a value may hold a dot after the operator's value", "/clients?select=id&name=like.*Inc.", []int{4}},
		{"an unquoted key may hold a space", "/users?select=id&Display%20Name=eq.Eve", []int{5}},
		{"spaces around an unquoted key are trimmed", "/users?select=id&%20id%20=eq.5", []int{5}},
		{"a plus in a key is a space", "/users?select=id&Display+Name=like.*Lee", []int{6}},
	})
}
