// Package enginebench compares the engine's hand evaluator with other Go
// poker evaluators. It lives in its own module so that those evaluators
// never become dependencies of the services; it holds only benchmarks and
// the checks that the comparison is fair (every evaluator ranks the same
// hands the same way).
package enginebench
