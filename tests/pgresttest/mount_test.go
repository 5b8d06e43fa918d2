package pgresttest

import (
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// Mount puts pgrest inside handle_path, formatted as caddy fmt would, so the
// adapter has no warning to give.
func TestCaddyfileMount(t *testing.T) {
	got := caddyfile(8080, map[string]string{"db_uri": "x", "db_schemas": "api"}, Options{Mount: "/rest/v1"})
	want := "{\n\tadmin off\n\tauto_https off\n\tpersist_config off\n}\n" +
		"http://127.0.0.1:8080 {\n\thandle_path /rest/v1/* {\n\t\tpgrest {\n\t\t\tdb_schemas api\n\t\t\tdb_uri x\n\t\t}\n\t}\n}\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	_, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(got), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 0 {
		t.Fatalf("warnings: %+v", warnings)
	}
}
