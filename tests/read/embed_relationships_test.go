package read

import "testing"

// TestEmbedRelationships embeds along every kind of relationship the
// fixture has: foreign keys in both directions, junctions, primary keys
// that are foreign keys, self-references, composite keys, views and
// computed relationships.
func TestEmbedRelationships(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "a many-to-one embed is an object, and null where the foreign key is null",
			path: "/projects?select=id,name,clients(name)&id=in.(1,3,11)&order=id",
			want: `[
				{"id":1,"name":"Acme website relaunch","clients":{"name":"Acme Corp"}},
				{"id":3,"name":"Globex CRM migration","clients":{"name":"Globex"}},
				{"id":11,"name":"Internal tooling","clients":null}]`,
		},
		{
			name: "a nullable many-to-one embed is null where the row has no match",
			path: "/tasks?select=id,users(username)&id=in.(1,2,5)&order=id",
			want: `[
				{"id":1,"users":{"username":"alice"}},
				{"id":2,"users":{"username":"bob"}},
				{"id":5,"users":null}]`,
		},
		{
			name: "a one-to-many embed is an array, empty where no row refers to the parent",
			path: "/clients?select=id,projects(id,code)&id=in.(1,3,8)&order=id&projects.order=id",
			want: `[
				{"id":1,"projects":[{"id":1,"code":"ACME-WEB"},{"id":2,"code":"ACME-APP"}]},
				{"id":3,"projects":[{"id":5,"code":"INI-TPS"},{"id":10,"code":"INI-Y2K"}]},
				{"id":8,"projects":[]}]`,
		},
		{
			name: "all columns of an embedded resource come with *",
			path: "/invoices?select=year,number,clients(*)&year=eq.2023&number=eq.3",
			want: `[{"year":2023,"number":3,"clients":{
				"id":4,"name":"Umbrella, Inc.","country":"GB","email":"finance@umbrella.example",
				"active":true,"created_at":"2023-04-22T16:45:00+00:00"}}]`,
		},
		{
			name: "users and projects are many-to-many through project_members",
			path: "/users?select=username,projects(code)&id=in.(1,9,10)&order=id&projects.order=id",
			want: `[
				{"username":"alice","projects":[{"code":"ACME-WEB"},{"code":"ACME-APP"},{"code":"ORM-PUB"},{"code":"INT-TOOLS"}]},
				{"username":"ivan","projects":[{"code":"SG-KYC"}]},
				{"username":"judy","projects":[]}]`,
		},
		{
			name: "projects and users are many-to-many in the other direction too",
			path: "/projects?select=code,users(username)&id=in.(4,12)&order=id&users.order=id",
			want: `[
				{"code":"GLX-BI","users":[{"username":"bob"},{"username":"eve"},{"username":"heidi"}]},
				{"code":"INT-R&D","users":[]}]`,
		},
		{
			name: "the junction names a many-to-many relationship as a hint",
			path: "/users?select=username,projects!project_members(code)&id=eq.9",
			want: `[{"username":"ivan","projects":[{"code":"SG-KYC"}]}]`,
		},
		{
			name: "films and actors are many-to-many through roles",
			path: "/films?select=title,actors(name)&id=in.(2,9)&order=id&actors.order=id",
			want: `[
				{"title":"The Good, the Bad and the Ugly","actors":[{"name":"Clint Eastwood"},{"name":"Eli Wallach"}]},
				{"title":"Untitled Project","actors":[{"name":"Joaquin Phoenix"}]}]`,
		},
		{
			name: "an actor without roles has no films",
			path: "/actors?select=name,films(title)&id=in.(2,13)&order=id&films.order=id",
			want: `[
				{"name":"Clint Eastwood","films":[{"title":"The Good, the Bad and the Ugly"},{"title":"Million Dollar Baby"}]},
				{"name":"Tilda Swinton","films":[]}]`,
		},
		{
			name: "the junction's own columns come from embedding the junction and its other end",
			path: "/films?select=title,roles(character,actors(name))&id=eq.3&roles.order=actor_id",
			want: `[{"title":"Léon: The Professional","roles":[
				{"character":"Léon","actors":{"name":"Jean Reno"}},
				{"character":"Mathilda","actors":{"name":"Natalie Portman"}},
				{"character":"Norman Stansfield","actors":{"name":"Gary Oldman"}}]}]`,
		},
		{
			name: "a user's profile is a one-to-one object, null for a user without one",
			path: "/users?select=username,user_profiles(timezone)&id=in.(1,9)&order=id",
			want: `[
				{"username":"alice","user_profiles":{"timezone":"Europe/London"}},
				{"username":"ivan","user_profiles":null}]`,
		},
		{
			name: "a profile's user is a one-to-one object",
			path: "/user_profiles?select=user_id,users(username)&user_id=in.(2,8)&order=user_id",
			want: `[
				{"user_id":2,"users":{"username":"bob"}},
				{"user_id":8,"users":{"username":"heidi"}}]`,
		},
		{
			name: "a self-reference by its column is the parent, null at the root",
			path: "/employees?select=id,manager:manager_id(first_name)&id=in.(1,4,12)&order=id",
			want: `[
				{"id":1,"manager":null},
				{"id":4,"manager":{"first_name":"Alan"}},
				{"id":12,"manager":{"first_name":"Ken"}}]`,
		},
		{
			name: "a self-reference by the table's name is the children",
			path: "/employees?select=id,reports:employees(first_name)&id=in.(2,12)&order=id&reports.order=id",
			want: `[
				{"id":2,"reports":[{"first_name":"Margaret"},{"first_name":"Dennis"},{"first_name":"Barbara"}]},
				{"id":12,"reports":[]}]`,
		},
		{
			name: "a self-reference hinted by its column is the children",
			path: "/employees?select=id,reports:employees!manager_id(id)&id=eq.4&reports.order=id",
			want: `[{"id":4,"reports":[{"id":10},{"id":11}]}]`,
		},
		{
			name: "a composite foreign key joins on both columns",
			path: "/invoices?select=year,number,invoice_lines(id)&number=eq.2&order=year&invoice_lines.order=id",
			want: `[
				{"year":2023,"number":2,"invoice_lines":[{"id":4},{"id":5}]},
				{"year":2024,"number":2,"invoice_lines":[{"id":11},{"id":12}]}]`,
		},
		{
			name: "an invoice without lines has an empty array",
			path: "/invoices?select=year,number,invoice_lines(id)&year=eq.2024&number=eq.5",
			want: `[{"year":2024,"number":5,"invoice_lines":[]}]`,
		},
		{
			name: "a line's invoice through the composite key is an object, null for a line without one",
			path: "/invoice_lines?select=id,invoices(year,number,currency)&id=in.(5,16,18)&order=id",
			want: `[
				{"id":5,"invoices":{"year":2023,"number":2,"currency":"EUR"}},
				{"id":16,"invoices":{"year":2024,"number":4,"currency":"EUR"}},
				{"id":18,"invoices":null}]`,
		},
		{
			name: "a view with renamed columns embeds its base table's many-to-one",
			path: "/v_projects?select=project_id,project_name,clients(name)&project_id=in.(3,12)&order=project_id",
			want: `[
				{"project_id":3,"project_name":"Globex CRM migration","clients":{"name":"Globex"}},
				{"project_id":12,"project_name":"R&D sandbox","clients":null}]`,
		},
		{
			name: "a table embeds a view through the view's base table",
			path: "/clients?select=name,v_projects(project_id,project_name)&id=eq.5",
			want: `[{"name":"O'Reilly Media","v_projects":[{"project_id":7,"project_name":"O'Reilly publishing pipeline"}]}]`,
		},
		{
			name: "a table's many-to-one reaches a view over the referenced table",
			path: "/tasks?select=id,v_projects(code)&id=in.(7,55)&order=id",
			want: `[{"id":7,"v_projects":{"code":"ACME-APP"}},{"id":55,"v_projects":{"code":"INT-TOOLS"}}]`,
		},
		{
			name: "a view embeds the rows that refer to its base table",
			path: "/v_projects?select=project_id,tasks(id)&project_id=eq.2&tasks.order=id",
			want: `[{"project_id":2,"tasks":[{"id":7},{"id":8},{"id":9},{"id":10},{"id":11},{"id":12}]}]`,
		},
		{
			name: "a filtering view embeds only the rows it shows",
			path: "/clients?select=id,active_projects(id)&id=in.(1,3)&order=id&active_projects.order=id",
			want: `[{"id":1,"active_projects":[{"id":1},{"id":2}]},{"id":3,"active_projects":[]}]`,
		},
		{
			name: "a view over a view keeps the relationship of the base table",
			path: "/large_active_projects?select=id,clients(name)&order=id",
			want: `[
				{"id":1,"clients":{"name":"Acme Corp"}},
				{"id":2,"clients":{"name":"Acme Corp"}},
				{"id":8,"clients":{"name":"Stark Industries (Holdings)"}},
				{"id":9,"clients":{"name":"Société Générale"}}]`,
		},
		{
			name: "a join view without a primary key embeds through the column it keeps",
			path: "/project_directory?select=project_name,clients(country)&client_name=eq.Globex&order=project_name",
			want: `[
				{"project_name":"Globex BI dashboards","clients":{"country":"US"}},
				{"project_name":"Globex CRM migration","clients":{"country":"US"}}]`,
		},
		{
			name: "four levels deep: clients, projects, tasks and comments",
			path: "/clients?select=name,projects(code,tasks(id,comments(id,body)))&id=eq.1" +
				"&projects.order=id&projects.limit=1&projects.tasks.order=id&projects.tasks.limit=2&projects.tasks.comments.order=id",
			want: `[{"name":"Acme Corp","projects":[{"code":"ACME-WEB","tasks":[
				{"id":1,"comments":[{"id":1,"body":"Looks good to me."},{"id":51,"body":"Can we revisit this?"}]},
				{"id":2,"comments":[{"id":2,"body":"LGTM 👍"},{"id":52,"body":"Blocked by #12, see notes."}]}]}]}]`,
		},
		{
			name: "tasks without comments have empty arrays three levels down",
			path: "/projects?select=code,tasks(id,comments(id))&id=eq.9&tasks.order=id&tasks.comments.order=id",
			want: `[{"code":"SG-KYC","tasks":[
				{"id":49,"comments":[{"id":49},{"id":99}]},
				{"id":50,"comments":[{"id":50},{"id":100}]},
				{"id":51,"comments":[]},{"id":52,"comments":[]},{"id":53,"comments":[]},{"id":54,"comments":[]}]}]`,
		},
		{
			name: "to-one embeds nest up the chain from comments to clients",
			path: "/comments?select=id,tasks(title,projects(code,clients(name)))&id=in.(1,30)&order=id",
			want: `[
				{"id":1,"tasks":{"title":"Design login","projects":{"code":"ACME-WEB","clients":{"name":"Acme Corp"}}}},
				{"id":30,"tasks":{"title":"Document export","projects":{"code":"INI-TPS","clients":{"name":"Initech"}}}}]`,
		},
		{
			name: "an alias renames the embedded resource",
			path: "/projects?select=id,client:clients(client_name:name)&id=in.(1,12)&order=id",
			want: `[{"id":1,"client":{"client_name":"Acme Corp"}},{"id":12,"client":null}]`,
		},
		{
			name: "aliases embed the same resource twice",
			path: "/projects?select=id,all:tasks(id),urgent:tasks(id)&id=eq.1&all.order=id&urgent.priority=eq.1",
			want: `[{"id":1,"all":[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5},{"id":6}],"urgent":[{"id":4}]}]`,
		},
		{
			name: "a to-many computed relationship embeds the function's rows in its order",
			path: "/projects?select=id,top_tasks(id,priority)&id=in.(1,10)&order=id",
			want: `[
				{"id":1,"top_tasks":[{"id":4,"priority":1},{"id":1,"priority":2},{"id":5,"priority":2}]},
				{"id":10,"top_tasks":[]}]`,
		},
		{
			name: "a computed relationship declared rows 1 is a to-one object",
			path: "/projects?select=id,project_lead(username)&id=in.(2,12)&order=id",
			want: `[{"id":2,"project_lead":{"username":"frank"}},{"id":12,"project_lead":null}]`,
		},
		{
			name: "a self-referencing computed relationship lists the direct reports",
			path: "/employees?select=id,direct_reports(id,title)&id=in.(4,12)&order=id",
			want: `[
				{"id":4,"direct_reports":[{"id":10,"title":"Senior Engineer"},{"id":11,"title":"Engineer"}]},
				{"id":12,"direct_reports":[]}]`,
		},
		{
			name: "a computed relationship embeds further resources",
			path: "/projects?select=id,project_lead(username,user_profiles(timezone))&id=eq.8",
			want: `[{"id":8,"project_lead":{"username":"frank","user_profiles":{"timezone":"America/Chicago"}}}]`,
		},
	})
}

