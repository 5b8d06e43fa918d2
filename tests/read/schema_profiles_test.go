package read

import (
	"net/http"
	"testing"
)

// TestSchemaProfiles selects the schema of a read with Accept-Profile and
// checks the Content-Profile that names it.
func TestSchemaProfiles(t *testing.T) {
	s := startServer(t)
	cases := []struct {
		name    string
		path    string
		header  []string
		profile string
		want    string
	}{
		{
			name:    "without Accept-Profile the first schema answers and is named",
			path:    "/projects?select=id,code&id=lte.2&order=id",
			profile: "api",
			want:    `[{"id":1,"code":"ACME-WEB"},{"id":2,"code":"ACME-APP"}]`,
		},
		{
			name:    "Accept-Profile api reads the api schema",
			path:    "/projects?select=id,code&id=lte.2&order=id",
			header:  []string{"Accept-Profile", "api"},
			profile: "api",
			want:    `[{"id":1,"code":"ACME-WEB"},{"id":2,"code":"ACME-APP"}]`,
		},
		{
			name:    "Accept-Profile v2 reads v2's projects, with its own columns and data",
			path:    "/projects?order=id",
			header:  []string{"Accept-Profile", "v2"},
			profile: "v2",
			want: `[
				{"id":1,"title":"Apollo","stage":"beta","owner_email":"apollo@v2.example"},
				{"id":2,"title":"Gemini","stage":"alpha","owner_email":null},
				{"id":3,"title":"Mercury","stage":"ga","owner_email":"mercury@v2.example"},
				{"id":4,"title":"Voyager","stage":"beta","owner_email":"voyager@v2.example"}]`,
		},
		{
			name:    "a table only v2 has is read with Accept-Profile v2 and embeds v2's projects",
			path:    "/releases?select=version,projects(title)&order=id&limit=3",
			header:  []string{"Accept-Profile", "v2"},
			profile: "v2",
			want: `[
				{"version":"0.9.0","projects":{"title":"Apollo"}},
				{"version":"1.0.0-rc.1","projects":{"title":"Apollo"}},
				{"version":"0.1.0","projects":{"title":"Gemini"}}]`,
		},
		{
			name:    "v2's projects embed their releases",
			path:    "/projects?select=title,releases(version)&id=eq.3&releases.order=id",
			header:  []string{"Accept-Profile", "v2"},
			profile: "v2",
			want:    `[{"title":"Mercury","releases":[{"version":"1.0.0"},{"version":"1.1.0"}]}]`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := s.Get(t, c.path, c.header...)
			res.ExpectStatus(t, http.StatusOK)
			if got := res.Header.Get("Content-Profile"); got != c.profile {
				t.Errorf("Content-Profile %q, want %q", got, c.profile)
			}
			expectJSON(t, res.Body, c.want)
		})
	}
	t.Run("HEAD names the profile too", func(t *testing.T) {
		res := s.Head(t, "/releases", "Accept-Profile", "v2")
		res.ExpectStatus(t, http.StatusOK)
		if got := res.Header.Get("Content-Profile"); got != "v2" {
			t.Errorf("Content-Profile %q, want v2", got)
		}
	})

	runErrorCases(t, s, []errorCase{
		{
			name:   "Accept-Profile naming the unexposed private schema is refused",
			path:   "/user_credentials",
			header: []string{"Accept-Profile", "private"},
			status: http.StatusNotAcceptable,
			want: `{"code":"PGRST106","message":"Invalid schema: private","details":null,
				"hint":"Only the following schemas are exposed: api, v2"}`,
		},
		{
			name:   "Accept-Profile naming a schema that does not exist is refused",
			path:   "/projects",
			header: []string{"Accept-Profile", "nope"},
			status: http.StatusNotAcceptable,
			want: `{"code":"PGRST106","message":"Invalid schema: nope","details":null,
				"hint":"Only the following schemas are exposed: api, v2"}`,
		},
		{
			name:   "embeds resolve in the profile's schema only",
			path:   "/projects?select=id,clients(name)",
			header: []string{"Accept-Profile", "v2"},
			status: http.StatusBadRequest,
			want: `{"code":"PGRST200",
				"message":"Could not find a relationship between 'projects' and 'clients' in the schema cache",
				"details":"Searched for a foreign key relationship between 'projects' and 'clients' in the schema 'v2', but no matches were found.",
				"hint":null}`,
		},
		{
			name:   "a misspelt table is not found, and the hint names the closest table",
			path:   "/projets",
			status: http.StatusNotFound,
			want: `{"code":"PGRST205","message":"Could not find the table 'api.projets' in the schema cache",
				"details":null,"hint":"Perhaps you meant the table 'api.projects'"}`,
		},
		{
			name:   "the hint looks in the profile's schema",
			path:   "/release",
			header: []string{"Accept-Profile", "v2"},
			status: http.StatusNotFound,
			want: `{"code":"PGRST205","message":"Could not find the table 'v2.release' in the schema cache",
				"details":null,"hint":"Perhaps you meant the table 'v2.releases'"}`,
		},
		{
			name:   "a name far from every table gets no hint",
			path:   "/xyzzy",
			status: http.StatusNotFound,
			want: `{"code":"PGRST205","message":"Could not find the table 'api.xyzzy' in the schema cache",
				"details":null,"hint":null}`,
		},
	})

	t.Run("a table of the unexposed schema is not found in the default schema", func(t *testing.T) {
		// Only the code and message are pinned: which table a hint would
		// suggest for this name depends on the similarity measure.
		e := s.Get(t, "/user_credentials").ExpectError(t, http.StatusNotFound, "PGRST205")
		if want := "Could not find the table 'api.user_credentials' in the schema cache"; e["message"] != want {
			t.Errorf("message %q, want %q", e["message"], want)
		}
	})
}

// TestSchemaSingleProfile checks that a server exposing one schema does
// not name it.
func TestSchemaSingleProfile(t *testing.T) {
	s := startServer(t, "db_schemas api")
	t.Run("one exposed schema sends no Content-Profile", func(t *testing.T) {
		res := s.Get(t, "/clients?select=id&id=eq.1")
		res.ExpectStatus(t, http.StatusOK)
		if got, ok := res.Header["Content-Profile"]; ok {
			t.Errorf("Content-Profile %q, want none", got)
		}
		expectJSON(t, res.Body, `[{"id":1}]`)
	})
	runErrorCases(t, s, []errorCase{
		{
			name:   "v2 is not exposed, so Accept-Profile v2 is refused",
			path:   "/projects",
			header: []string{"Accept-Profile", "v2"},
			status: http.StatusNotAcceptable,
			want: `{"code":"PGRST106","message":"Invalid schema: v2","details":null,
				"hint":"Only the following schemas are exposed: api"}`,
		},
	})
}
