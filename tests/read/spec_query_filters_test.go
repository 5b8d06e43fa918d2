package read

import "testing"

// TestQuerySpec mirrors the cases of PostgREST v16.2's
// test/spec/Feature/Query/QuerySpec.hs on the tables of its fixture that
// tests/fixtures/postgrest_spec.sql holds: filters and their operators
// (is, like, match, in, fts and its kin), JSON paths, casts, select and
// order. Each case names the spec's `it` text; a comment gives its line.
func TestQuerySpec(t *testing.T) {
	s := startSpecServer(t)
	runSpecRequests(t, s, []specRequest{
		// L24
		{name: `should not confuse count column with pg_catalog.count aggregate`, path: `/has_count_column`, anyBody: true},
		// L28
		{name: `should not conflict with internal postgrest table alias`, path: `/clashing_column?select=t`, anyBody: true},
		// L32
		{name: `causes a 404`, path: `/faketable`, status: 404, body: `{"code":"PGRST205","details":null,"hint":null,"message":"Could not find the table 'test.faketable' in the schema cache"}`, match: map[string]string{`Content-Length`: `120`}},
		// L41
		{name: `matches with equality`, path: `/items?id=eq.5`, body: `[{"id":5}]`, match: map[string]string{`Content-Range`: `0-0/*`, `Content-Length`: `10`}},
		// L48
		{name: `matches with equality using not operator`, path: `/items?id=not.eq.5&order=id`, body: `[{"id":1},{"id":2},{"id":3},{"id":4},{"id":6},{"id":7},{"id":8},{"id":9},{"id":10},{"id":11},{"id":12},{"id":13},{"id":14},{"id":15}]`, match: map[string]string{`Content-Range`: `0-13/*`}},
		// L53
		{name: `matches with more than one condition using not operator`, path: `/simple_pk?k=like.*yx&extra=not.eq.u`, raw: true, body: `[]`},
		// L56
		{name: `matches with inequality using not operator`, path: `/items?id=not.lt.14&order=id.asc`, body: `[{"id":14},{"id":15}]`, match: map[string]string{`Content-Range`: `0-1/*`}},
		// L56
		{name: `matches with inequality using not operator (2)`, path: `/items?id=not.gt.2&order=id.asc`, body: `[{"id":1},{"id":2}]`, match: map[string]string{`Content-Range`: `0-1/*`}},
		// L64
		{name: `matches items IN`, path: `/items?id=in.(1,3,5)`, body: `[{"id":1},{"id":3},{"id":5}]`, match: map[string]string{`Content-Range`: `0-2/*`}},
		// L69
		{name: `matches items NOT IN using not operator`, path: `/items?id=not.in.(2,4,6,7,8,9,10,11,12,13,14,15)`, body: `[{"id":1},{"id":3},{"id":5}]`, match: map[string]string{`Content-Range`: `0-2/*`}},
		// L74
		{name: `matches nulls using not operator`, path: `/no_pk?a=not.is.null`, body: `[{"a":"1","b":"0"},{"a":"2","b":"0"}]`},
		// L79
		{name: `matches not_null using is operator`, path: `/no_pk?a=is.not_null`, body: `[{"a":"1","b":"0"},{"a":"2","b":"0"}]`},
		// L84
		{name: `matches nulls in varchar and numeric fields alike`, path: `/no_pk?a=is.null`, body: `[{"a":null,"b":null}]`},
		// L89
		{name: `not.is.not_null is equivalent to is.null`, path: `/no_pk?a=not.is.not_null`, body: `[{"a":null,"b":null}]`},
		// L89
		{name: `not.is.not_null is equivalent to is.null (2)`, path: `/nullable_integer?a=is.null`, body: `[{"a":null}]`},
		// L96
		{name: `matches with trilean values`, path: `/chores?done=is.true`, body: `[{"id":1,"name":"take out the garbage","done":true}]`},
		// L96
		{name: `matches with trilean values (2)`, path: `/chores?done=is.false`, body: `[{"id":2,"name":"do the laundry","done":false}]`},
		// L96
		{name: `matches with trilean values (3)`, path: `/chores?done=is.unknown`, body: `[{"id":3,"name":"wash the dishes","done":null}]`},
		// L109
		{name: `matches with null and not_null values in upper or mixed case`, path: `/chores?done=is.NULL`, body: `[{"id":3,"name":"wash the dishes","done":null}]`},
		// L109
		{name: `matches with null and not_null values in upper or mixed case (2)`, path: `/chores?done=is.NoT_NuLl`, body: `[{"id":1,"name":"take out the garbage","done":true},{"id":2,"name":"do the laundry","done":false}]`},
		// L119
		{name: `matches with trilean values in upper or mixed case`, path: `/chores?done=is.TRUE`, body: `[{"id":1,"name":"take out the garbage","done":true}]`},
		// L119
		{name: `matches with trilean values in upper or mixed case (2)`, path: `/chores?done=is.FAlSe`, body: `[{"id":2,"name":"do the laundry","done":false}]`},
		// L119
		{name: `matches with trilean values in upper or mixed case (3)`, path: `/chores?done=is.UnKnOwN`, body: `[{"id":3,"name":"wash the dishes","done":null}]`},
		// L132
		{name: `fails if 'is' used and there's no null or trilean value`, path: `/chores?done=is.nil`, status: 400, anyBody: true},
		// L132
		{name: `fails if 'is' used and there's no null or trilean value (2)`, path: `/chores?done=is.ok`, status: 400, anyBody: true},
		// L136
		{name: `matches with like`, path: `/simple_pk?k=like.*yx`, body: `[{"k":"xyyx","extra":"u"}]`},
		// L136
		{name: `matches with like (2)`, path: `/simple_pk?k=like.xy*`, body: `[{"k":"xyyx","extra":"u"}]`},
		// L136
		{name: `matches with like (3)`, path: `/simple_pk?k=like.*YY*`, body: `[{"k":"xYYx","extra":"v"}]`},
		// L144
		{name: `matches with like using not operator`, path: `/simple_pk?k=not.like.*yx`, body: `[{"k":"xYYx","extra":"v"}]`},
		// L148
		{name: `matches with ilike`, path: `/simple_pk?k=ilike.xy*&order=extra.asc`, body: `[{"k":"xyyx","extra":"u"},{"k":"xYYx","extra":"v"}]`},
		// L148
		{name: `matches with ilike (2)`, path: `/simple_pk?k=ilike.*YY*&order=extra.asc`, body: `[{"k":"xyyx","extra":"u"},{"k":"xYYx","extra":"v"}]`},
		// L156
		{name: `matches with ilike using not operator`, path: `/simple_pk?k=not.ilike.xy*&order=extra.asc`, raw: true, body: `[]`},
		// L159
		{name: `matches with ~`, path: `/simple_pk?k=match.yx$`, body: `[{"k":"xyyx","extra":"u"}]`},
		// L159
		{name: `matches with ~ (2)`, path: `/simple_pk?k=match.^xy`, body: `[{"k":"xyyx","extra":"u"}]`},
		// L159
		{name: `matches with ~ (3)`, path: `/simple_pk?k=match.YY`, body: `[{"k":"xYYx","extra":"v"}]`},
		// L167
		{name: `matches with ~ using not operator`, path: `/simple_pk?k=not.match.yx$`, body: `[{"k":"xYYx","extra":"v"}]`},
		// L171
		{name: `matches with ~*`, path: `/simple_pk?k=imatch.^xy&order=extra.asc`, body: `[{"k":"xyyx","extra":"u"},{"k":"xYYx","extra":"v"}]`},
		// L171
		{name: `matches with ~* (2)`, path: `/simple_pk?k=imatch..*YY.*&order=extra.asc`, body: `[{"k":"xyyx","extra":"u"},{"k":"xYYx","extra":"v"}]`},
		// L179
		{name: `matches with ~* using not operator`, path: `/simple_pk?k=not.imatch.^xy&order=extra.asc`, raw: true, body: `[]`},
		// L185
		{name: `finds matches with to_tsquery`, path: `/tsearch?text_search_vector=fts.impossible`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"}]`},
		// L189
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery`, path: `/tsearch?text_search_vector=fts.fun%26possible`, body: `[{"text_search_vector":"'also':2 'fun':3 'possibl':8"}]`},
		// L189
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (2)`, path: `/tsearch?text_search_vector=fts.impossible%7Cpossible`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"},{"text_search_vector":"'also':2 'fun':3 'possibl':8"}]`},
		// L189
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (3)`, path: `/tsearch?text_search_vector=fts.fun%26!possible`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"}]`},
		// L202
		{name: `finds matches with plainto_tsquery`, path: `/tsearch?text_search_vector=plfts.The%20Fat%20Rats`, body: `[{"text_search_vector":"'ate':3 'cat':2 'fat':1 'rat':4"}]`},
		// L207
		{name: `finds matches with websearch_to_tsquery`, path: `/tsearch?text_search_vector=wfts.The%20Fat%20Rats`, body: `[{"text_search_vector":"'ate':3 'cat':2 'fat':1 'rat':4"}]`},
		// L212
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery`, path: `/tsearch?text_search_vector=wfts.fun%20and%20possible`, body: `[{"text_search_vector":"'also':2 'fun':3 'possibl':8"}]`},
		// L212
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (2)`, path: `/tsearch?text_search_vector=wfts.impossible%20or%20possible`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"},{"text_search_vector":"'also':2 'fun':3 'possibl':8"}]`},
		// L212
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (3)`, path: `/tsearch?text_search_vector=wfts.fun%20and%20-possible`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"}]`},
		// L229
		{name: `finds matches with different dictionaries`, path: `/tsearch?text_search_vector=fts(french).amusant`, body: `[{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"}]`},
		// L229
		{name: `finds matches with different dictionaries (2)`, path: `/tsearch?text_search_vector=plfts(french).amusant%20impossible`, body: `[{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"}]`},
		// L229
		{name: `finds matches with different dictionaries (3)`, path: `/tsearch?text_search_vector=wfts(french).amusant%20impossible`, body: `[{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"}]`},
		// L242
		{name: `can be negated with not operator`, path: `/tsearch?text_search_vector=not.fts.impossible%7Cfat%7Cfun`, body: `[{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L242
		{name: `can be negated with not operator (2)`, path: `/tsearch?text_search_vector=not.fts(english).impossible%7Cfat%7Cfun`, body: `[{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L242
		{name: `can be negated with not operator (3)`, path: `/tsearch?text_search_vector=not.plfts.The%20Fat%20Rats`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"},{"text_search_vector":"'also':2 'fun':3 'possibl':8"},{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L242
		{name: `can be negated with not operator (4)`, path: `/tsearch?text_search_vector=not.wfts(english).impossible%20or%20fat%20or%20fun`, body: `[{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L269
		{name: `finds matches`, path: `/tsearch?text_search_vector=phfts.The%20Fat%20Cats`, body: `[{"text_search_vector":"'ate':3 'cat':2 'fat':1 'rat':4"}]`},
		// L273
		{name: `finds matches with different dictionaries (4)`, path: `/tsearch?text_search_vector=phfts(german).Art%20Spass`, body: `[{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L278
		{name: `can be negated with not operator (5)`, path: `/tsearch?text_search_vector=not.phfts(english).The%20Fat%20Cats`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"},{"text_search_vector":"'also':2 'fun':3 'possibl':8"},{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L287
		{name: `can be used with or query param`, path: `/tsearch?or=(text_search_vector.phfts(german).Art%20Spass,%20text_search_vector.phfts(french).amusant,%20text_search_vector.fts(english).impossible)`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"},{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L295
		{name: `works with tsvector computed fields`, path: `/tsearch_to_tsvector?select=text_search_vector&text_search_vector=fts(simple).of`, body: `[{"text_search_vector":"'do':7 'fun':5 'impossible':9 'it':1 'kind':3 'of':4 's':2 'the':8 'to':6"}]`},
		// L302
		{name: `works when the column type is a tsvector domain`, path: `/tsearch_to_tsvector?select=text_search_domain&text_search_domain=fts(simple).of`, body: `[{"text_search_domain":"'do':7 'fun':5 'impossible':9 'it':1 'kind':3 'of':4 's':2 'the':8 'to':6"}]`},
		// L309
		{name: `works when the column type is a recursive tsvector domain`, path: `/tsearch_to_tsvector?select=text_search_rec_domain&text_search_rec_domain=fts(simple).of`, body: `[{"text_search_rec_domain":"'do':7 'fun':5 'impossible':9 'it':1 'kind':3 'of':4 's':2 'the':8 'to':6"}]`},
		// L318
		{name: `finds matches with to_tsquery (2)`, path: `/tsearch_to_tsvector?select=text_search&text_search=fts.impossible`, body: `[{"text_search":"It's kind of fun to do the impossible"},{"text_search":"C'est un peu amusant de faire l'impossible"}]`},
		// L318
		{name: `finds matches with to_tsquery (3)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=fts.impossible`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}},{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}}]`},
		// L331
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (4)`, path: `/tsearch_to_tsvector?select=text_search&text_search=fts.fun%26possible`, body: `[{"text_search":"But also fun to do what is possible"}]`},
		// L331
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (5)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=fts.fun%26possible`, body: `[{"jsonb_search":{"text_search":"But also fun to do what is possible"}}]`},
		// L331
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (6)`, path: `/tsearch_to_tsvector?select=text_search&text_search=fts.impossible%7Cpossible`, body: `[{"text_search":"It's kind of fun to do the impossible"},{"text_search":"But also fun to do what is possible"},{"text_search":"C'est un peu amusant de faire l'impossible"}]`},
		// L331
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (7)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=fts.impossible%7Cpossible`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}},{"jsonb_search":{"text_search":"But also fun to do what is possible"}},{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}}]`},
		// L331
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (8)`, path: `/tsearch_to_tsvector?select=text_search&text_search=fts.fun%26!possible`, body: `[{"text_search":"It's kind of fun to do the impossible"}]`},
		// L331
		{name: `can use lexeme boolean operators(&=%26, |=%7C, !) in to_tsquery (9)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=fts.fun%26!possible`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}}]`},
		// L359
		{name: `finds matches with plainto_tsquery (2)`, path: `/tsearch_to_tsvector?select=text_search&text_search=plfts.The%20Fat%20Rats`, body: `[{"text_search":"Fat cats ate rats"}]`},
		// L359
		{name: `finds matches with plainto_tsquery (3)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=plfts.The%20Fat%20Rats`, body: `[{"jsonb_search":{"text_search":"Fat cats ate rats"}}]`},
		// L367
		{name: `finds matches with websearch_to_tsquery (2)`, path: `/tsearch_to_tsvector?select=text_search&text_search=wfts.The%20Fat%20Rats`, body: `[{"text_search":"Fat cats ate rats"}]`},
		// L367
		{name: `finds matches with websearch_to_tsquery (3)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=wfts.The%20Fat%20Rats`, body: `[{"jsonb_search":{"text_search":"Fat cats ate rats"}}]`},
		// L375
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (4)`, path: `/tsearch_to_tsvector?select=text_search&text_search=wfts.fun%20and%20possible`, body: `[{"text_search":"But also fun to do what is possible"}]`},
		// L375
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (5)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=wfts.fun%20and%20possible`, body: `[{"jsonb_search":{"text_search":"But also fun to do what is possible"}}]`},
		// L375
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (6)`, path: `/tsearch_to_tsvector?select=text_search&text_search=wfts.impossible%20or%20possible`, body: `[{"text_search":"It's kind of fun to do the impossible"},{"text_search":"But also fun to do what is possible"},{"text_search":"C'est un peu amusant de faire l'impossible"}]`},
		// L375
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (7)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=wfts.impossible%20or%20possible`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}},{"jsonb_search":{"text_search":"But also fun to do what is possible"}},{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}}]`},
		// L375
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (8)`, path: `/tsearch_to_tsvector?select=text_search&text_search=wfts.fun%20and%20-possible`, body: `[{"text_search":"It's kind of fun to do the impossible"}]`},
		// L375
		{name: `can use boolean operators(and, or, -) in websearch_to_tsquery (9)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=wfts.fun%20and%20-possible`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}}]`},
		// L403
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector()`, path: `/tsearch_to_tsvector?select=text_search&text_search=fts(french).amusant`, body: `[{"text_search":"C'est un peu amusant de faire l'impossible"}]`},
		// L403
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (2)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=fts(french).amusant`, body: `[{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}}]`},
		// L403
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (3)`, path: `/tsearch_to_tsvector?select=text_search&text_search=plfts(french).amusant%20impossible`, body: `[{"text_search":"C'est un peu amusant de faire l'impossible"}]`},
		// L403
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (4)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=plfts(french).amusant%20impossible`, body: `[{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}}]`},
		// L403
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (5)`, path: `/tsearch_to_tsvector?select=text_search&text_search=wfts(french).amusant%20impossible`, body: `[{"text_search":"C'est un peu amusant de faire l'impossible"}]`},
		// L403
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (6)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=wfts(french).amusant%20impossible`, body: `[{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}}]`},
		// L423
		{name: `can be negated with not operator (6)`, path: `/tsearch_to_tsvector?select=text_search&text_search=not.fts.impossible%7Cfat%7Cfun`, body: `[{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L423
		{name: `can be negated with not operator (7)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=not.fts.impossible%7Cfat%7Cfun`, body: `[{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L423
		{name: `can be negated with not operator (8)`, path: `/tsearch_to_tsvector?select=text_search&text_search=not.fts(english).impossible%7Cfat%7Cfun`, body: `[{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L423
		{name: `can be negated with not operator (9)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=not.fts(english).impossible%7Cfat%7Cfun`, body: `[{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L423
		{name: `can be negated with not operator (10)`, path: `/tsearch_to_tsvector?select=text_search&text_search=not.plfts.The%20Fat%20Rats`, body: `[{"text_search":"It's kind of fun to do the impossible"},{"text_search":"But also fun to do what is possible"},{"text_search":"C'est un peu amusant de faire l'impossible"},{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L423
		{name: `can be negated with not operator (11)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=not.plfts.The%20Fat%20Rats`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}},{"jsonb_search":{"text_search":"But also fun to do what is possible"}},{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}},{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L423
		{name: `can be negated with not operator (12)`, path: `/tsearch_to_tsvector?select=text_search&text_search=not.wfts(english).impossible%20or%20fat%20or%20fun`, body: `[{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L423
		{name: `can be negated with not operator (13)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=not.wfts(english).impossible%20or%20fat%20or%20fun`, body: `[{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L461
		{name: `finds matches (2)`, path: `/tsearch_to_tsvector?select=text_search&text_search=phfts.The%20Fat%20Cats`, body: `[{"text_search":"Fat cats ate rats"}]`},
		// L461
		{name: `finds matches (3)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=phfts.The%20Fat%20Cats`, body: `[{"jsonb_search":{"text_search":"Fat cats ate rats"}}]`},
		// L468
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (7)`, path: `/tsearch_to_tsvector?select=text_search&text_search=phfts(german).Art%20Spass`, body: `[{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L468
		{name: `finds matches with different dictionaries and uses them as configuration for to_tsvector() (8)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=phfts(german).Art%20Spass`, body: `[{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L476
		{name: `can be negated with not operator (14)`, path: `/tsearch_to_tsvector?select=text_search&text_search=not.phfts(english).The%20Fat%20Cats`, body: `[{"text_search":"It's kind of fun to do the impossible"},{"text_search":"But also fun to do what is possible"},{"text_search":"C'est un peu amusant de faire l'impossible"},{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L476
		{name: `can be negated with not operator (15)`, path: `/tsearch_to_tsvector?select=jsonb_search&jsonb_search=not.phfts(english).The%20Fat%20Cats`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}},{"jsonb_search":{"text_search":"But also fun to do what is possible"}},{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}},{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L494
		{name: `can be used with or query param (2)`, path: `/tsearch_to_tsvector?select=text_search&or=(text_search.phfts(german).Art%20Spass,%20text_search.phfts(french).amusant,%20text_search.fts(english).impossible)`, body: `[{"text_search":"It's kind of fun to do the impossible"},{"text_search":"C'est un peu amusant de faire l'impossible"},{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}]`},
		// L494
		{name: `can be used with or query param (3)`, path: `/tsearch_to_tsvector?select=jsonb_search&or=(jsonb_search.phfts(german).Art%20Spass,%20jsonb_search.phfts(french).amusant,%20jsonb_search.fts(english).impossible)`, body: `[{"jsonb_search":{"text_search":"It's kind of fun to do the impossible"}},{"jsonb_search":{"text_search":"C'est un peu amusant de faire l'impossible"}},{"jsonb_search":{"text_search":"Es ist eine Art Spaß, das Unmögliche zu machen"}}]`},
		// L510
		{name: `matches with computed column`, path: `/items?always_true=eq.true&order=id.asc`, body: `[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5},{"id":6},{"id":7},{"id":8},{"id":9},{"id":10},{"id":11},{"id":12},{"id":13},{"id":14},{"id":15}]`},
		// L515
		{name: `order by computed column`, path: `/items?order=anti_id.desc`, body: `[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5},{"id":6},{"id":7},{"id":8},{"id":9},{"id":10},{"id":11},{"id":12},{"id":13},{"id":14},{"id":15}]`},
		// L520
		{name: `cannot access a computed column that is outside of the config schema`, path: `/items?always_false=is.false`, status: 400, anyBody: true},
		// L523
		{name: `matches filtering nested items`, path: `/clients?select=id,projects(id,tasks(id,name))&projects.tasks.name=like.Design*`, body: `[{"id":1,"projects":[{"id":1,"tasks":[{"id":1,"name":"Design w7"}]},{"id":2,"tasks":[{"id":3,"name":"Design w10"}]}]},{"id":2,"projects":[{"id":3,"tasks":[{"id":5,"name":"Design IOS"}]},{"id":4,"tasks":[{"id":7,"name":"Design OSX"}]}]}]`},
		// L528
		{name: `errs when the embedded resource doesn't exist and an embedded filter is applied to it`, path: `/clients?select=*&non_existent_projects.name=like.*NonExistent*`, status: 400, body: `{"hint":"Verify that 'non_existent_projects' is included in the 'select' query parameter.","details":null,"code":"PGRST108","message":"'non_existent_projects' is not an embedded resource in this request"}`, match: map[string]string{`Content-Length`: `204`}},
		// L528
		{name: `errs when the embedded resource doesn't exist and an embedded filter is applied to it (2)`, path: `/clients?select=*,amiga_projects:projects(*)&amiga_projectsss.name=ilike.*Amiga*`, status: 400, body: `{"hint":"Verify that 'amiga_projectsss' is included in the 'select' query parameter.","details":null,"code":"PGRST108","message":"'amiga_projectsss' is not an embedded resource in this request"}`},
		// L528
		{name: `errs when the embedded resource doesn't exist and an embedded filter is applied to it (3)`, path: `/clients?select=id,projects(id,tasks(id,name))&projects.tasks2.name=like.Design*`, status: 400, body: `{"hint":"Verify that 'tasks2' is included in the 'select' query parameter.","details":null,"code":"PGRST108","message":"'tasks2' is not an embedded resource in this request"}`},
		// L560
		{name: `matches with cs operator`, path: `/complex_items?select=id&arr_data=cs.{2}`, body: `[{"id":2},{"id":3}]`},
		// L565
		{name: `matches with cd operator`, path: `/complex_items?select=id&arr_data=cd.{1,2,4}`, body: `[{"id":1},{"id":2}]`},
		// L570
		{name: `matches with IS DISTINCT FROM`, path: `/no_pk?select=a&a=isdistinct.2`, body: `[{"a":null},{"a":"1"}]`},
		// L575
		{name: `matches with IS DISTINCT FROM using not operator`, path: `/no_pk?select=a&a=not.isdistinct.2`, body: `[{"a":"2"}]`},
		// L582
		{name: `selectStar works in absense of parameter`, path: `/complex_items?id=eq.3`, body: `[{"id":3,"name":"Three","settings":{"foo":{"int":1,"bar":"baz"}},"arr_data":[1,2,3],"field-with_sep":3}]`},
		// L585
		{name: "dash `-` in column names is accepted", path: `/complex_items?id=eq.3&select=id,field-with_sep`, body: `[{"id":3,"field-with_sep":3}]`},
		// L589
		{name: `one simple column`, path: `/complex_items?select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L594
		{name: `rename simple column`, path: `/complex_items?id=eq.1&select=myId:id`, body: `[{"myId":1}]`},
		// L599
		{name: `one simple column with casting (text)`, path: `/complex_items?select=id::text`, body: `[{"id":"1"},{"id":"2"},{"id":"3"}]`},
		// L604
		{name: `rename simple column with casting`, path: `/complex_items?id=eq.1&select=myId:id::text`, body: `[{"myId":"1"}]`},
		// L609
		{name: `json column`, path: `/complex_items?id=eq.1&select=settings`, body: `[{"settings":{"foo":{"int":1,"bar":"baz"}}}]`},
		// L614
		{name: `fails on bad casting (wrong cast type)`, path: `/complex_items?select=id::fakecolumntype`, status: 400, body: `{"hint":null,"details":null,"code":"42704","message":"type \"fakecolumntype\" does not exist"}`, match: map[string]string{`Content-Length`: `94`}},
		// L628
		// The spec also checks Content-Length 141: jsonb's spaces in the
		// embedded objects, a deliberate difference (see the README).
		{name: `requesting parents and children`, path: `/projects?id=eq.1&select=id,%20name,%20clients(*),%20tasks(id,%20name)`, body: `[{"id":1,"name":"Windows 7","clients":{"id":1,"name":"Microsoft"},"tasks":[{"id":1,"name":"Design w7"},{"id":2,"name":"Code w7"}]}]`},
		// L637
		{name: `requesting parent and renaming primary key`, path: `/projects?select=name,client:clients(clientId:id,name)`, body: `[{"name":"Windows 7","client":{"name":"Microsoft","clientId":1}},{"name":"Windows 10","client":{"name":"Microsoft","clientId":1}},{"name":"IOS","client":{"name":"Apple","clientId":2}},{"name":"OSX","client":{"name":"Apple","clientId":2}},{"name":"Orphan","client":null}]`},
		// L656
		{name: `requesting parents and children while renaming them`, path: `/projects?id=eq.1&select=myId:id,%20name,%20project_client:clients(*),%20project_tasks:tasks(id,%20name)`, body: `[{"myId":1,"name":"Windows 7","project_client":{"id":1,"name":"Microsoft"},"project_tasks":[{"id":1,"name":"Design w7"},{"id":2,"name":"Code w7"}]}]`},
		// L661
		{name: `requesting parents and filtering parent columns`, path: `/projects?id=eq.1&select=id,%20name,%20clients(id)`, body: `[{"id":1,"name":"Windows 7","clients":{"id":1}}]`},
		// L665
		{name: `rows with missing parents are included`, path: `/projects?id=in.(1,5)&select=id,clients(id)`, body: `[{"id":1,"clients":{"id":1}},{"id":5,"clients":null}]`},
		// L670
		{name: `rows with no children return [] instead of null`, path: `/projects?id=in.(5)&select=id,tasks(id)`, body: `[{"id":5,"tasks":[]}]`},
		// L674
		{name: `requesting children 2 levels`, path: `/clients?id=eq.1&select=id,projects(id,tasks(id))`, body: `[{"id":1,"projects":[{"id":1,"tasks":[{"id":1},{"id":2}]},{"id":2,"tasks":[{"id":3},{"id":4}]}]}]`},
		// L679
		{name: `requesting many<->many relation`, path: `/tasks?select=id,users(id)`, body: `[{"id":1,"users":[{"id":1},{"id":3}]},{"id":2,"users":[{"id":1}]},{"id":3,"users":[{"id":1}]},{"id":4,"users":[{"id":1}]},{"id":5,"users":[{"id":2},{"id":3}]},{"id":6,"users":[{"id":2}]},{"id":7,"users":[{"id":2}]},{"id":8,"users":[]}]`},
		// L684
		{name: `requesting many<->many relation with rename`, path: `/tasks?id=eq.1&select=id,theUsers:users(id)`, body: `[{"id":1,"theUsers":[{"id":1},{"id":3}]}]`},
		// L689
		{name: `requesting many<->many relation reverse`, path: `/users?select=id,tasks(id)`, body: `[{"id":1,"tasks":[{"id":1},{"id":2},{"id":3},{"id":4}]},{"id":2,"tasks":[{"id":5},{"id":6},{"id":7}]},{"id":3,"tasks":[{"id":1},{"id":5}]}]`},
		// L767
		{name: `computed column on table`, path: `/items?id=eq.1&select=id,always_true`, body: `[{"id":1,"always_true":true}]`},
		// L771
		{name: `computed column on rpc`, path: `/rpc/search?id=1&select=id,always_true`, body: `[{"id":1,"always_true":true}]`},
		// L776
		{name: `overloaded computed columns on both tables`, path: `/items?id=eq.1&select=id,computed_overload`, body: `[{"id":1,"computed_overload":true}]`},
		// L776
		{name: `overloaded computed columns on both tables (2)`, path: `/items2?id=eq.1&select=id,computed_overload`, body: `[{"id":1,"computed_overload":true}]`},
		// L784
		{name: `overloaded computed column on rpc`, path: `/rpc/search?id=1&select=id,computed_overload`, body: `[{"id":1,"computed_overload":true}]`},
		// L1030
		{name: `works with many to many relation`, path: `/users?select=id,designTasks:tasks(id,name),codeTasks:tasks(id,name)&designTasks.name=like.*Design*&codeTasks.name=like.*Code*`, body: `[{"id":1,"designTasks":[{"id":1,"name":"Design w7"},{"id":3,"name":"Design w10"}],"codeTasks":[{"id":2,"name":"Code w7"},{"id":4,"name":"Code w10"}]},{"id":2,"designTasks":[{"id":5,"name":"Design IOS"},{"id":7,"name":"Design OSX"}],"codeTasks":[{"id":6,"name":"Code IOS"}]},{"id":3,"designTasks":[{"id":1,"name":"Design w7"},{"id":5,"name":"Design IOS"}],"codeTasks":[]}]`},
		// L1044
		{name: `works with an aliased child plus non aliased child`, path: `/projects?select=id,name,designTasks:tasks(name,users(id,name))&designTasks.name=like.*Design*&designTasks.users.id=in.(1,2)`, body: `[{"id":1,"name":"Windows 7","designTasks":[{"name":"Design w7","users":[{"id":1,"name":"Angela Martin"}]}]},{"id":2,"name":"Windows 10","designTasks":[{"name":"Design w10","users":[{"id":1,"name":"Angela Martin"}]}]},{"id":3,"name":"IOS","designTasks":[{"name":"Design IOS","users":[{"id":2,"name":"Michael Scott"}]}]},{"id":4,"name":"OSX","designTasks":[{"name":"Design OSX","users":[{"id":2,"name":"Michael Scott"}]}]},{"id":5,"name":"Orphan","designTasks":[]}]`},
		// L1080
		{name: `by a column asc`, path: `/items?id=lte.2&order=id.asc`, body: `[{"id":1},{"id":2}]`, match: map[string]string{`Content-Range`: `0-1/*`}},
		// L1086
		{name: `by a column desc`, path: `/items?id=lte.2&order=id.desc`, body: `[{"id":2},{"id":1}]`, match: map[string]string{`Content-Range`: `0-1/*`}},
		// L1094
		{name: `by a column with nulls first`, path: `/no_pk?order=a.nullsfirst`, body: `[{"a":null,"b":null},{"a":"1","b":"0"},{"a":"2","b":"0"}]`, match: map[string]string{`Content-Range`: `0-2/*`}},
		// L1104
		{name: `by a column asc with nulls last`, path: `/no_pk?order=a.asc.nullslast`, body: `[{"a":"1","b":"0"},{"a":"2","b":"0"},{"a":null,"b":null}]`, match: map[string]string{`Content-Range`: `0-2/*`}},
		// L1113
		{name: `by a column desc with nulls first`, path: `/no_pk?order=a.desc.nullsfirst`, body: `[{"a":null,"b":null},{"a":"2","b":"0"},{"a":"1","b":"0"}]`, match: map[string]string{`Content-Range`: `0-2/*`}},
		// L1122
		{name: `by a column desc with nulls last`, path: `/no_pk?order=a.desc.nullslast`, body: `[{"a":"2","b":"0"},{"a":"1","b":"0"},{"a":null,"b":null}]`, match: map[string]string{`Content-Range`: `0-2/*`}},
		// L1131
		{name: `by two columns with nulls and direction specified`, path: `/projects?select=client_id,id,name&order=client_id.desc.nullslast,id.desc`, body: `[{"client_id":2,"id":4,"name":"OSX"},{"client_id":2,"id":3,"name":"IOS"},{"client_id":1,"id":2,"name":"Windows 10"},{"client_id":1,"id":1,"name":"Windows 7"},{"client_id":null,"id":5,"name":"Orphan"}]`, match: map[string]string{`Content-Range`: `0-4/*`}},
		// L1144
		{name: `by a column with no direction or nulls specified`, path: `/items?id=lte.2&order=id`, body: `[{"id":1},{"id":2}]`, match: map[string]string{`Content-Range`: `0-1/*`}},
		// L1151
		{name: `without other constraints`, path: `/items?order=id.asc`, anyBody: true},
		// L1154
		{name: `ordering embeded entities`, path: `/projects?id=eq.1&select=id,%20name,%20tasks(id,%20name)&tasks.order=name.asc`, body: `[{"id":1,"name":"Windows 7","tasks":[{"id":2,"name":"Code w7"},{"id":1,"name":"Design w7"}]}]`},
		// L1159
		{name: `ordering embeded entities with alias`, path: `/projects?id=eq.1&select=id,%20name,%20the_tasks:tasks(id,%20name)&the_tasks.order=name.asc`, body: `[{"id":1,"name":"Windows 7","the_tasks":[{"id":2,"name":"Code w7"},{"id":1,"name":"Design w7"}]}]`},
		// L1164
		{name: `ordering embeded entities, two levels`, path: `/projects?id=eq.1&select=id,%20name,%20tasks(id,%20name,%20users(id,%20name))&tasks.order=name.asc&tasks.users.order=name.desc`, body: `[{"id":1,"name":"Windows 7","tasks":[{"id":2,"name":"Code w7","users":[{"id":1,"name":"Angela Martin"}]},{"id":1,"name":"Design w7","users":[{"id":3,"name":"Dwight Schrute"},{"id":1,"name":"Angela Martin"}]}]}]`},
		// L1169
		{name: `ordering embeded parents does not break things`, path: `/projects?id=eq.1&select=id,%20name,%20clients(id,%20name)&clients.order=name.asc`, body: `[{"id":1,"name":"Windows 7","clients":{"id":1,"name":"Microsoft"}}]`},
		// L1173
		{name: `gives meaningful error message on bad syntax`, path: `/items?order=id.asc.nullslasttt`, status: 400, body: `{"details":"unexpected 't' expecting \",\" or end of input","message":"\"failed to parse order (id.asc.nullslasttt)\" (line 1, column 17)","code":"PGRST100","hint":null}`, match: map[string]string{`Content-Length`: `169`}},
		// L1183
		{name: `filters, orders and limits aliased embeded entities using the target name`, path: `/projects?id=eq.1&select=id,%20name,%20the_tasks:tasks(id,%20name)&tasks.name=like.Code*&tasks.order=name.asc&tasks.limit=1`, body: `[{"id":1,"name":"Windows 7","the_tasks":[{"id":2,"name":"Code w7"}]}]`},
		// L1192
		{name: `should respond an unknown accept type with 406`, path: `/simple_pk`, header: []string{`Accept`, `text/unknowntype`}, status: 406, body: `{"message":"None of these media types are available: text/unknowntype","code":"PGRST107","details":null,"hint":null}`, match: map[string]string{`Content-Length`: `116`}},
		// L1203
		{name: `should respond correctly to */* in accept header`, path: `/simple_pk`, header: []string{`Accept`, `*/*`}, anyBody: true},
		// L1208
		{name: `*/* should rescue an unknown type`, path: `/simple_pk`, header: []string{`Accept`, `text/unknowntype, */*`}, anyBody: true},
		// L1229
		{name: `should respond correctly to multiple types in accept header`, path: `/simple_pk`, header: []string{`Accept`, `text/unknowntype, text/csv`}, anyBody: true},
		// L1234
		{name: `should respond with CSV to 'text/csv' request`, path: `/simple_pk?order=k.desc`, header: []string{`Accept`, `text/csv; version=1`}, raw: true, body: "k,extra\nxyyx,u\nxYYx,v", match: map[string]string{`Content-Type`: `text/csv; charset=utf-8`, `Content-Length`: `21`}},
		// L1247
		{name: `Sets Content-Location with alphabetized params`, path: `/no_pk?b=eq.1&a=eq.1`, raw: true, body: `[]`, match: map[string]string{`Content-Location`: `/no_pk?a=eq.1&b=eq.1`}},
		// L1302
		{name: `succeeds when only quoted values are present`, path: `/w_or_wo_comma_names?name=in.("Hebdon,%20John")`, body: `[{"name":"Hebdon, John"}]`},
		// L1302
		{name: `succeeds when only quoted values are present (2)`, path: `/w_or_wo_comma_names?name=in.("Hebdon,%20John","Williams,%20Mary","Smith,%20Joseph")`, body: `[{"name":"Hebdon, John"},{"name":"Williams, Mary"},{"name":"Smith, Joseph"}]`},
		// L1302
		{name: `succeeds when only quoted values are present (3)`, path: `/w_or_wo_comma_names?name=not.in.("Hebdon,%20John","Williams,%20Mary","Smith,%20Joseph")&limit=3`, body: `[{"name":"David White"},{"name":"Larry Thompson"},{"name":"Double O Seven(007)"}]`},
		// L1312
		{name: `succeeds w/ and w/o quoted values`, path: `/w_or_wo_comma_names?name=in.(David%20White,"Hebdon,%20John")`, body: `[{"name":"Hebdon, John"},{"name":"David White"}]`},
		// L1312
		{name: `succeeds w/ and w/o quoted values (2)`, path: `/w_or_wo_comma_names?name=not.in.("Hebdon,%20John",Larry%20Thompson,"Smith,%20Joseph")&limit=3`, body: `[{"name":"Williams, Mary"},{"name":"David White"},{"name":"Double O Seven(007)"}]`},
		// L1312
		{name: `succeeds w/ and w/o quoted values (3)`, path: `/w_or_wo_comma_names?name=in.("Double%20O%20Seven(007)")`, body: `[{"name":"Double O Seven(007)"}]`},
		// L1325
		{name: `accepts escaped double quotes`, path: `/w_or_wo_comma_names?name=in.("Double\"Quote\"McGraw\"")`, body: `[{"name":"Double\"Quote\"McGraw\""}]`},
		// L1329
		{name: `accepts escaped backslashes`, path: `/w_or_wo_comma_names?name=in.("\\")`, body: `[{"name":"\\"}]`},
		// L1329
		{name: `accepts escaped backslashes (2)`, path: `/w_or_wo_comma_names?name=in.("/\\Slash/\\Beast/\\")`, body: `[{"name":"/\\Slash/\\Beast/\\"}]`},
		// L1337
		{name: `passes any escaped char as the same char`, path: `/w_or_wo_comma_names?name=in.("D\a\vid%20W\h\ite")`, body: `[{"name":"David White"}]`},
		// L1344
		{name: `accepts single double quotes as values`, path: `/w_or_wo_comma_names?name=in.(")`, body: `[{"name":"\""}]`},
		// L1344
		{name: `accepts single double quotes as values (2)`, path: `/w_or_wo_comma_names?name=in.(Double"Quote"McGraw")`, body: `[{"name":"Double\"Quote\"McGraw\""}]`},
		// L1351
		{name: `accepts backslashes as values`, path: `/w_or_wo_comma_names?name=in.(\)`, body: `[{"name":"\\"}]`},
		// L1351
		{name: `accepts backslashes as values (2)`, path: `/w_or_wo_comma_names?name=in.(/\Slash/\Beast/\)`, body: `[{"name":"/\\Slash/\\Beast/\\"}]`},
		// L1362
		{name: `works for integer`, path: `/items_with_different_col_types?int_data=in.()`, body: `[]`},
		// L1365
		{name: `works for text`, path: `/items_with_different_col_types?text_data=in.()`, body: `[]`},
		// L1368
		{name: `works for bool`, path: `/items_with_different_col_types?bool_data=in.()`, body: `[]`},
		// L1371
		{name: `works for bytea`, path: `/items_with_different_col_types?bin_data=in.()`, body: `[]`},
		// L1374
		{name: `works for char`, path: `/items_with_different_col_types?char_data=in.()`, body: `[]`},
		// L1377
		{name: `works for date`, path: `/items_with_different_col_types?date_data=in.()`, body: `[]`},
		// L1380
		{name: `works for real`, path: `/items_with_different_col_types?real_data=in.()`, body: `[]`},
		// L1383
		{name: `works for time`, path: `/items_with_different_col_types?time_data=in.()`, body: `[]`},
		// L1386
		{name: `returns all results for not.in when no value is present`, path: `/items_with_different_col_types?int_data=not.in.()&select=int_data`, body: `[{"int_data":1}]`},
		// L1390
		{name: `returns an empty result ignoring spaces`, path: `/items_with_different_col_types?int_data=in.(%20%20%20%20)`, body: `[]`},
		// L1394
		{name: `only returns an empty result set if the in value is empty`, path: `/items_with_different_col_types?int_data=in.(%20,3,4)`, status: 400, body: `{"hint":null,"details":null,"code":"22P02","message":"invalid input syntax for type integer: \"\""}`},
		// L1507
		{name: `works with the eq operator`, path: `/projects?id=eq(any).{3,4,5}`, body: `[{"id":3,"name":"IOS","client_id":2},{"id":4,"name":"OSX","client_id":2},{"id":5,"name":"Orphan","client_id":null}]`},
		// L1515
		{name: `works with the gt/gte operator`, path: `/projects?id=gt(all).{4,3}`, body: `[{"id":5,"name":"Orphan","client_id":null}]`},
		// L1515
		{name: `works with the gt/gte operator (2)`, path: `/projects?id=gte(all).{4,3}`, body: `[{"id":4,"name":"OSX","client_id":2},{"id":5,"name":"Orphan","client_id":null}]`},
		// L1523
		{name: `works with the lt/lte operator`, path: `/projects?id=lt(all).{4,3}`, body: `[{"id":1,"name":"Windows 7","client_id":1},{"id":2,"name":"Windows 10","client_id":1}]`},
		// L1523
		{name: `works with the lt/lte operator (2)`, path: `/projects?id=lte(all).{4,3}`, body: `[{"id":1,"name":"Windows 7","client_id":1},{"id":2,"name":"Windows 10","client_id":1},{"id":3,"name":"IOS","client_id":2}]`},
	})
}
