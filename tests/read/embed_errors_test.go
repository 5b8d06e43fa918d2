package read

import (
	"net/http"
	"testing"
)

// TestEmbedErrors checks each embedding error with its exact message,
// details and hint.
func TestEmbedErrors(t *testing.T) {
	s := startServer(t)
	const ordersAddresses = `{
		"code":"PGRST201",
		"message":"Could not embed because more than one relationship was found for 'orders' and 'addresses'",
		"details":[
			{"cardinality":"many-to-one","embedding":"orders with addresses",
			 "relationship":"billing using orders(billing_address_id) and addresses(id)"},
			{"cardinality":"many-to-one","embedding":"orders with addresses",
			 "relationship":"shipping using orders(shipping_address_id) and addresses(id)"}],
		"hint":"Try changing 'addresses' to one of the following: 'addresses!billing', 'addresses!shipping'. Find the desired relationship in the 'details' key."}`
	runErrorCases(t, s, []errorCase{
		{
			name:   "two foreign keys to one table make the embed ambiguous",
			path:   "/orders?select=id,addresses(name)",
			status: http.StatusMultipleChoices,
			want:   ordersAddresses,
		},
		{
			name:   "a hint naming the referenced column of both keys is still ambiguous",
			path:   "/orders?select=id,addresses!id(name)",
			status: http.StatusMultipleChoices,
			want:   ordersAddresses,
		},
		{
			name:   "the one-to-many direction of two keys is ambiguous too",
			path:   "/addresses?select=id,orders(id)",
			status: http.StatusMultipleChoices,
			want: `{
				"code":"PGRST201",
				"message":"Could not embed because more than one relationship was found for 'addresses' and 'orders'",
				"details":[
					{"cardinality":"one-to-many","embedding":"addresses with orders",
					 "relationship":"billing using addresses(id) and orders(billing_address_id)"},
					{"cardinality":"one-to-many","embedding":"addresses with orders",
					 "relationship":"shipping using addresses(id) and orders(shipping_address_id)"}],
				"hint":"Try changing 'orders' to one of the following: 'orders!billing', 'orders!shipping'. Find the desired relationship in the 'details' key."}`,
		},
		{
			name:   "no relationship to a close name suggests the related table",
			path:   "/projects?select=id,client(name)",
			status: http.StatusBadRequest,
			want: `{
				"code":"PGRST200",
				"message":"Could not find a relationship between 'projects' and 'client' in the schema cache",
				"details":"Searched for a foreign key relationship between 'projects' and 'client' in the schema 'api', but no matches were found.",
				"hint":"Perhaps you meant 'clients' instead of 'client'."}`,
		},
		{
			name:   "no relationship to a far name gives no hint",
			path:   "/projects?select=id,zzz(id)",
			status: http.StatusBadRequest,
			want: `{
				"code":"PGRST200",
				"message":"Could not find a relationship between 'projects' and 'zzz' in the schema cache",
				"details":"Searched for a foreign key relationship between 'projects' and 'zzz' in the schema 'api', but no matches were found.",
				"hint":null}`,
		},
		{
			name:   "an unknown hint names itself in the details",
			path:   "/projects?select=id,clients!nope(name)",
			status: http.StatusBadRequest,
			want: `{
				"code":"PGRST200",
				"message":"Could not find a relationship between 'projects' and 'clients' in the schema cache",
				"details":"Searched for a foreign key relationship between 'projects' and 'clients' using the hint 'nope' in the schema 'api', but no matches were found.",
				"hint":null}`,
		},
		{
			// PostgREST's fuzzy hint keeps matches from a score of 0.33:
			// "tasks" shares two bigrams with "releases", 5 edits of 8.
			name:   "a table of another schema is not related",
			path:   "/projects?select=id,releases(id)",
			status: http.StatusBadRequest,
			want: `{
				"code":"PGRST200",
				"message":"Could not find a relationship between 'projects' and 'releases' in the schema cache",
				"details":"Searched for a foreign key relationship between 'projects' and 'releases' in the schema 'api', but no matches were found.",
				"hint":"Perhaps you meant 'tasks' instead of 'releases'."}`,
		},
		{
			name:   "a filter on a resource that is not embedded",
			path:   "/projects?select=id&tasks.status=eq.done",
			status: http.StatusBadRequest,
			want:   notEmbedded("tasks"),
		},
		{
			name:   "an order on a resource that is not embedded",
			path:   "/projects?select=id&tasks.order=id",
			status: http.StatusBadRequest,
			want:   notEmbedded("tasks"),
		},
		{
			name:   "a limit on a resource that is not embedded",
			path:   "/projects?select=id&tasks.limit=1",
			status: http.StatusBadRequest,
			want:   notEmbedded("tasks"),
		},
		{
			name:   "a logic tree on a resource that is not embedded",
			path:   "/projects?select=id&tasks.or=(id.eq.1,id.eq.2)",
			status: http.StatusBadRequest,
			want:   notEmbedded("tasks"),
		},
		{
			name:   "a limit two levels down on a resource that is not embedded there",
			path:   "/clients?select=id,projects(id)&projects.tasks.limit=1",
			status: http.StatusBadRequest,
			want:   notEmbedded("tasks"),
		},
		{
			name:   "a related order on a resource that is not embedded",
			path:   "/projects?select=id&order=clients(name)",
			status: http.StatusBadRequest,
			want:   notEmbedded("clients"),
		},
		{
			name:   "a related order names the alias, not the relation, of an aliased embed",
			path:   "/projects?select=id,client:clients(name)&order=clients(name)",
			status: http.StatusBadRequest,
			want:   notEmbedded("clients"),
		},
		{
			name:   "a related order on a one-to-many embed",
			path:   "/clients?select=id,projects(id)&order=projects(id)",
			status: http.StatusBadRequest,
			want:   relatedOrderNotToOne("clients", "projects"),
		},
		{
			name:   "a related order on a many-to-many embed",
			path:   "/users?select=id,projects(id)&order=projects(code)",
			status: http.StatusBadRequest,
			want:   relatedOrderNotToOne("users", "projects"),
		},
		{
			name:   "a related order on a to-many computed relationship",
			path:   "/projects?select=id,top_tasks(id)&order=top_tasks(id)",
			status: http.StatusBadRequest,
			want:   relatedOrderNotToOne("projects", "top_tasks"),
		},
		{
			name:   "eq on an embedded resource is on a column of that name, which PostgreSQL reports missing",
			path:   "/projects?select=id,clients(name)&clients=eq.3",
			status: http.StatusBadRequest,
			want: `{"code":"42703","message":"column projects.clients does not exist","details":null,
				"hint":"Perhaps you meant to reference the column \"projects.client_id\"."}`,
		},
		{
			name:   "in on an embedded resource likewise",
			path:   "/clients?select=id,projects(id)&projects=in.(1,2)",
			status: http.StatusBadRequest,
			want:   `{"code":"42703","message":"column clients.projects does not exist","details":null,"hint":null}`,
		},
		{
			name:   "is.true on an embedded resource likewise",
			path:   "/clients?select=id,projects(id)&projects=is.true",
			status: http.StatusBadRequest,
			want:   `{"code":"42703","message":"column clients.projects does not exist","details":null,"hint":null}`,
		},
	})
}

// notEmbedded is PGRST108's body for resource.
func notEmbedded(resource string) string {
	return `{"code":"PGRST108",
		"message":"'` + resource + `' is not an embedded resource in this request",
		"details":null,
		"hint":"Verify that '` + resource + `' is included in the 'select' query parameter."}`
}

// relatedOrderNotToOne is PGRST118's body.
func relatedOrderNotToOne(origin, target string) string {
	return `{"code":"PGRST118",
		"message":"A related order on '` + target + `' is not possible",
		"details":"'` + origin + `' and '` + target + `' do not form a many-to-one or one-to-one relationship",
		"hint":null}`
}
