package read

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// bodyWant is a request and the exact JSON it answers, compared without
// insignificant whitespace but with key order and duplicate keys.
type bodyWant struct {
	name string
	path string
	want string
}

func runBodyWants(t *testing.T, s *server, cases []bodyWant) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path)
			res.ExpectStatus(t, http.StatusOK)
			expectCompactBody(t, res.Body, c.want)
		})
	}
}

// expectCompactBody compares two JSON texts with their insignificant
// whitespace removed, so key order, duplicate keys and number spelling
// (45000.50) count.
func expectCompactBody(t testing.TB, got []byte, want string) {
	t.Helper()
	var g, w bytes.Buffer
	if err := json.Compact(&g, got); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, got)
	}
	if err := json.Compact(&w, []byte(want)); err != nil {
		t.Fatalf("expected body is not JSON: %v\n%s", err, want)
	}
	if g.String() != w.String() {
		t.Errorf("body\n got %s\nwant %s", g.String(), w.String())
	}
}

// TestSelect shapes rows with select: columns, aliases, casts, JSON paths,
// computed columns, aggregates and the empty select.
func TestSelect(t *testing.T) {
	s := startServer(t)

	t.Run("columns and their values", func(t *testing.T) {
		runBodyWants(t, s, []bodyWant{
			{"no select gives every column in table order", "/clients?id=eq.9",
				`[{"id":9,"name":"The \"Best\" Co","country":null,"email":null,"active":true,"created_at":"2023-09-09T09:09:09.123456+00:00"}]`},
			{"a star gives every column in table order", "/clients?select=*&id=eq.4",
				`[{"id":4,"name":"Umbrella, Inc.","country":"GB","email":"finance@umbrella.example","active":true,"created_at":"2023-04-22T16:45:00+00:00"}]`},
			{"columns come in the order of the select", "/tasks?select=title,id&id=eq.1",
				`[{"title":"Design login","id":1}]`},
			{"a column may be selected twice", "/tasks?select=id,id,title&id=eq.1",
				`[{"id":1,"id":1,"title":"Design login"}]`},
			{"enums, arrays, numerics, dates and timestamps keep their JSON forms", "/tasks?select=id,status,tags,estimate_hours,due_on,created_at&id=in.(1,8,55,60)&order=id",
				`[{"id":1,"status":"in_progress","tags":["backend"],"estimate_hours":4.0,"due_on":"2024-02-04","created_at":"2024-01-08T09:00:00+00:00"},
				  {"id":8,"status":"done","tags":["frontend","ux"],"estimate_hours":8.5,"due_on":null,"created_at":"2024-01-09T21:59:00+00:00"},
				  {"id":55,"status":"in_progress","tags":["ui","needs review"],"estimate_hours":2.5,"due_on":"2024-03-01","created_at":"2024-02-20T09:00:00+00:00"},
				  {"id":60,"status":"todo","tags":null,"estimate_hours":0.5,"due_on":null,"created_at":"2024-02-23T12:00:00+00:00"}]`},
			{"ranges are their text forms", "/reservations?select=id,during,seats,price&id=in.(1,6,7,10)&order=id",
				`[{"id":1,"during":"[\"2024-05-01 09:00:00+00\",\"2024-05-01 10:00:00+00\")","seats":"[1,5)","price":120.00},
				  {"id":6,"during":"[\"2024-06-01 00:00:00+00\",)","seats":"[1,)","price":null},
				  {"id":7,"during":"empty","seats":"empty","price":0.00},
				  {"id":10,"during":"(,\"2024-01-01 00:00:00+00\")","seats":null,"price":null}]`},
			{"a quoted column name keeps its space and case", "/users?select=id,%22Display%20Name%22&id=in.(4,10)&order=id",
				`[{"id":4,"Display Name":"Dave O'Brien"},{"id":10,"Display Name":null}]`},
			{"an empty select gives all columns", "/projects?select=&id=eq.1",
				`[{"id":1,"client_id":1,"code":"ACME-WEB","name":"Acme website relaunch","budget":120000.00,"started_on":"2024-01-08",` +
					`"due_on":"2024-06-30","archived":false,"settings":{"color":"red","public":true},"created_at":"2024-01-02T09:00:00+00:00"}]`},
		})
	})

	t.Run("aliases and casts", func(t *testing.T) {
		runBodyWants(t, s, []bodyWant{
			{"an alias renames a column", "/tasks?select=task_id:id,label:title&id=in.(1,55)&order=id",
				`[{"task_id":1,"label":"Design login"},{"task_id":55,"label":"Fix \"Save\" button (again)"}]`},
			{"an alias renames an unquoted column with a space", "/users?select=id,shown:Display%20Name&id=eq.6",
				`[{"id":6,"shown":"Frank \"The Tank\" Lee"}]`},
			{"a cast keeps the column's name", "/tasks?select=id::text,priority::text,estimate_hours::int&id=in.(1,7)&order=id",
				`[{"id":"1","priority":"2","estimate_hours":4},{"id":"7","priority":null,"estimate_hours":5}]`},
			{"a cast to text keeps a numeric's scale", "/projects?select=id,amount:budget::text&id=in.(7,12)&order=id",
				`[{"id":7,"amount":"45000.50"},{"id":12,"amount":"0.00"}]`},
			{"a cast to int rounds a numeric", "/projects?select=id,budget::int&id=eq.7",
				`[{"id":7,"budget":45001}]`},
			{"a cast applies to a JSON path's text", "/projects?select=id,pub:settings->>public::boolean&id=in.(1,7,12)&order=id",
				`[{"id":1,"pub":true},{"id":7,"pub":null},{"id":12,"pub":false}]`},
		})
	})

	t.Run("JSON paths", func(t *testing.T) {
		runBodyWants(t, s, []bodyWant{
			{"a path is named after its last key", "/projects?select=id,settings->>color,settings->notify->slack->>channel,settings->limits&id=in.(2,7)&order=id",
				`[{"id":2,"color":"blue","channel":"#alpha","limits":null},
				  {"id":7,"color":null,"channel":null,"limits":{"tasks":100,"members":null}}]`},
			{"-> keeps JSON and ->> gives text", "/projects?select=id,settings->public,settings->>color&id=eq.1",
				`[{"id":1,"public":true,"color":"red"}]`},
			{"an alias names a path", "/projects?select=slack:settings->notify->slack,last:settings->notify->slack->mentions->>-1&id=eq.2",
				`[{"slack":{"channel":"#alpha","mentions":["@here","@lead"]},"last":"@lead"}]`},
			{"a path ending in an index is named after the last key before it", "/projects?select=id,settings->labels->0,settings->milestones->1->>name&id=in.(2,3)&order=id",
				`[{"id":2,"labels":"backend","name":null},{"id":3,"labels":null,"name":"M2"}]`},
			{"a path of indexes only is named after the column", "/events?select=id,payload->0&id=in.(6,7)&order=id",
				`[{"id":6,"payload":1},{"id":7,"payload":{"id":1,"ok":true}}]`},
			{"paths into a json column", "/events?select=id,payload->target,payload->1->error->>code&id=in.(2,7)&order=id",
				`[{"id":2,"target":{"id":"save","classes":["btn","btn-primary"]},"code":null},
				  {"id":7,"target":null,"code":"E42"}]`},
			{"a path five keys deep", "/events?select=f:payload->a->b->c->d->e->0->>f&id=eq.13",
				`[{"f":"deepest"}]`},
		})
	})

	t.Run("computed columns", func(t *testing.T) {
		runBodyWants(t, s, []bodyWant{
			{"a computed column is selected by its name", "/employees?select=id,full_name&id=in.(1,12)&order=id",
				`[{"id":1,"full_name":"Ada Lovelace"},{"id":12,"full_name":"Tim O'Neil"}]`},
			{"a star and a computed column give the columns, then the computed value", "/employees?select=*,full_name&id=eq.12",
				`[{"id":12,"first_name":"Tim","last_name":"O'Neil","email":null,"manager_id":10,"department":"Engineering","title":"Junior Engineer","salary":75000.00,"hired_on":"2023-09-01","is_remote":false,"full_name":"Tim O'Neil"}]`},
			{"a computed column takes an alias and filters", "/employees?select=id,name:full_name&full_name=like.*Turing",
				`[{"id":2,"name":"Alan Turing"}]`},
			{"a computed column returning bigint", "/projects?select=id,open_task_count&id=in.(1,10,11)&order=id",
				`[{"id":1,"open_task_count":4},{"id":10,"open_task_count":0},{"id":11,"open_task_count":4}]`},
		})
	})

	t.Run("aggregates", func(t *testing.T) {
		runBodyWants(t, s, []bodyWant{
			{"count() counts every row", "/tasks?select=count()",
				`[{"count":60}]`},
			{"count() follows the filters", "/tasks?select=count()&project_id=eq.11",
				`[{"count":6}]`},
			{"other columns group the aggregates", "/tasks?select=status,count()&project_id=eq.11&order=status",
				`[{"status":"todo","count":2},{"status":"in_progress","count":1},{"status":"review","count":1},{"status":"done","count":1},{"status":"cancelled","count":1}]`},
			{"sum, min and max are named after the function", "/employees?select=department,salary.sum(),salary.min(),salary.max()&order=department",
				`[{"department":"Engineering","sum":1000000.00,"min":75000.00,"max":200000.00},
				  {"department":"Executive","sum":250000.00,"min":250000.00,"max":250000.00},
				  {"department":"Operations","sum":500000.00,"min":90000.00,"max":200000.00}]`},
			{"an aggregate takes an alias and a cast", "/tasks?select=total:estimate_hours.sum()::int,n:count()&project_id=eq.1",
				`[{"total":27,"n":6}]`},
			{"avg of integers", "/films?select=genre,runtime_minutes.avg()::int&genre=eq.drama",
				`[{"genre":"drama","avg":129}]`},
		})
	})

	t.Run("errors", func(t *testing.T) {
		runFailures(t, s, []failure{
			{name: "an unknown column is 42703 with the database's message", path: "/tasks?select=id,nope",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.nope does not exist"},
			{name: "an unknown column alone is 42703", path: "/tasks?select=nope",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.nope does not exist"},
			{name: "a JSON path on an unknown column is 42703", path: "/tasks?select=nope->>a",
				status: http.StatusBadRequest, code: "42703", message: "column tasks.nope does not exist"},
			{name: "a cast to an unknown type is 42704", path: "/tasks?select=id::nope",
				status: http.StatusBadRequest, code: "42704", message: `type "nope" does not exist`},
			{name: "an unknown table is PGRST205", path: "/nope?select=id",
				status: http.StatusNotFound, code: "PGRST205", message: "Could not find the table 'api.nope' in the schema cache"},
		})
	})
}
