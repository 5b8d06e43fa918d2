package apirequest

import "testing"

func TestNegotiate(t *testing.T) {
	reads := []MediaType{MediaJSON, MediaSingleObject, MediaCSV}
	tests := []struct {
		name, accept string
		want         Representation
		wantCode     string
	}{
		{"no Accept gives JSON", "", Representation{Media: MediaJSON}, ""},
		{"*/* gives JSON", "*/*", Representation{Media: MediaJSON}, ""},
		{"application/json gives JSON", "application/json", Representation{Media: MediaJSON}, ""},
		{"the singular type gives one object", "application/vnd.pgrst.object+json", Representation{Media: MediaSingleObject}, ""},
		{"the singular type without +json is accepted", "application/vnd.pgrst.object", Representation{Media: MediaSingleObject}, ""},
		{"nulls=stripped on the singular type strips", "application/vnd.pgrst.object+json;nulls=stripped", Representation{Media: MediaSingleObject, StripNulls: true}, ""},
		{"nulls=stripped on the array type strips", "application/vnd.pgrst.array+json;nulls=stripped", Representation{Media: MediaJSON, StripNulls: true}, ""},
		{"text/csv gives CSV", "text/csv", Representation{Media: MediaCSV}, ""},
		{"q values order the choice", "application/json;q=0.5, text/csv", Representation{Media: MediaCSV}, ""},
		{"position breaks q ties", "text/csv, application/json", Representation{Media: MediaCSV}, ""},
		{"an unknown type before a known one is skipped", "image/png, application/json", Representation{Media: MediaJSON}, ""},
		{"q=0 refuses a type", "text/csv;q=0", Representation{}, "PGRST107"},
		{"nothing acceptable is PGRST107", "image/png", Representation{}, "PGRST107"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Negotiate(tt.accept, reads)
			if tt.wantCode != "" {
				if err == nil || err.Code != tt.wantCode || err.Status != 406 {
					t.Fatalf("got %+v, %v; want %s", got, err, tt.wantCode)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
	t.Run("wildcards and the OpenAPI type pick among what is offered", func(t *testing.T) {
		root := []MediaType{MediaOpenAPI, MediaJSON}
		for _, tt := range []struct {
			accept  string
			offered []MediaType
			want    MediaType
		}{
			{"application/*", root, MediaOpenAPI},
			{"application/openapi+json", root, MediaOpenAPI},
			{"application/json", root, MediaJSON},
			{"text/*", reads, MediaCSV},
			{"text/*, application/*", reads, MediaCSV},
			{"application/*;q=0.1, text/*", reads, MediaCSV},
		} {
			got, err := Negotiate(tt.accept, tt.offered)
			if err != nil || got != (Representation{Media: tt.want}) {
				t.Errorf("Negotiate(%q) = %+v, %v; want %v", tt.accept, got, err, tt.want)
			}
		}
		for _, accept := range []string{"text/*", "application/openapi+json"} {
			if _, err := Negotiate(accept, []MediaType{MediaJSON}); err == nil || err.Code != "PGRST107" {
				t.Errorf("Negotiate(%q) of JSON alone = %v, want PGRST107", accept, err)
			}
		}
	})
	t.Run("a malformed media range is named as written", func(t *testing.T) {
		_, err := Negotiate("Image/PNG;;q", reads)
		if err == nil || err.Message != "None of these media types are available: image/png" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("the 406 names the requested types", func(t *testing.T) {
		_, err := Negotiate("image/png, text/html", reads)
		if err == nil || err.Message != "None of these media types are available: image/png, text/html" {
			t.Fatalf("got %v", err)
		}
	})
}

func TestRepresentationContentType(t *testing.T) {
	tests := []struct {
		name string
		rep  Representation
		want string
	}{
		{"JSON is an array of objects", Representation{Media: MediaJSON}, "application/json; charset=utf-8"},
		{"JSON without nulls names the array type", Representation{Media: MediaJSON, StripNulls: true},
			"application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"},
		{"one object names the object type", Representation{Media: MediaSingleObject}, "application/vnd.pgrst.object+json; charset=utf-8"},
		{"one object without nulls says so", Representation{Media: MediaSingleObject, StripNulls: true},
			"application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8"},
		{"CSV is text/csv", Representation{Media: MediaCSV}, "text/csv; charset=utf-8"},
		{"the API description is OpenAPI", Representation{Media: MediaOpenAPI}, "application/openapi+json; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rep.ContentType(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
