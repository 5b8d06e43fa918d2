package apirequest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRoute(t *testing.T) {
	tests := []struct {
		name, method, path string
		wantTarget         Target
		wantAction         Action
		wantName, wantCode string
	}{
		{"GET on a table reads it", "GET", "/items", TargetRelation, ActionRead, "items", ""},
		{"HEAD on a table reads it", "HEAD", "/items", TargetRelation, ActionRead, "items", ""},
		{"POST on a table creates", "POST", "/items", TargetRelation, ActionCreate, "items", ""},
		{"PATCH on a table updates", "PATCH", "/items", TargetRelation, ActionUpdate, "items", ""},
		{"PUT on a table upserts", "PUT", "/items", TargetRelation, ActionUpsert, "items", ""},
		{"DELETE on a table deletes", "DELETE", "/items", TargetRelation, ActionDelete, "items", ""},
		{"GET on the root inspects", "GET", "/", TargetRoot, ActionInspect, "", ""},
		{"POST on a function invokes it", "POST", "/rpc/f", TargetFunction, ActionInvoke, "f", ""},
		{"GET on a function invokes it", "GET", "/rpc/f", TargetFunction, ActionInvoke, "f", ""},
		{"OPTIONS anywhere is info", "OPTIONS", "/items", TargetRelation, ActionInfo, "items", ""},
		{"PUT on a function is PGRST101", "PUT", "/rpc/f", 0, 0, "", "PGRST101"},
		{"PATCH on a function is PGRST101", "PATCH", "/rpc/f", 0, 0, "", "PGRST101"},
		{"DELETE on a function is PGRST101", "DELETE", "/rpc/f", 0, 0, "", "PGRST101"},
		{"an unknown verb on a table is PGRST117", "TRACE", "/items", 0, 0, "", "PGRST117"},
		{"an unknown verb on a function is PGRST101", "PROPFIND", "/rpc/f", 0, 0, "", "PGRST101"},
		{"POST on the root is PGRST117", "POST", "/", 0, 0, "", "PGRST117"},
		{"three segments are PGRST125", "GET", "/a/b/c", 0, 0, "", "PGRST125"},
		{"two segments not under rpc are PGRST125", "GET", "/a/b", 0, 0, "", "PGRST125"},
		{"rpc without a name is PGRST125", "GET", "/rpc/", 0, 0, "", "PGRST125"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(tt.method, "http://x"+tt.path, nil)
			req, err := Parse(r, []string{"api"})
			if tt.wantCode != "" {
				if err == nil || err.Code != tt.wantCode {
					t.Fatalf("got %v, want %s", err, tt.wantCode)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Target != tt.wantTarget || req.Action != tt.wantAction || req.Name != tt.wantName {
				t.Errorf("got target %d action %d name %q", req.Target, req.Action, req.Name)
			}
		})
	}
}

func TestProfiles(t *testing.T) {
	schemas := []string{"api", "v2"}
	t.Run("no profile header picks the first schema", func(t *testing.T) {
		req, err := Parse(httptest.NewRequest("GET", "/items", nil), schemas)
		if err != nil || req.Schema != "api" || req.ProfileGiven {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("Accept-Profile picks a schema for reads", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/items", nil)
		r.Header.Set("Accept-Profile", "v2")
		req, err := Parse(r, schemas)
		if err != nil || req.Schema != "v2" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("Content-Profile picks a schema for writes", func(t *testing.T) {
		r := httptest.NewRequest("POST", "/rpc/f", strings.NewReader("{}"))
		r.Header.Set("Content-Profile", "v2")
		req, err := Parse(r, schemas)
		if err != nil || req.Schema != "v2" {
			t.Fatalf("got %+v %v", req, err)
		}
	})
	t.Run("an unexposed schema is PGRST106", func(t *testing.T) {
		r := httptest.NewRequest("GET", "/items", nil)
		r.Header.Set("Accept-Profile", "private")
		_, err := Parse(r, schemas)
		if err == nil || err.Code != "PGRST106" || err.Status != http.StatusNotAcceptable {
			t.Fatalf("got %v", err)
		}
	})
}

func TestPreferences(t *testing.T) {
	t.Run("several headers and comma lists are read", func(t *testing.T) {
		p, err := ParsePreferences([]string{"return=representation, count=exact", "tx=rollback", "max-affected=5"})
		if err != nil || p.Return != "representation" || p.Count != "exact" || p.Tx != "rollback" || p.MaxAffected == nil || *p.MaxAffected != 5 {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("the first occurrence wins", func(t *testing.T) {
		p, _ := ParsePreferences([]string{"return=minimal, return=representation"})
		if p.Return != "minimal" {
			t.Fatalf("got %q", p.Return)
		}
	})
	t.Run("unknown preferences are ignored when lenient", func(t *testing.T) {
		p, err := ParsePreferences([]string{"foo=bar, return=wrong"})
		if err != nil || len(p.Invalid) != 2 || p.Return != "" {
			t.Fatalf("got %+v %v", p, err)
		}
	})
	t.Run("unknown preferences are PGRST122 when strict", func(t *testing.T) {
		_, err := ParsePreferences([]string{"handling=strict, foo=bar"})
		if err == nil || err.Code != "PGRST122" || err.Details != "Invalid preferences: foo=bar" {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("a negative max-affected is invalid", func(t *testing.T) {
		p, _ := ParsePreferences([]string{"max-affected=-1"})
		if p.MaxAffected != nil || len(p.Invalid) != 1 {
			t.Fatalf("got %+v", p)
		}
	})
}
