package realtime

import (
	"context"
	"errors"

	"github.com/pgrest/caddy-pgrest/realtime/changes"
)

// FeedOf serves postgres_changes from the change feed f.
func FeedOf(f *changes.Feed) ChangeFeed { return feedAdapter{f} }

type feedAdapter struct{ f *changes.Feed }

// Subscribe subscribes through the feed, its refusals turned into
// ChangeSubscribeError.
func (a feedAdapter) Subscribe(ctx context.Context, who ChangeIdentity, specs []ChangeSpec, from ChangePosition,
	deliver func(ChangeDelivery)) (ChangeSubscription, []ChangeBound, error) {
	sub, bound, err := a.f.SubscribeFrom(ctx, who, specs, from, deliver)
	if err != nil {
		var serr *changes.SubscribeError
		if errors.As(err, &serr) {
			return nil, nil, &ChangeSubscribeError{Message: serr.Message}
		}
		return nil, nil, err
	}
	return sub, bound, nil
}
