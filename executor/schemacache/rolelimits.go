package schemacache

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pgrest/caddy-pgrest/ratelimit"
)

// MaxCostSetting is the role setting that gives a role its own query cost
// limit (db_max_cost): ALTER ROLE anon SET pgrst.db_max_cost = '10000'.
// It is read with the other role settings, so a schema reload picks up a
// change without a restart.
const MaxCostSetting = "pgrst.db_max_cost"

// MaxCostLimit is the largest limit db_max_cost takes: the limit travels
// in 32 bits of a request's transaction, which keeps it in its
// allocation size class; a planner cost past four billion is no limit.
const MaxCostLimit = 1<<32 - 1

// RoleSettingError is a role setting of pgrest's own (pgrst.db_max_cost,
// pgrst.rate_limit.<name>) whose value is not valid. At start it is a
// provisioning error (CheckRoleSettings); on a reload the limits of the
// last good load stay in force and it is logged.
type RoleSettingError struct {
	Role, Setting, Value string
	// Want says what the value must be.
	Want string
}

func (e *RoleSettingError) Error() string {
	return fmt.Sprintf("%s of role %q: must be %s, got %q", e.Setting, e.Role, e.Want, e.Value)
}

// roleLimits are the roles' own limits, read from their settings once per
// load, so that a request finds its role's with a map lookup.
type roleLimits struct {
	// maxCost are the query cost limits (pgrst.db_max_cost).
	maxCost map[string]int64
	// rateQuotas are the rate limit quotas by role, then limit name
	// (pgrst.rate_limit.<name>).
	rateQuotas map[string]map[string]ratelimit.Quota
}

// isLimitSetting says whether a role setting is one of pgrest's limits:
// its configuration, not a setting of the role's sessions.
func isLimitSetting(name string) bool {
	return name == MaxCostSetting || strings.HasPrefix(name, ratelimit.SettingPrefix)
}

// readRoleLimits takes pgrest's limits out of the roles' settings: it
// returns the limits and the settings left, those a request's transaction
// runs with. PostgREST v16.2 applies only the role settings its
// authenticator's pg_settings knows, which a custom pgrst.* name is not
// (unless the authenticator has it too): pgrest's limits are not passed
// to set_config either, and a function cannot read them with
// current_setting. A value that is not valid is a *RoleSettingError (the
// first one of the roles in name order, so that the error is the same
// each time), with no limits and the session settings all the same: the
// load reports it rather than leave the role unlimited without a word. A cost of 0 is a role's way to have no limit under a
// nonzero db_max_cost.
func readRoleLimits(settings map[string][]Setting) (roleLimits, map[string][]Setting, error) {
	var lim roleLimits
	var first error
	session := make(map[string][]Setting, len(settings))
	roles := make([]string, 0, len(settings))
	for role := range settings {
		roles = append(roles, role)
	}
	slices.Sort(roles)
	for _, role := range roles {
		ss := settings[role]
		if !slices.ContainsFunc(ss, func(s Setting) bool { return isLimitSetting(s.Name) }) {
			session[role] = ss
			continue
		}
		var kept []Setting
		for _, s := range ss {
			if !isLimitSetting(s.Name) {
				kept = append(kept, s)
				continue
			}
			if err := lim.add(role, s); err != nil && first == nil {
				first = err
			}
		}
		if len(kept) > 0 {
			session[role] = kept
		}
	}
	if first != nil {
		return roleLimits{}, session, first
	}
	return lim, session, nil
}

// add reads one of role's limit settings into lim.
func (lim *roleLimits) add(role string, s Setting) error {
	if s.Name == MaxCostSetting {
		n, err := strconv.ParseInt(s.Value, 10, 64)
		if err != nil || n < 0 || n > MaxCostLimit {
			return &RoleSettingError{Role: role, Setting: s.Name, Value: s.Value,
				Want: fmt.Sprintf("a whole number from 0 (no limit) to %d", int64(MaxCostLimit))}
		}
		if lim.maxCost == nil {
			lim.maxCost = map[string]int64{}
		}
		lim.maxCost[role] = n
		return nil
	}
	q, err := ratelimit.ParseRoleQuota(s.Value)
	if err != nil {
		return &RoleSettingError{Role: role, Setting: s.Name, Value: s.Value,
			Want: "a quota such as 1000/s or 1000/s burst 200 (" + err.Error() + ")"}
	}
	if lim.rateQuotas == nil {
		lim.rateQuotas = map[string]map[string]ratelimit.Quota{}
	}
	if lim.rateQuotas[role] == nil {
		lim.rateQuotas[role] = map[string]ratelimit.Quota{}
	}
	lim.rateQuotas[role][strings.TrimPrefix(s.Name, ratelimit.SettingPrefix)] = q
	return nil
}

// RoleMaxCost is role's own query cost limit, when its settings give one.
func (c *Cache) RoleMaxCost(role string) (int64, bool) {
	n, ok := c.limits.maxCost[role]
	return n, ok
}

// HasRoleMaxCosts says whether any role has a limit of its own: when none
// has and db_max_cost is 0, a request looks no further.
func (c *Cache) HasRoleMaxCosts() bool { return len(c.limits.maxCost) > 0 }

// RoleRateQuotas are role's own rate limit quotas by limit name; nil for
// none. A quota's Burst of 0 is the limit's own.
func (c *Cache) RoleRateQuotas(role string) map[string]ratelimit.Quota {
	return c.limits.rateQuotas[role]
}

// WithRoleLimitsOf is c with the role limits of prev: what a reload
// serves when a role setting of pgrest's is not valid (Load's
// *RoleSettingError), the rest of the schema being new. c is not changed.
func (c *Cache) WithRoleLimitsOf(prev *Cache) *Cache {
	out := *c
	out.limits = prev.limits
	return &out
}

// CheckRoleSettings reads the role settings alone and checks pgrest's
// limits among them: at start, a value that is not valid is then a
// *RoleSettingError before anything is served, rather than a schema load
// that fails.
func CheckRoleSettings(ctx context.Context, q Querier) error {
	rows, err := q.Query(ctx, roleSettingsSQL)
	if err != nil {
		return err
	}
	l := &loader{cat: &Catalog{}}
	if err := l.readRoleSettings(rows); err != nil {
		return err
	}
	_, _, err = readRoleLimits(l.cat.RoleSettings)
	return err
}
