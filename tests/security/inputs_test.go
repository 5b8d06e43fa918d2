package security

import (
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"
)

// A probe is one request carrying a payload to one input point.
type probe struct {
	point   string
	form    string // "encoded" (URL- or JSON-encoded) or "raw" (as is)
	method  string
	target  string // the request target, path and query, sent byte for byte
	header  [][2]string
	body    string
	payload string
}

// An inputPoint is a place of a request a payload can go.
type inputPoint struct {
	name   string
	probes func(p string) []probe
}

// option adds to a probe: a header, a body.
type option func(*probe)

func header(name, value string) option {
	return func(pr *probe) { pr.header = append(pr.header, [2]string{name, value}) }
}

func body(contentType, text string) option {
	return func(pr *probe) {
		pr.header = append(pr.header, [2]string{"Content-Type", contentType})
		pr.body = text
	}
}

func jsonBody(text string) option { return body("application/json", text) }

func newProbe(name, form, method, target, p string, opts []option) probe {
	pr := probe{point: name, form: form, method: method, target: target, payload: p}
	for _, o := range opts {
		o(&pr)
	}
	return pr
}

// twoForms is the encoded probe and, when the payload holds a byte that
// URL decoding treats apart (so the raw form reaches the server as
// something else), the raw one. Raw and encoded forms of other bytes
// decode to the same value: sending both would test nothing more.
func twoForms(name, method, p, encoded, raw string, opts []option) []probe {
	out := []probe{newProbe(name, "encoded", method, encoded, p, opts)}
	if raw != encoded && urlSpecial(p) {
		out = append(out, newProbe(name, "raw", method, raw, p, opts))
	}
	return out
}

// urlSpecial says p holds a byte a URL's path or query decoding gives a
// meaning to: an escape, a separator, a space or a control byte.
func urlSpecial(p string) bool {
	return strings.ContainsAny(p, "%+&=#;?/ \x7f") || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 })
}

// jsonSpecial says p holds a byte JSON must escape, or invalid UTF-8,
// so that splicing it raw into a JSON text makes another text.
func jsonSpecial(p string) bool {
	return strings.ContainsAny(p, "\"\\") || !utf8.ValidString(p) || strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 })
}

// csvSpecial says p holds a byte CSV gives a meaning to.
func csvSpecial(p string) bool { return strings.ContainsAny(p, "\",\r\n") }

// formSpecial says p holds a byte a form body gives a meaning to.
func formSpecial(p string) bool { return strings.ContainsAny(p, "%+&=; ") }

// inQuery puts the payload into the query string through query, which
// writes the query around its value: URL-encoded, then as it is.
func inQuery(name, method, path string, query func(v string) string, opts ...option) inputPoint {
	return inputPoint{name, func(p string) []probe {
		return twoForms(name, method, p, path+"?"+query(url.QueryEscape(p)), path+"?"+query(p), opts)
	}}
}

// inPath puts the payload into the path, between prefix and suffix.
func inPath(name, method, prefix, suffix string, opts ...option) inputPoint {
	return inputPoint{name, func(p string) []probe {
		return twoForms(name, method, p, prefix+url.PathEscape(p)+suffix, prefix+p+suffix, opts)
	}}
}

// inHeader puts the payload into a header through value; headers have no
// encoding, so there is one form.
func inHeader(name, method, target, headerName string, value func(p string) string, opts ...option) inputPoint {
	return inputPoint{name, func(p string) []probe {
		pr := newProbe(name, "raw", method, target, p, opts)
		pr.header = append(pr.header, [2]string{headerName, value(p)})
		return []probe{pr}
	}}
}

// inBody puts the payload into the body: encoded writes it escaped for the
// media type, raw spliced as it is, sent when special says the payload
// holds a byte the media type gives a meaning to.
func inBody(name, method, target, contentType string, special func(string) bool, encoded, raw func(p string) string, opts ...option) inputPoint {
	return inputPoint{name, func(p string) []probe {
		e := newProbe(name, "encoded", method, target, p, append(opts, body(contentType, encoded(p))))
		r := newProbe(name, "raw", method, target, p, append(opts, body(contentType, raw(p))))
		if e.body == r.body || !special(p) {
			return []probe{e}
		}
		return []probe{e, r}
	}}
}

// jsonString is p as a JSON string (invalid UTF-8 becomes U+FFFD, as
// encoding/json writes it).
func jsonString(p string) string {
	b, _ := json.Marshal(p)
	return string(b)
}

// csvField is p as a quoted CSV field.
func csvField(p string) string { return `"` + strings.ReplaceAll(p, `"`, `""`) + `"` }

func same(v string) string { return v }