// TestEmbedDisambiguation picks one of two foreign keys between orders and
// addresses by the constraint's name or by its column.
func TestEmbedDisambiguation(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "the constraint names pick billing and shipping",
			path: "/orders?select=number,billing:addresses!billing(city),shipping:addresses!shipping(city)&id=in.(2,4)&order=id",
			want: `[
				{"number":"ORD-2024-0002","billing":{"city":"Oxford"},"shipping":{"city":"London"}},
				{"number":"ORD-2024-0004","billing":{"city":"Springfield"},"shipping":null}]`,
		},
		{
			name: "the foreign key column picks the relationship",
			path: "/orders?select=id,addresses!shipping_address_id(name)&id=in.(3,10,12)&order=id",
			want: `[
				{"id":3,"addresses":{"name":"Bob HQ"}},
				{"id":10,"addresses":null},
				{"id":12,"addresses":{"name":"Acme office (reception)"}}]`,
		},
		{
			name: "the other foreign key column picks the other relationship",
			path: "/orders?select=id,addresses!billing_address_id(name)&id=in.(10,12)&order=id",
			want: `[{"id":10,"addresses":{"name":"Grace"}},{"id":12,"addresses":{"name":"Alice home"}}]`,
		},
		{
			name: "the constraint name disambiguates the one-to-many direction",
			path: "/addresses?select=id,orders!shipping(number)&id=in.(2,9)&order=id&orders.order=id",
			want: `[
				{"id":2,"orders":[{"number":"ORD-2024-0002"},{"number":"ORD-2024-0011"}]},
				{"id":9,"orders":[]}]`,
		},
	})
}

