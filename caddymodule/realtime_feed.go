package caddymodule

import (
	"github.com/pgrest/caddy-pgrest/realtime"
)

// startChangeFeed starts the change feed postgres_changes is served
// from, when realtime_publication names a publication; nil otherwise.
func (h *Handler) startChangeFeed(node string) (realtime.ChangeFeed, error) {
	if h.RealtimePublication == "" {
		return nil, nil
	}
	// The change feed (realtime/changes) is not part of this build yet:
	// postgres_changes joins are refused with Supabase's
	// RealtimeDisabledForConfiguration error.
	h.logger.Warn("realtime_publication is set, but this build has no change feed; postgres_changes are refused")
	return nil, nil
}
