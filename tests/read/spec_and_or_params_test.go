package read

import "testing"

// TestAndOrParamsSpec mirrors PostgREST v16.2's
// test/spec/Feature/Query/AndOrParamsSpec.hs: and/or (and their not.)
// at the root and in embeds, with every operator, through GET, RPC,
// POST and PATCH. As under the spec's baseCfg, every transaction rolls
// back, so its writes leave no row. A comment gives each case's line.
func TestAndOrParamsSpec(t *testing.T) {
	s := startSpecServer(t, "db_tx_end rollback-allow-override")
	runSpecRequests(t, s, []specRequest{
		// L17
		{name: `can do simple logic`, path: `/entities?or=(id.eq.1,id.eq.2)&select=id`, body: `[{"id":1},{"id":2}]`},
		// L20
		{name: `can negate simple logic`, path: `/entities?not.or=(id.eq.1,id.eq.2)&select=id`, body: `[{"id":3},{"id":4}]`},
		// L23
		{name: `can be combined with traditional filters`, path: `/entities?or=(id.eq.1,id.eq.2)&name=eq.entity%201&select=id`, body: `[{"id":1}]`},
		// L28
		{name: `can do logic on the second level`, path: `/entities?child_entities.or=(id.eq.1,name.eq.child%20entity%202)&select=id,child_entities(id)`, body: `[{"id":1,"child_entities":[{"id":1},{"id":2}]},{"id":2,"child_entities":[]},{"id":3,"child_entities":[]},{"id":4,"child_entities":[]}]`},
		// L34
		{name: `can do logic on the third level`, path: `/entities?child_entities.grandchild_entities.or=(id.eq.1,id.eq.2)&select=id,child_entities(id,grandchild_entities(id))`, body: `[{"id":1,"child_entities":[{"id":1,"grandchild_entities":[{"id":1},{"id":2}]},{"id":2,"grandchild_entities":[]},{"id":4,"grandchild_entities":[]},{"id":5,"grandchild_entities":[]}]},{"id":2,"child_entities":[{"id":3,"grandchild_entities":[]},{"id":6,"grandchild_entities":[]}]},{"id":3,"child_entities":[]},{"id":4,"child_entities":[]}]`},
		// L54
		{name: `can be nested inside the same expression`, path: `/entities?or=(and(name.eq.entity%202,id.eq.2),and(name.eq.entity%201,id.eq.1))&select=id`, body: `[{"id":1},{"id":2}]`},
		// L57
		{name: `can be negated while nested`, path: `/entities?or=(not.and(name.eq.entity%202,id.eq.2),not.and(name.eq.entity%201,id.eq.1))&select=id`, body: `[{"id":1},{"id":2},{"id":3},{"id":4}]`},
		// L60
		{name: `can be combined unnested`, path: `/entities?and=(id.eq.1,name.eq.entity%201)&or=(id.eq.1,id.eq.2)&select=id`, body: `[{"id":1}]`},
		// L65
		{name: `can handle eq and neq`, path: `/entities?and=(id.eq.1,id.neq.2))&select=id`, body: `[{"id":1}]`},
		// L68
		{name: `can handle lt and gt`, path: `/entities?or=(id.lt.2,id.gt.3)&select=id`, body: `[{"id":1},{"id":4}]`},
		// L71
		{name: `can handle lte and gte`, path: `/entities?or=(id.lte.2,id.gte.3)&select=id`, body: `[{"id":1},{"id":2},{"id":3},{"id":4}]`},
		// L74
		{name: `can handle like and ilike`, path: `/entities?or=(name.like.*1,name.ilike.*ENTITY%202)&select=id`, body: `[{"id":1},{"id":2}]`},
		// L77
		{name: `can handle in`, path: `/entities?or=(id.in.(1,2),id.in.(3,4))&select=id`, body: `[{"id":1},{"id":2},{"id":3},{"id":4}]`},
		// L80
		{name: `can handle is`, path: `/entities?and=(name.is.null,arr.is.null)&select=id`, body: `[{"id":4}]`},
		// L83
		{name: `can handle fts on tsvector columns`, path: `/entities?or=(text_search_vector.fts.bar,text_search_vector.fts.baz)&select=id`, body: `[{"id":1},{"id":2}]`},
		// L83
		{name: `can handle fts on tsvector columns (2)`, path: `/tsearch?or=(text_search_vector.plfts(german).Art%20Spass,%20text_search_vector.plfts(french).amusant%20impossible,%20text_search_vector.fts(english).impossible)`, body: `[{"text_search_vector":"'fun':5 'imposs':9 'kind':3"},{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L92
		{name: `can handle fts on text and json columns`, path: `/grandchild_entities?or=(jsonb_col.fts.bar,jsonb_col.fts.foo)&select=jsonb_col`, body: `[{"jsonb_col":{"a":{"b":"foo"}}},{"jsonb_col":{"b":"bar"}}]`},
		// L92
		{name: `can handle fts on text and json columns (2)`, path: `/tsearch_to_tsvector?and=(text_search.not.plfts(german).Art%20Spass,%20text_search.not.plfts(french).amusant%20impossible,%20text_search.not.fts(english).impossible)&select=text_search`, body: `[{"text_search":"But also fun to do what is possible"},{"text_search":"Fat cats ate rats"}]`},
		// L103
		{name: `can handle isdistinct`, path: `/entities?and=(id.gte.2,arr.isdistinct.{1,2})&select=id`, body: `[{"id":3},{"id":4}]`},
		// L106
		{name: `can handle wfts (websearch_to_tsquery)`, path: `/tsearch?or=(text_search_vector.plfts(german).Art,text_search_vector.plfts(french).amusant,text_search_vector.not.wfts(english).impossible)`, body: `[{"text_search_vector":"'also':2 'fun':3 'possibl':8"},{"text_search_vector":"'ate':3 'cat':2 'fat':1 'rat':4"},{"text_search_vector":"'amus':5 'fair':7 'impossibl':9 'peu':4"},{"text_search_vector":"'art':4 'spass':5 'unmog':7"}]`},
		// L117
		{name: `can handle cs and cd`, path: `/entities?or=(arr.cs.{1,2,3},arr.cd.{1})&select=id`, body: `[{"id":1},{"id":3}]`},
		// L121
		{name: `can handle range operators`, path: `/ranges?range=eq.[1,3]&select=id`, body: `[{"id":1}]`},
		// L121
		{name: `can handle range operators (2)`, path: `/ranges?range=neq.[1,3]&select=id`, body: `[{"id":2},{"id":3},{"id":4}]`},
		// L121
		{name: `can handle range operators (3)`, path: `/ranges?range=lt.[1,10]&select=id`, body: `[{"id":1}]`},
		// L121
		{name: `can handle range operators (4)`, path: `/ranges?range=gt.[8,11]&select=id`, body: `[{"id":4}]`},
		// L121
		{name: `can handle range operators (5)`, path: `/ranges?range=lte.[1,3]&select=id`, body: `[{"id":1}]`},
		// L121
		{name: `can handle range operators (6)`, path: `/ranges?range=gte.[2,3]&select=id`, body: `[{"id":2},{"id":3},{"id":4}]`},
		// L121
		{name: `can handle range operators (7)`, path: `/ranges?range=cs.[1,2]&select=id`, body: `[{"id":1}]`},
		// L121
		{name: `can handle range operators (8)`, path: `/ranges?range=cd.[1,6]&select=id`, body: `[{"id":1},{"id":2}]`},
		// L121
		{name: `can handle range operators (9)`, path: `/ranges?range=ov.[0,4]&select=id`, body: `[{"id":1},{"id":2}]`},
		// L121
		{name: `can handle range operators (10)`, path: `/ranges?range=sl.[9,10]&select=id`, body: `[{"id":1},{"id":2}]`},
		// L121
		{name: `can handle range operators (11)`, path: `/ranges?range=sr.[3,4]&select=id`, body: `[{"id":3},{"id":4}]`},
		// L121
		{name: `can handle range operators (12)`, path: `/ranges?range=nxr.[4,7]&select=id`, body: `[{"id":1},{"id":2}]`},
		// L121
		{name: `can handle range operators (13)`, path: `/ranges?range=nxl.[4,7]&select=id`, body: `[{"id":3},{"id":4}]`},
		// L121
		{name: `can handle range operators (14)`, path: `/ranges?range=adj.(3,10]&select=id`, body: `[{"id":1}]`},
		// L121
		{name: `can handle range operators (15)`, path: `/ranges?range=isdistinct.[1,3]&select=id`, body: `[{"id":2},{"id":3},{"id":4},{"id":5}]`},
		// L153
		{name: `can handle array operators`, path: `/entities?arr=eq.{1,2,3}&select=id`, body: `[{"id":3}]`},
		// L153
		{name: `can handle array operators (2)`, path: `/entities?arr=neq.{1,2}&select=id`, body: `[{"id":1},{"id":3}]`},
		// L153
		{name: `can handle array operators (3)`, path: `/entities?arr=lt.{2,3}&select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (4)`, path: `/entities?arr=lt.{2,0}&select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (5)`, path: `/entities?arr=gt.{1,1}&select=id`, body: `[{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (6)`, path: `/entities?arr=gt.{3}&select=id`, body: `[]`},
		// L153
		{name: `can handle array operators (7)`, path: `/entities?arr=lte.{2,1}&select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (8)`, path: `/entities?arr=lte.{1,2,3}&select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (9)`, path: `/entities?arr=lte.{1,2}&select=id`, body: `[{"id":1},{"id":2}]`},
		// L153
		{name: `can handle array operators (10)`, path: `/entities?arr=cs.{1,2}&select=id`, body: `[{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (11)`, path: `/entities?arr=cd.{1,2,6}&select=id`, body: `[{"id":1},{"id":2}]`},
		// L153
		{name: `can handle array operators (12)`, path: `/entities?arr=ov.{3}&select=id`, body: `[{"id":3}]`},
		// L153
		{name: `can handle array operators (13)`, path: `/entities?arr=ov.{2,3}&select=id`, body: `[{"id":2},{"id":3}]`},
		// L153
		{name: `can handle array operators (14)`, path: `/entities?arr=isdistinct.{1,2}&select=id`, body: `[{"id":1},{"id":3},{"id":4}]`},
		// L185
		{name: `eq, cs, like can be negated`, path: `/entities?and=(arr.not.cs.{1,2,3},and(id.not.eq.2,name.not.like.*3))&select=id`, body: `[{"id":1}]`},
		// L188
		{name: `in, is, fts can be negated`, path: `/entities?and=(id.not.in.(1,3),and(name.not.is.null,text_search_vector.not.fts.foo))&select=id`, body: `[{"id":2}]`},
		// L191
		{name: `lt, gte, cd can be negated`, path: `/entities?and=(arr.not.cd.{1},or(id.not.lt.1,id.not.gte.3))&select=id`, body: `[{"id":2},{"id":3}]`},
		// L194
		{name: `gt, lte, ilike can be negated`, path: `/entities?and=(name.not.ilike.*ITY2,or(id.not.gt.4,id.not.lte.1))&select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L197
		{name: `isdistinct can be negated`, path: `/entities?and=(id.not.eq.2,arr.not.isdistinct.{1,2,3})&select=id`, body: `[{"id":3}]`},
		// L202
		{name: `eq can have quotes`, path: `/grandchild_entities?or=(name.eq."(grandchild,entity,4)",name.eq."(grandchild,entity,5)")&select=id`, body: `[{"id":4},{"id":5}]`},
		// L205
		{name: `like and ilike can have quotes`, path: `/grandchild_entities?or=(name.like."*ity,4*",name.ilike."*ITY,5)")&select=id`, body: `[{"id":4},{"id":5}]`},
		// L208
		{name: `in can have quotes`, path: `/grandchild_entities?or=(id.in.("1","2"),id.in.("3","4"))&select=id`, body: `[{"id":1},{"id":2},{"id":3},{"id":4}]`},
		// L211
		{name: `allows whitespace`, path: `/entities?and=(%20and%20(%20id.in.(%201,%202,%203%20)%20,%20id.eq.3%20)%20,%20or%20(%20id.eq.2%20,%20id.eq.3%20)%20)&select=id`, body: `[{"id":3}]`},
		// L217
		{name: `cannot have zero conditions`, path: `/entities?or=()`, status: 400, body: `{"details":"unexpected \")\" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)","message":"\"failed to parse logic tree (())\" (line 1, column 4)","code":"PGRST100","hint":null}`},
		// L225
		{name: `can have a single condition`, path: `/entities?or=(id.eq.1)&select=id`, body: `[{"id":1}]`},
		// L225
		{name: `can have a single condition (2)`, path: `/entities?and=(id.eq.1)&select=id`, body: `[{"id":1}]`},
		// L230
		{name: `can have three conditions`, path: `/grandchild_entities?or=(id.eq.1,%20id.eq.2,%20id.eq.3)&select=id`, body: `[{"id":1},{"id":2},{"id":3}]`},
		// L230
		{name: `can have three conditions (2)`, path: `/grandchild_entities?and=(id.in.(1,2),%20id.in.(3,1),%20id.in.(1,4))&select=id`, body: `[{"id":1}]`},
		// L235
		{name: `can have four conditions combining and/or`, path: `/grandchild_entities?or=(%20id.eq.1,%20id.eq.2,%20and(id.in.(1,3),%20id.in.(2,3)),%20id.eq.4%20)&select=id`, body: `[{"id":1},{"id":2},{"id":3},{"id":4}]`},
		// L235
		{name: `can have four conditions combining and/or (2)`, path: `/grandchild_entities?and=(%20id.eq.1,%20not.or(id.eq.2,%20id.eq.3),%20id.in.(1,4),%20or(id.eq.1,%20id.eq.4)%20)&select=id`, body: `[{"id":1}]`},
		// L242
		{name: `includes related data with filters`, method: "POST", path: `/child_entities?select=id,entities(id)&entities.or=(id.eq.2,id.eq.3)&entities.order=id`, header: []string{`Prefer`, `return=representation`}, reqBody: `[{"id":7,"name":"entity 4","parent_id":1},{"id":8,"name":"entity 5","parent_id":2},{"id":9,"name":"entity 6","parent_id":3}]`, status: 201, body: `[{"id":7,"entities":null},{"id":8,"entities":{"id":2}},{"id":9,"entities":{"id":3}}]`},
		// L255
		{name: `succeeds when using and/or params`, method: "PATCH", path: `/grandchild_entities?or=(id.eq.1,id.eq.2)&select=id,name`, header: []string{`Prefer`, `return=representation`}, reqBody: `{"name":"updated grandchild entity"}`, body: `[{"id":1,"name":"updated grandchild entity"},{"id":2,"name":"updated grandchild entity"}]`},
		// L261
		{name: `succeeds when the filtered column is modified`, method: "PATCH", path: `/entities?select=id,name&or=(name.is.null,name.like.*test*)`, header: []string{`Prefer`, `return=representation`}, reqBody: `{"name":"updated entity"}`, body: `[{"id":4,"name":"updated entity"}]`},
		// L267
		{name: `succeeds when the filtered column is not selected in the returned representation`, method: "PATCH", path: `/entities?select=id&or=(name.is.null,name.like.*test*)`, header: []string{`Prefer`, `return=representation`}, reqBody: `{"name":"updated entity"}`, body: `[{"id":4}]`},
		// L275
		{name: `succeeds when using and/or params, with DELETE`, method: "DELETE", path: `/grandchild_entities?or=(id.eq.1,id.eq.2)&select=id,name`, header: []string{`Prefer`, `return=representation`}, body: `[{"id":1,"name":"grandchild entity 1"},{"id":2,"name":"grandchild entity 2"}]`},
		// L281
		{name: `succeeds when the filtered column is not selected in the returned representation, with DELETE`, method: "DELETE", path: `/entities?select=id&or=(name.is.null,name.like.*test*)`, header: []string{`Prefer`, `return=representation`}, body: `[{"id":4}]`},
		// L287
		{name: `can query columns that begin with and/or reserved words`, path: `/grandchild_entities?or=(and_starting_col.eq.smth,%20or_starting_col.eq.smth)`, anyBody: true},
	})
}