// TestEmbedComputedRelationshipLevels filters, orders and pages the rows
// of computed relationships like any embedded level.
func TestEmbedComputedRelationshipLevels(t *testing.T) {
	s := startServer(t)
	runBodyCases(t, s, []bodyCase{
		{
			name: "an embedded order and limit reorder and cut the function's rows",
			path: "/projects?select=id,top_tasks(id)&id=eq.1&top_tasks.order=id.desc&top_tasks.limit=2",
			want: `[{"id":1,"top_tasks":[{"id":5},{"id":4}]}]`,
		},
		{
			name: "an embedded filter applies to the function's rows",
			path: "/projects?select=id,top_tasks(id)&id=eq.1&top_tasks.priority=eq.2",
			want: `[{"id":1,"top_tasks":[{"id":1},{"id":5}]}]`,
		},
		{
			name: "!inner on a to-one computed relationship keeps the projects whose lead is an admin",
			path: "/projects?select=id,project_lead!inner(username)&project_lead.is_admin=is.true&order=id",
			want: `[
				{"id":1,"project_lead":{"username":"alice"}},
				{"id":10,"project_lead":{"username":"grace"}},
				{"id":11,"project_lead":{"username":"alice"}}]`,
		},
		{
			name: "a computed relationship nests in itself",
			path: "/employees?select=id,direct_reports(id,direct_reports(id))&id=eq.2",
			want: `[{"id":2,"direct_reports":[
				{"id":4,"direct_reports":[{"id":10},{"id":11}]},
				{"id":5,"direct_reports":[]},
				{"id":6,"direct_reports":[]}]}]`,
		},
		{
			name: "parents are ordered by a spread computed relationship's column",
			path: "/projects?select=id,...project_lead(username)&order=project_lead(username).desc.nullslast,id&limit=4",
			want: `[{"id":9,"username":"heidi"},{"id":10,"username":"grace"},{"id":2,"username":"frank"},{"id":8,"username":"frank"}]`,
		},
	})
}
