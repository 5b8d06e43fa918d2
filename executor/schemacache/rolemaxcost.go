package schemacache

import (
	"fmt"
	"strconv"
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

// roleMaxCosts are the roles' limits from their settings. A value that is
// not a whole number of 0 or more is an error naming the setting and the
// role: the load fails (at start, a startup error; on reload, the cache
// in use stays), rather than leaving the role unguarded without a word.
// 0 is a role's way to have no limit under a nonzero db_max_cost.
func roleMaxCosts(settings map[string][]Setting) (map[string]int64, error) {
	var costs map[string]int64
	for role, ss := range settings {
		for _, s := range ss {
			if s.Name != MaxCostSetting {
				continue
			}
			n, err := strconv.ParseInt(s.Value, 10, 64)
			if err != nil || n < 0 || n > MaxCostLimit {
				return nil, fmt.Errorf("%s of role %q: must be a whole number from 0 (no limit) to %d, got %q",
					MaxCostSetting, role, int64(MaxCostLimit), s.Value)
			}
			if costs == nil {
				costs = map[string]int64{}
			}
			costs[role] = n
		}
	}
	return costs, nil
}

// RoleMaxCost is role's own query cost limit, when its settings give one.
func (c *Cache) RoleMaxCost(role string) (int64, bool) {
	n, ok := c.roleMaxCost[role]
	return n, ok
}

// HasRoleMaxCosts says whether any role has a limit of its own: when none
// has and db_max_cost is 0, a request looks no further.
func (c *Cache) HasRoleMaxCosts() bool { return len(c.roleMaxCost) > 0 }
