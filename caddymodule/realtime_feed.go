package caddymodule

import (
	"context"
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/pgrest/caddy-pgrest/realtime"
	"github.com/pgrest/caddy-pgrest/realtime/changes"
)

// feeds holds the change feeds by database, publication and slot, across
// config reloads as pools are: Caddy provisions the next config before
// it cleans up the last, and two feeds cannot stream from one slot.
var feeds = caddy.NewUsagePool()

// sharedFeed is a change feed as the usage pool holds it.
type sharedFeed struct{ *changes.Feed }

// Destruct stops the feed and drops its slot once its last handler is
// gone.
func (f sharedFeed) Destruct() error { return f.Feed.Close() }

// startChangeFeed takes the change feed postgres_changes is served from,
// when realtime_publication names a publication; nil otherwise.
func (h *Handler) startChangeFeed(node string) (realtime.ChangeFeed, error) {
	if h.RealtimePublication == "" {
		return nil, nil
	}
	slot := slotNameOf(node)
	sum := sha256.Sum256([]byte(h.live.dbURI + "\x00" + h.RealtimePublication + "\x00" + slot))
	key := fmt.Sprintf("%x", sum)
	pool := h.pool.Pool
	logger := h.logger.Named("realtime.changes")
	val, _, err := feeds.LoadOrNew(key, func() (caddy.Destructor, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(h.DBPoolAcquisitionTimeout)+30*time.Second)
		defer cancel()
		f, err := changes.Start(ctx, changes.Config{ConnString: h.live.dbURI, Publication: h.RealtimePublication, SlotName: slot,
			ReplayWindow: time.Duration(h.RealtimeResumeWindow)},
			pool, logger)
		if err != nil {
			return nil, err
		}
		return sharedFeed{f}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("realtime_publication: starting the change feed of %q: %w", h.RealtimePublication, err)
	}
	h.changeFeedClose = func() error {
		_, err := feeds.Delete(key)
		return err
	}
	return realtime.FeedOf(val.(sharedFeed).Feed), nil
}

var notSlotChar = regexp.MustCompile(`[^a-z0-9_]+`)

// slotNameOf is the replication slot of a node: pgrest_realtime_ and the
// node's name in the letters a slot name may hold.
func slotNameOf(node string) string {
	name := "pgrest_realtime_" + notSlotChar.ReplaceAllString(strings.ToLower(node), "_")
	if len(name) > 63 {
		sum := sha256.Sum256([]byte(node))
		name = name[:50] + "_" + fmt.Sprintf("%x", sum[:6])
	}
	return name
}
