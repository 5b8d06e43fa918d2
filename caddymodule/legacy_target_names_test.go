package caddymodule

import (
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestURLUseLegacyTargetNames(t *testing.T) {
	parse := func(t *testing.T, body string) Handler {
		t.Helper()
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + body + "\n}")); err != nil {
			t.Fatal(err)
		}
		return h
	}
	t.Run("true and false are read from the Caddyfile", func(t *testing.T) {
		for body, want := range map[string]bool{
			"url_use_legacy_target_names true":  true,
			"url_use_legacy_target_names false": false,
		} {
			h := parse(t, body)
			if h.URLUseLegacyTargetNames == nil || *h.URLUseLegacyTargetNames != want {
				t.Errorf("%s: got %v", body, h.URLUseLegacyTargetNames)
			}
			h.applyDefaults()
			if *h.URLUseLegacyTargetNames != want {
				t.Errorf("%s: the default overrode it", body)
			}
		}
	})
	t.Run("absent is PostgREST's default, true", func(t *testing.T) {
		h := parse(t, "db_anon_role web_anon")
		h.applyDefaults()
		if h.URLUseLegacyTargetNames == nil || !*h.URLUseLegacyTargetNames {
			t.Errorf("got %v", h.URLUseLegacyTargetNames)
		}
	})
	t.Run("anything but a boolean is refused", func(t *testing.T) {
		for _, body := range []string{"url_use_legacy_target_names", "url_use_legacy_target_names maybe",
			"url_use_legacy_target_names true false"} {
			var h Handler
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("pgrest {\n " + body + "\n}")); err == nil {
				t.Errorf("%q accepted", body)
			}
		}
	})
	t.Run("in-database configuration sets it over the Caddyfile", func(t *testing.T) {
		base := validHandler()
		for v, want := range map[string]bool{"false": false, "TRUE": true, "0": false, "": true} {
			eff, err := base.withDBSettings(map[string]string{"url_use_legacy_target_names": v})
			if err != nil {
				t.Fatal(err)
			}
			if *eff.URLUseLegacyTargetNames != want {
				t.Errorf("pgrst.url_use_legacy_target_names = %q: got %v, want %v", v, *eff.URLUseLegacyTargetNames, want)
			}
		}
		if _, err := base.withDBSettings(map[string]string{"url_use_legacy_target_names": "perhaps"}); err == nil {
			t.Error("a value that is no boolean was accepted")
		}
		if !*base.URLUseLegacyTargetNames {
			t.Error("the Caddyfile's configuration was changed")
		}
	})
}
