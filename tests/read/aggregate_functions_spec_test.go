package read

import "testing"

// TestAggregateFunctions mirrors the spread cases of PostgREST v16.2's
// AggregateFunctionsSpec (test/spec/Feature/Query/AggregateFunctionsSpec.hs):
// aggregates inside to-one spreads, refused inside to-many spreads, with
// db_aggregates_enabled on as the spec's "allowed" configuration has it,
// and refused everywhere with its "disallowed" one (baseCfg).
func TestAggregateFunctions(t *testing.T) {
	t.Run("allowed", func(t *testing.T) {
		s := startSpreadsServer(t, "db_aggregates_enabled true")
		runSpecRequests(t, s, aggregateFunctionsSpreadSpec)
	})
	t.Run("disallowed", func(t *testing.T) {
		s := startSpreadsServer(t)
		runSpecRequests(t, s, aggregateFunctionsDisallowedSpreadSpec)
	})
}

var aggregateFunctionsSpreadSpec = []specRequest{
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports the use of aggregates on spreaded fields", path: "/budget_expenses?select=total_expenses:expense_amount.sum(),...budget_categories(budget_owner,total_budget:budget_amount.sum())&order=budget_categories(budget_owner)", body: `[
		{"total_expenses": 600.52,"budget_owner": "Brian Smith",  "total_budget": 2000.42},
		{"total_expenses": 100.22, "budget_owner": "Jane Clarkson","total_budget": 7000.41},
		{"total_expenses": 900.27, "budget_owner": "Sally Hughes", "total_budget": 500.23}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports the use of aggregates on spreaded fields when only aggregates are supplied", path: "/budget_expenses?select=...budget_categories(total_budget:budget_amount.sum())", body: `[{"total_budget": 9501.06}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates from a spread relationships grouped by spreaded fields from other relationships/1", path: "/processes?select=...process_costs(cost.sum()),...process_categories(name)&order=process_categories(name)", body: `[
		{"sum": 400.00, "name": "Batch"},
		{"sum": 350.00, "name": "Mass"}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates from a spread relationships grouped by spreaded fields from other relationships/2", path: "/processes?select=...process_costs(cost_sum:cost.sum()),...process_categories(category:name)&order=process_categories(category)", body: `[
		{"cost_sum": 400.00, "category": "Batch"},
		{"cost_sum": 350.00, "category": "Mass"}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships/1", path: "/process_supervisor?select=...processes(factory_id,...process_costs(cost.sum()))&order=processes(factory_id).desc", body: `[
		{"factory_id": 3, "sum": 110.00},
		{"factory_id": 2, "sum": 500.00},
		{"factory_id": 1, "sum": 350.00}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships/2", path: "/process_supervisor?select=...processes(factory_id,...process_costs(cost_sum:cost.sum()))&order=processes(factory_id).desc", body: `[
		{"factory_id": 3, "cost_sum": 110.00},
		{"factory_id": 2, "cost_sum": 500.00},
		{"factory_id": 1, "cost_sum": 350.00}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships, grouped by a regular nested relationship/1", path: "/process_supervisor?select=...processes(factories(name),...process_costs(cost.sum()))", body: `[
		{"factories": {"name": "Factory A"}, "sum": 350.00},
		{"factories": {"name": "Factory B"}, "sum": 500.00},
		{"factories": {"name": "Factory C"}, "sum": 110.00}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships, grouped by a regular nested relationship/2", path: "/process_supervisor?select=...processes(factory:factories(name),...process_costs(cost_sum:cost.sum()))", body: `[
		{"factory": {"name": "Factory A"}, "cost_sum": 350.00},
		{"factory": {"name": "Factory B"}, "cost_sum": 500.00},
		{"factory": {"name": "Factory C"}, "cost_sum": 110.00}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships, grouped by spreaded fields from other nested relationships/1", path: "/process_supervisor?select=supervisor_id,...processes(...process_costs(cost.sum()),...process_categories(name))&order=supervisor_id", body: `[
		{"supervisor_id": 1, "sum": 220.00, "name": "Batch"},
		{"supervisor_id": 2, "sum": 70.00, "name": "Batch"},
		{"supervisor_id": 2, "sum": 200.00, "name": "Mass"},
		{"supervisor_id": 3, "sum": 180.00, "name": "Batch"},
		{"supervisor_id": 3, "sum": 110.00, "name": "Mass"},
		{"supervisor_id": 4, "sum": 180.00, "name": "Batch"}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships, grouped by spreaded fields from other nested relationships/2", path: "/process_supervisor?select=supervisor_id,...processes(...process_costs(cost_sum:cost.sum()),...process_categories(category:name))&order=supervisor_id", body: `[
		{"supervisor_id": 1, "cost_sum": 220.00, "category": "Batch"},
		{"supervisor_id": 2, "cost_sum": 70.00, "category": "Batch"},
		{"supervisor_id": 2, "cost_sum": 200.00, "category": "Mass"},
		{"supervisor_id": 3, "cost_sum": 180.00, "category": "Batch"},
		{"supervisor_id": 3, "cost_sum": 110.00, "category": "Mass"},
		{"supervisor_id": 4, "cost_sum": 180.00, "category": "Batch"}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships, grouped by spreaded fields from other nested relationships, using a nested relationship as top parent/1", path: "/supervisors?select=name,process_supervisor(...processes(...process_costs(cost.sum()),...process_categories(name)))", body: `[
		{"name": "Mary", "process_supervisor": [{"name": "Batch", "sum": 220.00}]},
		{"name": "John", "process_supervisor": [{"name": "Batch", "sum": 70.00}, {"name": "Mass", "sum": 200.00}]},
		{"name": "Peter", "process_supervisor": [{"name": "Batch", "sum": 180.00}, {"name": "Mass", "sum": 110.00}]},
		{"name": "Sarah", "process_supervisor": [{"name": "Batch", "sum": 180.00}]},
		{"name": "Jane", "process_supervisor": []}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports aggregates on spreaded fields from nested relationships, grouped by spreaded fields from other nested relationships, using a nested relationship as top parent/2", path: "/supervisors?select=name,process_supervisor(...processes(...process_costs(cost_sum:cost.sum()),...process_categories(category:name)))", body: `[
		{"name": "Mary", "process_supervisor": [{"category": "Batch", "cost_sum": 220.00}]},
		{"name": "John", "process_supervisor": [{"category": "Batch", "cost_sum": 70.00}, {"category": "Mass", "cost_sum": 200.00}]},
		{"name": "Peter", "process_supervisor": [{"category": "Batch", "cost_sum": 180.00}, {"category": "Mass", "cost_sum": 110.00}]},
		{"name": "Sarah", "process_supervisor": [{"category": "Batch", "cost_sum": 180.00}]},
		{"name": "Jane", "process_supervisor": []}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works by itself in the embedded resource/1", path: "/process_supervisor?select=supervisor_id,...processes(count())&order=supervisor_id", body: `[
		{"supervisor_id": 1, "count": 2},
		{"supervisor_id": 2, "count": 2},
		{"supervisor_id": 3, "count": 3},
		{"supervisor_id": 4, "count": 1}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works by itself in the embedded resource/2", path: "/process_supervisor?select=supervisor_id,...processes(processes_count:count())&order=supervisor_id", body: `[
		{"supervisor_id": 1, "processes_count": 2},
		{"supervisor_id": 2, "processes_count": 2},
		{"supervisor_id": 3, "processes_count": 3},
		{"supervisor_id": 4, "processes_count": 1}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works alongside other columns in the embedded resource/1", path: "/process_supervisor?select=...supervisors(id,count())&order=supervisors(id)", body: `[
		{"id": 1, "count": 2},
		{"id": 2, "count": 2},
		{"id": 3, "count": 3},
		{"id": 4, "count": 1}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works alongside other columns in the embedded resource/2", path: "/process_supervisor?select=...supervisors(supervisor:id,supervisor_count:count())&order=supervisors(supervisor)", body: `[
		{"supervisor": 1, "supervisor_count": 2},
		{"supervisor": 2, "supervisor_count": 2},
		{"supervisor": 3, "supervisor_count": 3},
		{"supervisor": 4, "supervisor_count": 1}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works on nested resources/1", path: "/process_supervisor?select=supervisor_id,...processes(...process_costs(count()))&order=supervisor_id", body: `[
		{"supervisor_id": 1, "count": 2},
		{"supervisor_id": 2, "count": 2},
		{"supervisor_id": 3, "count": 3},
		{"supervisor_id": 4, "count": 1}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works on nested resources/2", path: "/process_supervisor?select=supervisor:supervisor_id,...processes(...process_costs(process_costs_count:count()))&order=supervisor_id", body: `[
		{"supervisor": 1, "process_costs_count": 2},
		{"supervisor": 2, "process_costs_count": 2},
		{"supervisor": 3, "process_costs_count": 3},
		{"supervisor": 4, "process_costs_count": 1}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works on nested resources grouped by spreaded fields/1", path: "/process_supervisor?select=...processes(factory_id,...process_costs(count()))&order=processes(factory_id)", body: `[
		{"factory_id": 1, "count": 2},
		{"factory_id": 2, "count": 4},
		{"factory_id": 3, "count": 2}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works on nested resources grouped by spreaded fields/2", path: "/process_supervisor?select=...processes(factory:factory_id,...process_costs(process_costs_count:count()))&order=processes(factory)", body: `[
		{"factory": 1, "process_costs_count": 2},
		{"factory": 2, "process_costs_count": 4},
		{"factory": 3, "process_costs_count": 2}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-one spread relationships/supports count() aggregate without specifying a field/works on different levels of the nested resources at the same time", path: "/process_supervisor?select=...processes(factory:factory_id,processes_count:count(),...process_costs(process_costs_count:count()))&order=processes(factory)", body: `[
		{"factory": 1, "processes_count": 2, "process_costs_count": 2},
		{"factory": 2, "processes_count": 4, "process_costs_count": 4},
		{"factory": 3, "processes_count": 2, "process_costs_count": 2}]`},
	{name: "aggregate functions/performing aggregations on spreaded fields from an embedded resource/to-many spread relationships/does not support the use of aggregates", path: "/factories?select=name,...factory_buildings(type,size.sum())", status: 400, body: `{
		"code": "PGRST127",
		"message":"Feature not implemented",
		"details":"Aggregates are not implemented for one-to-many or many-to-many spreads.",
		"hint":null
		}`},
}

var aggregateFunctionsDisallowedSpreadSpec = []specRequest{
	{name: "attempting to use an aggregate when aggregate functions are disallowed/prevents the use of aggregates on to-one spread embeds", path: "/project_invoices?select=...projects(id.count())", status: 400, body: `{
		"hint":null,
		"details":null,
		"code":"PGRST123",
		"message":"Use of aggregate functions is not allowed"
		}`},
	{name: "attempting to use an aggregate when aggregate functions are disallowed/prevents the use of aggregates on to-many spread embeds", path: "/factories?select=...processes(id.count())", status: 400, body: `{
		"hint":null,
		"details":null,
		"code":"PGRST123",
		"message":"Use of aggregate functions is not allowed"
		}`},
}
