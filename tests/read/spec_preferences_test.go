package read

import "testing"

// invalidPreferences is PGRST122's body for the preferences given.
func invalidPreferences(prefs string) string {
	return `{"details":"Invalid preferences: ` + prefs + `","message":"Invalid preferences given with handling=strict","code":"PGRST122","hint":null}`
}

// TestHandlingSpec mirrors PostgREST's HandlingSpec: Prefer:
// handling=strict refuses preferences it does not know with 400 PGRST122,
// on reads, writes and calls, and handling=lenient ignores them.
func TestHandlingSpec(t *testing.T) {
	s := startSpecRollbackServer(t)
	ctJSON := map[string]string{"Content-Type": "application/json; charset=utf-8"}
	newOrg := `{"id":7,"name":"John","referee":null,"auditor":null,"manager_id":6}`
	runSpecRequests(t, s, []specRequest{
		{name: "check behaviour of Prefer: handling=strict/throws error when handling=strict and invalid prefs are given",
			path: "/items", header: []string{"Prefer", "handling=strict, anything"}, status: 400, body: invalidPreferences("anything")},
		{name: "check behaviour of Prefer: handling=strict/throw error when handling=strict and invalid prefs are given with multiples in separate prefers",
			path: "/items", header: []string{"Prefer", "handling=strict", "Prefer", "something, else"}, status: 400,
			body: invalidPreferences("something, else")},
		{name: "check behaviour of Prefer: handling=strict/throws error with post request", method: "POST",
			path: "/organizations?select=*", header: []string{"Prefer", "return=representation, handling=strict, anything"},
			reqBody: newOrg, status: 400, body: invalidPreferences("anything")},
		{name: "check behaviour of Prefer: handling=strict/throws error with rpc", method: "POST", path: "/rpc/overloaded_unnamed_param",
			header: []string{"Content-Type", "application/json", "Prefer", "handling=strict, anything"}, reqBody: `{}`,
			status: 400, body: invalidPreferences("anything")},
		{name: "check behaviour of Prefer: handling=lenient/does not throw error when handling=lenient and invalid prefs",
			path: "/items", header: []string{"Prefer", "handling=lenient, anything"}, body: itemsJSON(1, 15)},
		{name: "check behaviour of Prefer: handling=lenient/does not throw error when handling=lenient and invalid prefs in multiples prefers",
			path: "/items", header: []string{"Prefer", "handling=lenient", "Prefer", "anything"}, body: itemsJSON(1, 15)},
		{name: "check behaviour of Prefer: handling=lenient/does not throw error with post request", method: "POST",
			path: "/organizations?select=*", header: []string{"Prefer", "return=representation, handling=lenient, anything"},
			reqBody: newOrg, status: 201, body: "[" + newOrg + "]", match: ctJSON},
		{name: "check behaviour of Prefer: handling=lenient/does not throw error with rpc", method: "POST", path: "/rpc/overloaded_unnamed_param",
			header: []string{"Content-Type", "application/json", "Prefer", "handling=lenient, anything"}, reqBody: `{}`,
			body: `1`, match: ctJSON},
		{name: "the writes were rolled back", path: "/organizations?id=eq.7", body: `[]`},
	})
}

// maxAffected is PGRST124's body for n rows.
func maxAffected(n string) string {
	return `{"code":"PGRST124","details":"The query affects ` + n + ` rows","hint":null,"message":"Query result exceeds max-affected preference constraint"}`
}

