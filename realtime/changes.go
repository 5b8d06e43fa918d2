package realtime

import (
	"context"
	"encoding/json"

	"github.com/pgrest/caddy-pgrest/jwtauth"
	"github.com/pgrest/caddy-pgrest/realtime/changes"
)

// ChangeFeed is what the socket needs of the change feed
// (realtime/changes): its Feed.Subscribe (feed.go adapts *changes.Feed),
// behind an interface so the socket's tests and servers without a
// publication need no feed.
type ChangeFeed interface {
	// Subscribe subscribes specs for who, resuming after from when it
	// is not zero (changes.Feed.SubscribeFrom).
	Subscribe(ctx context.Context, who ChangeIdentity, specs []ChangeSpec, from ChangePosition,
		deliver func(ChangeDelivery)) (ChangeSubscription, []ChangeBound, error)
}

// ChangeSubscription is one channel's subscription to changes
// (*changes.Subscription).
type ChangeSubscription interface {
	// SetIdentity is called on an access_token refresh.
	SetIdentity(who ChangeIdentity)
	Close()
	// Done is closed when the feed ends the subscription (a slow
	// consumer, the feed closing), Err then says why.
	Done() <-chan struct{}
	Err() error
	// ResumeAt is, once ended, where its client resumes
	// (changes.Subscription.ResumeAt).
	ResumeAt(written ChangePosition, wroteAll bool) ChangePosition
}

// The feed's types, as the socket uses them.
type (
	// ChangeIdentity is who subscribes: the role and the verified
	// claims as JSON (request.jwt.claims).
	ChangeIdentity = changes.Identity
	// ChangeSpec is one entry of a join's config.postgres_changes.
	ChangeSpec = changes.Spec
	// ChangeBound is an accepted spec and its id.
	ChangeBound = changes.Bound
	// ChangeDelivery is one change for one subscription.
	ChangeDelivery = changes.Delivery
	// ChangePosition is a place in the stream of changes.
	ChangePosition = changes.Position
)

// joinSpec is a spec as a join lists it.
type joinSpec struct {
	Event  string `json:"event"`
	Schema string `json:"schema"`
	Table  string `json:"table"`
	Filter string `json:"filter"`
}

// ChangeSubscribeError is changes.SubscribeError: a spec refused, with
// the text Supabase replies with.
type ChangeSubscribeError struct{ Message string }

func (e *ChangeSubscribeError) Error() string { return e.Message }

// compactSpecs drops the null entries a join may list (Supabase's
// pg_change_params rejects nil).
func compactSpecs(in []*joinSpec) []ChangeSpec {
	out := make([]ChangeSpec, 0, len(in))
	for _, s := range in {
		if s != nil {
			out = append(out, ChangeSpec{Event: s.Event, Schema: s.Schema, Table: s.Table, Filter: s.Filter})
		}
	}
	return out
}

// changeIdentity is who a channel's changes are authorized for.
func changeIdentity(id identity) ChangeIdentity {
	return ChangeIdentity{Role: id.Role, Claims: []byte(claimsOf(id.Identity))}
}

// claimsOf is request.jwt.claims: the verified claims with the role, or
// {"role": <anon>} for an anonymous socket, as REST sets it.
func claimsOf(id jwtauth.Identity) string {
	if id.ClaimsJSON != "" {
		return id.ClaimsJSON
	}
	b, _ := json.Marshal(map[string]string{"role": id.Role})
	return string(b)
}
