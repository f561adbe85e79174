// Package check holds the tests that keep deploy/observability honest:
// the Grafana dashboards are generated from the definitions here and
// compared with the committed JSON, every PromQL query of a dashboard or
// an alert parses with Prometheus's own parser and names only metric
// families that deploy/observability/metrics.txt lists (which the
// end-to-end tests check against a running suite), the alerting rules
// load with Prometheus's own rule-file parser, and every alert links a
// runbook section of docs/RUNBOOKS.md that exists. It is a module of its
// own, outside go.work, so that Prometheus's dependencies never reach the
// suite's build.
package check
