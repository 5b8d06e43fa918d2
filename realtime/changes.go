package realtime

import (
	"context"
	"encoding/json"

	"github.com/pgrest/caddy-pgrest/jwtauth"
)

// ChangeFeed is what the socket needs of the change feed
// (realtime/changes): its Feed.Subscribe, with the feed's types mirrored
// here so the socket side builds on its own; feed.go adapts *changes.Feed.
type ChangeFeed interface {
	Subscribe(ctx context.Context, who ChangeIdentity, specs []ChangeSpec, deliver func(ChangeDelivery)) (ChangeSubscription, []ChangeBound, error)
}

// ChangeSubscription is one channel's subscription to changes.
type ChangeSubscription interface {
	// SetIdentity is called on an access_token refresh.
	SetIdentity(who ChangeIdentity)
	Close()
}

// ChangeIdentity is changes.Identity: the role and the verified claims as
// JSON (request.jwt.claims).
type ChangeIdentity struct {
	Role   string
	Claims []byte
}

// ChangeSpec is changes.Spec: one entry of a join's
// config.postgres_changes.
type ChangeSpec struct {
	Event  string `json:"event"`
	Schema string `json:"schema"`
	Table  string `json:"table"`
	Filter string `json:"filter"`
}

// ChangeBound is changes.Bound: an accepted spec and its id.
type ChangeBound struct {
	ID   uint32
	Spec ChangeSpec
}

// reply is the bound spec as the join's reply lists it: {"id", "event",
// "schema", "table", "filter"}; realtime-js matches each against the
// binding it sent (a filter it did not send is left out).
func (b ChangeBound) reply() map[string]any {
	out := map[string]any{"id": b.ID, "event": b.Spec.Event, "schema": b.Spec.Schema}
	if b.Spec.Table != "" {
		out["table"] = b.Spec.Table
	}
	if b.Spec.Filter != "" {
		out["filter"] = b.Spec.Filter
	}
	return out
}

// ChangeDelivery is changes.Delivery: one change for one subscription.
type ChangeDelivery struct {
	IDs  []uint32
	Data json.RawMessage
}

// ChangeSubscribeError is changes.SubscribeError: a spec refused, with
// the text Supabase replies with.
type ChangeSubscribeError struct{ Message string }

func (e *ChangeSubscribeError) Error() string { return e.Message }

// compactSpecs drops the null entries a join may list (Supabase's
// pg_change_params rejects nil).
func compactSpecs(in []*ChangeSpec) []ChangeSpec {
	out := make([]ChangeSpec, 0, len(in))
	for _, s := range in {
		if s != nil {
			out = append(out, *s)
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