// TestMaxAffectedSpec mirrors PostgREST's MaxAffectedSpec: with
// handling=strict, Prefer: max-affected refuses a write or a call of a set
// that affects more rows with 400 PGRST124; handling=lenient ignores it.
func TestMaxAffectedSpec(t *testing.T) {
	s := startSpecRollbackServer(t)
	prefer := func(p string) []string { return []string{"Prefer", p} }
	applied := func(p string) map[string]string { return map[string]string{"Preference-Applied": p} }
	java := `[{"name":"Java","rank":19}]`
	runSpecRequests(t, s, []specRequest{
		{name: "test Prefer: max-affected with handling=strict/should fail if items deleted more than 10", method: "DELETE",
			path: "/items?id=lt.15", header: prefer("handling=strict, max-affected=10"), status: 400, body: maxAffected("14")},
		{name: "test Prefer: max-affected with handling=strict/should succeed if items deleted less than 10", method: "DELETE",
			path: "/items?id=lt.10", header: prefer("handling=strict, max-affected=10"), status: 204,
			match: applied("handling=strict, max-affected=10")},
		{name: "test Prefer: max-affected with handling=strict/should fail if items updated more than 0", method: "PATCH",
			path: "/tiobe_pls?name=eq.Java", header: prefer("handling=strict, max-affected=0"), reqBody: java,
			status: 400, body: maxAffected("1")},
		{name: "test Prefer: max-affected with handling=strict/should succeed if items updated equal 1", method: "DELETE",
			path: "/tiobe_pls?name=eq.Java", header: prefer("handling=strict, max-affected=1"), reqBody: java, status: 204,
			match: applied("handling=strict, max-affected=1")},
		{name: "test Prefer: max-affected with handling=lenient/should not fail", method: "DELETE",
			path: "/items?id=lt.15", header: prefer("handling=lenient, max-affected=10"), status: 204, match: applied("handling=lenient")},
		{name: "test Prefer: max-affected with handling=lenient/should succeed if items deleted less than 10", method: "DELETE",
			path: "/items?id=lt.10", header: prefer("handling=lenient, max-affected=10"), status: 204, match: applied("handling=lenient")},
		{name: "test Prefer: max-affected with handling=lenient/should not fail (PATCH)", method: "PATCH",
			path: "/tiobe_pls?name=eq.Java", header: prefer("handling=lenient, max-affected=0"), reqBody: java, status: 204,
			match: applied("handling=lenient")},
		{name: "test Prefer: max-affected with handling=lenient/should succeed if items updated equal 1", method: "DELETE",
			path: "/tiobe_pls?name=eq.Java", header: prefer("handling=lenient, max-affected=1"), reqBody: java, status: 204,
			match: applied("handling=lenient")},
		{name: "test Prefer: max-affected with rpc/should fail with rpc when deleting rows more than prefered with returns setof",
			method: "POST", path: "/rpc/delete_items_returns_setof", header: prefer("handling=strict, max-affected=10"),
			status: 400, body: maxAffected("15")},
		{name: "test Prefer: max-affected with rpc/should fail with rpc when deleting rows more than prefered with returns table",
			method: "POST", path: "/rpc/delete_items_returns_table", header: prefer("handling=strict, max-affected=10"),
			status: 400, body: maxAffected("15")},
		{name: "test Prefer: max-affected with rpc/should succeed with rpc deleting rows less than prefered with returns setof",
			method: "POST", path: "/rpc/delete_items_returns_setof", header: prefer("handling=strict, max-affected=20"),
			body: itemsJSON(1, 15)},
		{name: "test Prefer: max-affected with rpc/should succeed with rpc deleting rows less than prefered with returns table",
			method: "POST", path: "/rpc/delete_items_returns_table", header: prefer("handling=strict, max-affected=20"),
			body: itemsJSON(1, 15)},
		{name: "test Prefer: max-affected with rpc/should fail with rpc when returns void with handling=strict",
			method: "POST", path: "/rpc/delete_items_returns_void", header: prefer("handling=strict, max-affected=20"), status: 400,
			body: `{"code":"PGRST128","details":null,"hint":null,"message":"Function must return SETOF or TABLE when max-affected preference is used with handling=strict"}`},
		{name: "the writes were rolled back", path: "/items?select=id&order=id", body: itemsJSON(1, 15)},
	})
}

// timestampsAt is the body of test.timestamps read in a time zone:
// its hours and offset.
func timestampsAt(h1, h2, h3, minutes, offset string) string {
	t := func(h string) string { return `{"t":"2023-10-18T` + h + `:` + minutes + `:59.611` + offset + `"}` }
	return "[" + t(h1) + "," + t(h2) + "," + t(h3) + "]"
}

// TestTimezoneSpec mirrors PostgREST's TimezoneSpec: Prefer: timezone sets
// the transaction's time zone, a name or an offset, with any handling; one
// PostgreSQL refuses is its 400 22023.
func TestTimezoneSpec(t *testing.T) {
	s := startSpecServer(t)
	prefer := func(p string) []string { return []string{"Prefer", p} }
	withApplied := func(p string) map[string]string {
		return map[string]string{"Content-Type": "application/json; charset=utf-8", "Preference-Applied": p}
	}
	la := timestampsAt("05", "07", "09", "37", "-07:00")
	invalid := `{"code":"22023","details":null,"hint":null,"message":"invalid value for parameter \"TimeZone\": \"Invalid/Timezone\""}`
	runSpecRequests(t, s, []specRequest{
		{name: "test Prefer: timezone=America/Los_Angeles/should change timezone with handling=strict", path: "/timestamps",
			header: prefer("handling=strict, timezone=America/Los_Angeles"), body: la,
			match: withApplied("handling=strict, timezone=America/Los_Angeles")},
		{name: "test Prefer: timezone=America/Los_Angeles/should change timezone without handling=strict", path: "/timestamps",
			header: prefer("timezone=America/Los_Angeles"), body: la, match: withApplied("timezone=America/Los_Angeles")},
		{name: "test Prefer: timezone=Invalid/Timezone/should throw error without handling", path: "/timestamps",
			header: prefer("timezone=Invalid/Timezone"), status: 400, body: invalid},
		{name: "test Prefer: timezone=Invalid/Timezone/should throw error with handling=strict", path: "/timestamps",
			header: prefer("handling=strict, timezone=Invalid/Timezone"), status: 400, body: invalid},
		{name: "test Prefer: timezone=Invalid/Timezone/should throw error with handling=lenient", path: "/timestamps",
			header: prefer("handling=lenient, timezone=Invalid/Timezone"), status: 400, body: invalid},
		{name: "test Prefer: timezone offsets/should change with positive offset", path: "/timestamps",
			header: prefer("timezone=+05:30"), body: timestampsAt("07", "09", "11", "07", "-05:30"), match: withApplied("timezone=+05:30")},
		{name: "test Prefer: timezone offsets/should change with negative offset", path: "/timestamps",
			header: prefer("timezone=-4"), body: timestampsAt("08", "10", "12", "37", "-04:00"), match: withApplied("timezone=-4")},
		{name: "test Prefer: timezone offsets/fails on leap seconds", path: "/timestamps", header: prefer("timezone=05:30:15"), status: 400,
			body: `{"code":"22023","details":"PostgreSQL does not support leap seconds.","hint":null,"message":"time zone \"05:30:15\" appears to use leap seconds"}`},
	})
}
