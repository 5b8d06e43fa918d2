package read

import (
	"net/http"
	"testing"
)

// TestEmbedInnerJoinSpec mirrors PostgREST v16.2's
// test/spec/Feature/Query/EmbedInnerJoinSpec.hs: !inner embeds on
// many-to-one, one-to-many and many-to-many relationships (of tables,
// views and a call's rows), filtered at one and two levels, with hints
// and next to left embeds, and the exact counts of the same requests by
// HEAD. A comment gives each case's line.
func TestEmbedInnerJoinSpec(t *testing.T) {
	s := startSpecServer(t, "db_tx_end rollback-allow-override")
	runSpecRequests(t, s, []specRequest{
		// L17
		{name: `ignores null embeddings while the default left join doesn't`, path: `/projects?select=id,clients!inner(id)`, body: `[{"id":1,"clients":{"id":1}},{"id":2,"clients":{"id":1}},{"id":3,"clients":{"id":2}},{"id":4,"clients":{"id":2}}]`, match: specJSON},
		// L22
		{name: `ignores null embeddings while the default left join doesn't (2)`, path: `/projects?select=id,clients!left(id)`, body: `[{"id":1,"clients":{"id":1}},{"id":2,"clients":{"id":1}},{"id":3,"clients":{"id":2}},{"id":4,"clients":{"id":2}},{"id":5,"clients":null}]`, match: specJSON},
		// L28
		{name: `ignores null embeddings while the default left join doesn't (3)`, method: http.MethodHead, path: `/projects?select=id,clients!inner(id)`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-3/4"}},
		// L36
		{name: `filters source tables when the embedded table is filtered`, path: `/projects?select=id,clients!inner(id)&clients.id=eq.1`, body: `[{"id":1,"clients":{"id":1}},{"id":2,"clients":{"id":1}}]`, match: specJSON},
		// L41
		{name: `filters source tables when the embedded table is filtered (2)`, path: `/projects?select=id,clients!inner(id)&clients.id=eq.2`, body: `[{"id":3,"clients":{"id":2}},{"id":4,"clients":{"id":2}}]`, match: specJSON},
		// L46
		{name: `filters source tables when the embedded table is filtered (3)`, path: `/projects?select=id,clients!inner(id)&clients.id=eq.0`, body: `[]`, match: specJSON},
		// L49
		{name: `filters source tables when the embedded table is filtered (4)`, method: http.MethodHead, path: `/projects?select=id,clients!inner(id)&clients.id=eq.1`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L57
		{name: `filters source tables when a two levels below embedded table is filtered`, path: `/tasks?select=id,projects!inner(id,clients!inner(id))&projects.clients.id=eq.1`, body: `[{"id":1,"projects":{"id":1,"clients":{"id":1}}},{"id":2,"projects":{"id":1,"clients":{"id":1}}},{"id":3,"projects":{"id":2,"clients":{"id":1}}},{"id":4,"projects":{"id":2,"clients":{"id":1}}}]`, match: specJSON},
		// L64
		{name: `filters source tables when a two levels below embedded table is filtered (2)`, path: `/tasks?select=id,projects!inner(id,clients!inner(id))&projects.clients.id=eq.2`, body: `[{"id":5,"projects":{"id":3,"clients":{"id":2}}},{"id":6,"projects":{"id":3,"clients":{"id":2}}},{"id":7,"projects":{"id":4,"clients":{"id":2}}},{"id":8,"projects":{"id":4,"clients":{"id":2}}}]`, match: specJSON},
		// L71
		{name: `filters source tables when a two levels below embedded table is filtered (3)`, method: http.MethodHead, path: `/tasks?select=id,projects!inner(id,clients!inner(id))&projects.clients.id=eq.1`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-3/4"}},
		// L79
		{name: `only affects the source table rows if his direct embedding is an inner join`, path: `/tasks?select=id,projects(id,clients!inner(id))&projects.clients.id=eq.2&order=id`, body: `[{"id":1,"projects":null},{"id":2,"projects":null},{"id":3,"projects":null},{"id":4,"projects":null},{"id":5,"projects":{"id":3,"clients":{"id":2}}},{"id":6,"projects":{"id":3,"clients":{"id":2}}},{"id":7,"projects":{"id":4,"clients":{"id":2}}},{"id":8,"projects":{"id":4,"clients":{"id":2}}}]`, match: specJSON},
		// L90
		{name: `only affects the source table rows if his direct embedding is an inner join (2)`, method: http.MethodHead, path: `/tasks?select=id,projects(id,clients!inner(id))&projects.clients.id=eq.2`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-7/8"}},
		// L98
		{name: `works with views`, path: `/books?select=title,authors!inner(name)&authors.name=eq.George%20Orwell`, body: `[{"title":"1984","authors":{"name":"George Orwell"}}]`, match: specJSON},
		// L101
		{name: `works with views (2)`, method: http.MethodHead, path: `/books?select=title,authors!inner(name)&authors.name=eq.George%20Orwell`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L110
		{name: `ignores empty array embeddings while the default left join doesn't`, path: `/entities?select=id,child_entities!inner(id)`, body: `[{"id":1,"child_entities":[{"id":1},{"id":2},{"id":4},{"id":5}]},{"id":2,"child_entities":[{"id":3},{"id":6}]}]`, match: specJSON},
		// L115
		{name: `ignores empty array embeddings while the default left join doesn't (2)`, path: `/entities?select=id,child_entities!left(id)`, body: `[{"id":1,"child_entities":[{"id":1},{"id":2},{"id":4},{"id":5}]},{"id":2,"child_entities":[{"id":3},{"id":6}]},{"id":3,"child_entities":[]},{"id":4,"child_entities":[]}]`, match: specJSON},
		// L122
		{name: `ignores empty array embeddings while the default left join doesn't (3)`, method: http.MethodHead, path: `/entities?select=id,child_entities!inner(id)`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L130
		{name: `filters source tables when the embedded table is filtered`, path: `/entities?select=id,child_entities!inner(id)&child_entities.id=eq.1`, body: `[{"id":1,"child_entities":[{"id":1}]}]`, match: specJSON},
		// L133
		{name: `filters source tables when the embedded table is filtered (2)`, path: `/entities?select=id,child_entities!inner(id)&child_entities.id=eq.3`, body: `[{"id":2,"child_entities":[{"id":3}]}]`, match: specJSON},
		// L136
		{name: `filters source tables when the embedded table is filtered (3)`, path: `/entities?select=id,child_entities!inner(id)&child_entities.id=eq.0`, body: `[]`, match: specJSON},
		// L139
		{name: `filters source tables when the embedded table is filtered (4)`, method: http.MethodHead, path: `/entities?select=id,child_entities!inner(id)&child_entities.id=eq.1`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L147
		{name: `filters source tables when a two levels below embedded table is filtered`, path: `/entities?select=id,child_entities!inner(id,grandchild_entities!inner(id))&child_entities.grandchild_entities.id=in.(1,5)`, body: `[{"id":1,"child_entities":[{"id":1,"grandchild_entities":[{"id":1}]},{"id":2,"grandchild_entities":[{"id":5}]}]}]`, match: specJSON},
		// L158
		{name: `filters source tables when a two levels below embedded table is filtered (2)`, path: `/entities?select=id,child_entities!inner(id,grandchild_entities!inner(id))&child_entities.grandchild_entities.id=eq.2`, body: `[{"id":1,"child_entities":[{"id":1,"grandchild_entities":[{"id":2}]}]}]`, match: specJSON},
		// L167
		{name: `filters source tables when a two levels below embedded table is filtered (3)`, method: http.MethodHead, path: `/entities?select=id,child_entities!inner(id,grandchild_entities!inner(id))&child_entities.grandchild_entities.id=in.(1,5)`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L175
		{name: `only affects the source table rows if his direct embedding is an inner join`, path: `/entities?select=id,child_entities!inner(id,grandchild_entities(id))&child_entities.grandchild_entities.id=eq.2`, body: `[{"id":1,"child_entities":[{"id":1,"grandchild_entities":[{"id":2}]},{"id":2,"grandchild_entities":[]},{"id":4,"grandchild_entities":[]},{"id":5,"grandchild_entities":[]}]},{"id":2,"child_entities":[{"id":3,"grandchild_entities":[]},{"id":6,"grandchild_entities":[]}]}]`, match: specJSON},
		// L193
		{name: `only affects the source table rows if his direct embedding is an inner join (2)`, method: http.MethodHead, path: `/entities?select=id,child_entities!inner(id,grandchild_entities(id))&child_entities.grandchild_entities.id=eq.2`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L201
		{name: `works with views`, path: `/authors?select=*,books!inner(*)&books.title=eq.1984`, body: `[{"id":1,"name":"George Orwell","books":[{"id":1,"title":"1984","publication_year":1949,"author_id":1,"first_publisher_id":1}]}]`, match: specJSON},
		// L204
		{name: `works with views (2)`, method: http.MethodHead, path: `/authors?select=*,books!inner(*)&books.title=eq.1984`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L213
		{name: `ignores empty array embeddings while the default left join doesn't`, path: `/products?select=id,suppliers!inner(id)`, body: `[{"id":1,"suppliers":[{"id":1},{"id":2}]},{"id":2,"suppliers":[{"id":1},{"id":3}]}]`, match: specJSON},
		// L218
		{name: `ignores empty array embeddings while the default left join doesn't (2)`, path: `/products?select=id,suppliers!left(id)`, body: `[{"id":1,"suppliers":[{"id":1},{"id":2}]},{"id":2,"suppliers":[{"id":1},{"id":3}]},{"id":3,"suppliers":[]}]`, match: specJSON},
		// L224
		{name: `ignores empty array embeddings while the default left join doesn't (3)`, method: http.MethodHead, path: `/products?select=id,suppliers!inner(id)`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L232
		{name: `filters source tables when the embedded table is filtered`, path: `/products?select=id,suppliers!inner(id)&suppliers.id=eq.2`, body: `[{"id":1,"suppliers":[{"id":2}]}]`, match: specJSON},
		// L235
		{name: `filters source tables when the embedded table is filtered (2)`, path: `/products?select=id,suppliers!inner(id)&suppliers.id=eq.3`, body: `[{"id":2,"suppliers":[{"id":3}]}]`, match: specJSON},
		// L238
		{name: `filters source tables when the embedded table is filtered (3)`, path: `/products?select=id,suppliers!inner(id)&suppliers.id=eq.0`, body: `[]`, match: specJSON},
		// L241
		{name: `filters source tables when the embedded table is filtered (4)`, method: http.MethodHead, path: `/products?select=id,suppliers!inner(id)&suppliers.id=eq.2`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L249
		{name: `filters source tables when a two levels below embedded table is filtered`, path: `/products?select=id,suppliers!inner(id,trade_unions!inner(id))&suppliers.trade_unions.id=eq.3`, body: `[{"id":1,"suppliers":[{"id":2,"trade_unions":[{"id":3}]}]}]`, match: specJSON},
		// L253
		{name: `filters source tables when a two levels below embedded table is filtered (2)`, path: `/products?select=id,suppliers!inner(id,trade_unions!inner(id))&suppliers.trade_unions.id=eq.4`, body: `[{"id":1,"suppliers":[{"id":2,"trade_unions":[{"id":4}]}]}]`, match: specJSON},
		// L257
		{name: `filters source tables when a two levels below embedded table is filtered (3)`, method: http.MethodHead, path: `/products?select=id,suppliers!inner(id,trade_unions!inner(id))&suppliers.trade_unions.id=eq.3`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L265
		{name: `only affects the source table rows if his direct embedding is an inner join`, path: `/products?select=id,suppliers!inner(id,trade_unions(id))&suppliers.trade_unions.id=eq.3`, body: `[{"id":1,"suppliers":[{"id":1,"trade_unions":[]},{"id":2,"trade_unions":[{"id":3}]}]},{"id":2,"suppliers":[{"id":1,"trade_unions":[]},{"id":3,"trade_unions":[]}]}]`, match: specJSON},
		// L270
		{name: `only affects the source table rows if his direct embedding is an inner join (2)`, method: http.MethodHead, path: `/products?select=id,suppliers!inner(id,trade_unions(id))&suppliers.trade_unions.id=eq.3`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L278
		{name: `works with views`, path: `/actors?select=*,films!inner(*)&films.title=eq.douze%20commandements`, body: `[{"id":1,"name":"john","films":[{"id":12,"title":"douze commandements"}]}]`, match: specJSON},
		// L281
		{name: `works with views (2)`, path: `/films?select=*,actors!inner(*)&actors.name=eq.john`, body: `[{"id":12,"title":"douze commandements","actors":[{"id":1,"name":"john"}]}]`, match: specJSON},
		// L284
		{name: `works with views (3)`, method: http.MethodHead, path: `/actors?select=*,films!inner(*)&films.title=eq.douze%20commandements`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-0/1"}},
		// L292
		{name: `works with m2o and m2m relationships combined`, path: `/projects?select=name,clients!inner(name),users!inner(name)`, body: `[{"name":"Windows 7","clients":{"name":"Microsoft"},"users":[{"name":"Angela Martin"},{"name":"Dwight Schrute"}]},{"name":"Windows 10","clients":{"name":"Microsoft"},"users":[{"name":"Angela Martin"}]},{"name":"IOS","clients":{"name":"Apple"},"users":[{"name":"Michael Scott"},{"name":"Dwight Schrute"}]},{"name":"OSX","clients":{"name":"Apple"},"users":[{"name":"Michael Scott"}]}]`, match: specJSON},
		// L299
		{name: `works with m2o and m2m relationships combined (2)`, method: http.MethodHead, path: `/projects?select=name,clients!inner(name),users!inner(name)`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-3/4"}},
		// L307
		{name: `works with rpc`, path: `/rpc/getallprojects?select=id,clients!inner(id)&clients.id=eq.1`, body: `[{"id":1,"clients":{"id":1}},{"id":2,"clients":{"id":1}}]`, match: specJSON},
		// L310
		{name: `works with rpc (2)`, method: http.MethodHead, path: `/rpc/getallprojects?select=id,clients!inner(id)&clients.id=eq.1`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L318
		{name: `works when using hints`, path: `/projects?select=id,clients!client!inner(id)&clients.id=eq.2`, body: `[{"id":3,"clients":{"id":2}},{"id":4,"clients":{"id":2}}]`, match: specJSON},
		// L321
		{name: `works when using hints (2)`, path: `/projects?select=id,client!inner(id)&client.id=eq.2`, body: `[{"id":3,"client":{"id":2}},{"id":4,"client":{"id":2}}]`, match: specJSON},
		// L324
		{name: `works when using hints (3)`, method: http.MethodHead, path: `/projects?select=id,clients!client!inner(id)&clients.id=eq.2`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-1/2"}},
		// L333
		{name: `works with many one-to-many relationships`, path: `/client?select=id,name,contact!inner(name),clientinfo!inner(other)`, body: `[{"id":1,"name":"Walmart","contact":[{"name":"Wally Walton"},{"name":"Wilma Wellers"}],"clientinfo":[{"other":"123 Main St"}]},{"id":2,"name":"Target","contact":[{"name":"Tabby Targo"}],"clientinfo":[{"other":"456 South 3rd St"}]},{"id":3,"name":"Big Lots","contact":[{"name":"Bobby Bots"},{"name":"Bonnie Bits"},{"name":"Billy Boats"}],"clientinfo":[{"other":"789 Palm Tree Ln"}]}]`, match: specJSON},
		// L340
		{name: `works with many one-to-many relationships (2)`, path: `/client?select=id,name,contact!inner(name),clientinfo!inner(other)&contact.name=eq.Wally%20Walton`, body: `[{"id":1,"name":"Walmart","contact":[{"name":"Wally Walton"}],"clientinfo":[{"other":"123 Main St"}]}]`, match: specJSON},
		// L345
		{name: `works with many one-to-many relationships (3)`, path: `/client?select=id,name,contact!inner(name),clientinfo!inner(other)&clientinfo.other=eq.456%20South%203rd%20St`, body: `[{"id":2,"name":"Target","clientinfo":[{"other":"456 South 3rd St"}],"contact":[{"name":"Tabby Targo"}]}]`, match: specJSON},
		// L350
		{name: `works with many one-to-many relationships (4)`, method: http.MethodHead, path: `/client?select=id,name,contact!inner(name),clientinfo!inner(other)`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-2/3"}},
		// L359
		{name: `works alongside another embedding`, path: `/books?select=id,authors(name),publishers!inner(name)&id=gte.7`, body: `[{"id":7,"authors":{"name":"Harper Lee"},"publishers":{"name":"J. B. Lippincott & Co."}},{"id":8,"authors":{"name":"Kurt Vonnegut"},"publishers":{"name":"Delacorte"}},{"id":9,"authors":{"name":"Ken Kesey"},"publishers":{"name":"Viking Press & Signet Books"}}]`, match: specJSON},
		// L366
		{name: `works alongside another embedding (2)`, method: http.MethodHead, path: `/books?select=id,authors(name),publishers!inner(name)&id=gte.7`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-2/3"}},
		// L372
		{name: `works alongside another embedding (3)`, method: http.MethodHead, path: `/books?select=id,publishers!inner(name),authors(name)&id=gte.7`, header: []string{"Prefer", "count=exact"}, raw: true, match: map[string]string{"Content-Type": specJSONType, "Content-Range": "0-2/3"}},
	})
}