// inputPoints are every place of a request a payload can go. token is
// webuser's, for the requests that write.
func inputPoints(token string) []inputPoint {
	user := header("Authorization", "Bearer "+token)
	insertOne := jsonBody(`{"title":"x"}`)
	q := func(format string) func(v string) string {
		return func(v string) string { return strings.ReplaceAll(format, "PAYLOAD", v) }
	}
	return []inputPoint{
		// The table and the function in the path.
		inPath("path: table", "GET", "/", ""),
		inPath("path: table (POST)", "POST", "/", "", user, insertOne),
		inPath("path: rpc function (GET)", "GET", "/rpc/", ""),
		inPath("path: rpc function (POST)", "POST", "/rpc/", "", jsonBody(`{}`)),

		// select.
		inQuery("select: column", "GET", "/items", q("select=PAYLOAD")),
		inQuery("select: cast", "GET", "/items", q("select=title::PAYLOAD")),
		inQuery("select: alias", "GET", "/items", q("select=PAYLOAD:title")),
		inQuery("select: json path ->", "GET", "/items", q("select=meta->PAYLOAD")),
		inQuery("select: json path ->>", "GET", "/items", q("select=meta->>PAYLOAD")),
		inQuery("select: json path cast", "GET", "/items", q("select=meta->>a::PAYLOAD")),
		inQuery("select: aggregate cast", "GET", "/items", q("select=qty.sum()::PAYLOAD")),
		inQuery("select: aggregate", "GET", "/items", q("select=qty.PAYLOAD()")),
		inQuery("select: embed hint", "GET", "/items", q("select=id,reviews!PAYLOAD(*)")),
		inQuery("select: embed name", "GET", "/items", q("select=id,PAYLOAD(*)")),
		inQuery("select: embed column", "GET", "/items", q("select=id,reviews(PAYLOAD)")),
		inQuery("select: embed spread", "GET", "/reviews", q("select=id,...PAYLOAD(*)")),

		// order.
		inQuery("order: column", "GET", "/items", q("order=PAYLOAD")),
		inQuery("order: direction", "GET", "/items", q("order=title.PAYLOAD")),
		inQuery("order: json path", "GET", "/items", q("order=meta->>PAYLOAD.desc")),

		// Filters: the column, the operator and each kind of value.
		inQuery("filter: column", "GET", "/items", q("PAYLOAD=eq.1")),
		inQuery("filter: operator", "GET", "/items", q("title=PAYLOAD.x")),
		inQuery("filter: eq value", "GET", "/items", q("title=eq.PAYLOAD")),
		inQuery("filter: not.eq value", "GET", "/items", q("title=not.eq.PAYLOAD")),
		inQuery("filter: int value", "GET", "/items", q("qty=eq.PAYLOAD")),
		inQuery("filter: like value", "GET", "/items", q("title=like.PAYLOAD")),
		inQuery("filter: ilike value", "GET", "/items", q("title=ilike.*PAYLOAD*")),
		inQuery("filter: match value", "GET", "/items", q("title=match.PAYLOAD")),
		inQuery("filter: in list", "GET", "/items", q("title=in.(PAYLOAD,x)")),
		inQuery("filter: in quoted", "GET", "/items", q(`title=in.("PAYLOAD")`)),
		inQuery("filter: is value", "GET", "/items", q("title=is.PAYLOAD")),
		inQuery("filter: cs array", "GET", "/items", q("tags=cs.{PAYLOAD}")),
		inQuery("filter: cs json", "GET", "/items", q("meta=cs.PAYLOAD")),
		inQuery("filter: any quantifier", "GET", "/items", q("title=eq(any).{PAYLOAD}")),
		inQuery("filter: fts value", "GET", "/items", q("title=fts.PAYLOAD")),
		inQuery("filter: fts language", "GET", "/items", q("title=fts(PAYLOAD).word")),
		inQuery("filter: json path key", "GET", "/items", q("meta->>PAYLOAD=eq.1")),
		inQuery("filter: json path value", "GET", "/items", q("meta->>a=eq.PAYLOAD")),

		// Logic trees.
		inQuery("logic: or value", "GET", "/items", q("or=(title.eq.PAYLOAD,qty.eq.1)")),
		inQuery("logic: or tree", "GET", "/items", q("or=(PAYLOAD)")),
		inQuery("logic: or column", "GET", "/items", q("or=(PAYLOAD.eq.1)")),
		inQuery("logic: nested and/or value", "GET", "/items", q("and=(qty.gt.0,or(title.eq.PAYLOAD,title.is.null))")),
		inQuery("logic: not.or tree", "GET", "/items", q("not.or=(PAYLOAD,id.eq.1)")),

		// Embedded resources' filters, order and paging.
		inQuery("embed: filter value", "GET", "/items", q("select=id,reviews(*)&reviews.body=eq.PAYLOAD")),
		inQuery("embed: filter column", "GET", "/items", q("select=id,reviews(*)&reviews.PAYLOAD=eq.1")),
		inQuery("embed: order", "GET", "/items", q("select=id,reviews(*)&reviews.order=PAYLOAD")),
		inQuery("embed: limit", "GET", "/items", q("select=id,reviews(*)&reviews.limit=PAYLOAD")),
		inQuery("embed: or tree", "GET", "/items", q("select=id,reviews(*)&reviews.or=(body.eq.PAYLOAD)")),

		// Paging.
		inQuery("paging: limit", "GET", "/items", q("limit=PAYLOAD")),
		inQuery("paging: offset", "GET", "/items", q("offset=PAYLOAD")),
		inHeader("header: Range", "GET", "/items", "Range", same),
		inHeader("header: Range items=", "GET", "/items", "Range", func(p string) string { return "items=" + p }),

		// Prefer, each preference and the header as a whole.
		inHeader("prefer: return", "POST", "/items", "Prefer", func(p string) string { return "return=" + p }, user, insertOne),
		inHeader("prefer: count", "GET", "/items", "Prefer", func(p string) string { return "count=" + p }),
		inHeader("prefer: resolution", "POST", "/items?on_conflict=id", "Prefer", func(p string) string { return "resolution=" + p },
			user, jsonBody(`{"id":1,"title":"alpha"}`)),
		inHeader("prefer: missing", "POST", "/items?columns=title,qty", "Prefer", func(p string) string { return "missing=" + p },
			user, jsonBody(`[{"title":"x"}]`)),
		inHeader("prefer: handling", "GET", "/items", "Prefer", func(p string) string { return "handling=" + p }),
		inHeader("prefer: tx", "POST", "/items", "Prefer", func(p string) string { return "tx=" + p }, user, insertOne),
		inHeader("prefer: params", "POST", "/rpc/take_json", "Prefer", func(p string) string { return "params=" + p }, jsonBody(`{"a":1}`)),
		inHeader("prefer: max-affected", "PATCH", "/items?id=eq.-1", "Prefer", func(p string) string { return "handling=strict, max-affected=" + p },
			user, jsonBody(`{"qty":1}`)),
		inHeader("prefer: timezone", "GET", "/items?select=id", "Prefer", func(p string) string { return "timezone=" + p }),
		inHeader("prefer: strict list", "GET", "/items", "Prefer", func(p string) string { return "handling=strict, " + p }),
		inHeader("prefer: whole header", "POST", "/items", "Prefer", same, user, insertOne),

		// Profiles and media types.
		inHeader("header: Accept-Profile", "GET", "/items", "Accept-Profile", same),
		inHeader("header: Content-Profile", "POST", "/items", "Content-Profile", same, user, insertOne),
		inHeader("header: Accept", "GET", "/items", "Accept", same),
		inHeader("header: Accept parameters", "GET", "/items", "Accept", func(p string) string { return "application/vnd.pgrst.plan+json; options=" + p }),
		inHeader("header: Content-Type", "POST", "/items", "Content-Type", same, user, jsonBody(`{"title":"x"}`)),
		inHeader("header: Authorization bearer", "GET", "/items", "Authorization", func(p string) string { return "Bearer " + p }),
		inHeader("header: Authorization", "GET", "/items", "Authorization", same),

		// Write parameters.
		inQuery("write: columns", "POST", "/items", q("columns=PAYLOAD"), user, jsonBody(`[{"title":"x"}]`)),
		inQuery("write: on_conflict", "POST", "/items", q("on_conflict=PAYLOAD"), user,
			header("Prefer", "resolution=merge-duplicates"), jsonBody(`{"id":1,"title":"alpha"}`)),
		inQuery("write: PATCH filter", "PATCH", "/items", q("title=eq.PAYLOAD"), user, jsonBody(`{"qty":1}`)),
		inQuery("write: DELETE filter", "DELETE", "/items", q("title=eq.PAYLOAD&id=lt.0"), user),
		inQuery("write: returning select", "POST", "/items", q("select=PAYLOAD"), user,
			header("Prefer", "return=representation"), insertOne),

		// JSON bodies.
		inBody("body: JSON key", "POST", "/items", "application/json", jsonSpecial,
			func(p string) string { return "{" + jsonString(p) + `:"x"}` },
			func(p string) string { return `{"` + p + `":"x"}` }, user),
		inBody("body: JSON value", "POST", "/items", "application/json", jsonSpecial,
			func(p string) string { return `{"title":` + jsonString(p) + "}" },
			func(p string) string { return `{"title":"` + p + `"}` }, user),
		inBody("body: JSON int value", "POST", "/items", "application/json", jsonSpecial,
			func(p string) string { return `{"qty":` + jsonString(p) + "}" },
			func(p string) string { return `{"qty":` + p + "}" }, user),
		inBody("body: JSON nested values", "POST", "/items", "application/json", jsonSpecial,
			func(p string) string {
				s := jsonString(p)
				return `{"title":"n","meta":{` + s + ":" + s + `},"doc":[` + s + `],"tags":[` + s + "]}"
			},
			func(p string) string { return `{"title":"n","meta":{"` + p + `":1},"tags":["` + p + `"]}` }, user),
		inBody("body: JSON array keys", "POST", "/items", "application/json", jsonSpecial,
			func(p string) string { return `[{"title":"a"},{` + jsonString(p) + `:"b"}]` },
			func(p string) string { return `[{"title":"a"},{"` + p + `":"b"}]` }, user),
		inBody("body: JSON array values", "POST", "/items", "application/json", jsonSpecial,
			func(p string) string { return `[{"title":` + jsonString(p) + `,"qty":1},{"title":"b","qty":2}]` },
			func(p string) string { return `[{"title":"` + p + `","qty":1}]` }, user),
		inBody("body: JSON as a whole", "POST", "/items", "application/json", jsonSpecial, jsonString, same, user),
		inBody("body: PATCH value", "PATCH", "/items?id=eq.3", "application/json", jsonSpecial,
			func(p string) string { return `{"title":` + jsonString(p) + "}" },
			func(p string) string { return `{"title":"` + p + `"}` }, user),
		inBody("body: PATCH key", "PATCH", "/items?id=eq.-1", "application/json", jsonSpecial,
			func(p string) string { return "{" + jsonString(p) + ":1}" },
			func(p string) string { return `{"` + p + `":1}` }, user),

		// CSV and form bodies.
		inBody("body: CSV header", "POST", "/items", "text/csv", csvSpecial,
			func(p string) string { return csvField(p) + "\nx\n" },
			func(p string) string { return p + "\nx\n" }, user),
		inBody("body: CSV value", "POST", "/items", "text/csv", csvSpecial,
			func(p string) string { return "title,qty\n" + csvField(p) + ",1\n" },
			func(p string) string { return "title,qty\n" + p + ",1\n" }, user),
		inBody("body: form key", "POST", "/items", "application/x-www-form-urlencoded", formSpecial,
			func(p string) string { return url.QueryEscape(p) + "=x" },
			func(p string) string { return p + "=x" }, user),
		inBody("body: form value", "POST", "/items", "application/x-www-form-urlencoded", formSpecial,
			func(p string) string { return "title=" + url.QueryEscape(p) },
			func(p string) string { return "title=" + p }, user),

		// Function calls.
		inQuery("rpc: GET argument name", "GET", "/rpc/echo", q("PAYLOAD=x")),
		inQuery("rpc: GET argument value", "GET", "/rpc/echo", q("msg=PAYLOAD")),
		inQuery("rpc: GET int argument", "GET", "/rpc/add", q("a=PAYLOAD&b=1")),
		inQuery("rpc: GET filter on result", "GET", "/rpc/echo", q("msg=x&PAYLOAD=eq.x")),
		inBody("rpc: POST argument name", "POST", "/rpc/echo", "application/json", jsonSpecial,
			func(p string) string { return "{" + jsonString(p) + `:"x"}` },
			func(p string) string { return `{"` + p + `":"x"}` }),
		inBody("rpc: POST argument value", "POST", "/rpc/echo", "application/json", jsonSpecial,
			func(p string) string { return `{"msg":` + jsonString(p) + `,"n":1}` },
			func(p string) string { return `{"msg":"` + p + `","n":1}` }),
		inBody("rpc: POST int argument", "POST", "/rpc/add", "application/json", jsonSpecial,
			func(p string) string { return `{"a":` + jsonString(p) + `,"b":1}` },
			func(p string) string { return `{"a":` + p + `,"b":1}` }),
		inBody("rpc: single json argument", "POST", "/rpc/take_json", "application/json", jsonSpecial,
			func(p string) string { return `{"k":` + jsonString(p) + "}" }, same),
		inBody("rpc: POST form argument", "POST", "/rpc/echo", "application/x-www-form-urlencoded", formSpecial,
			func(p string) string { return "msg=" + url.QueryEscape(p) },
			func(p string) string { return url.QueryEscape(p) + "=x" }),
	}
}
