// Package check holds the tests that keep deploy/k8s honest: every
// manifest parses strictly into its Kubernetes type, every Deployment runs
// a real part of the cardroom binary from the one image, Services select
// Deployments and name their ports, the config points at Services that
// exist, and the overlays patch only what the base defines. It lives in its
// own module so that k8s.io/api never becomes a dependency of the suite.
package check
