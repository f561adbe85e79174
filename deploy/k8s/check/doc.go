// Package check holds the tests that keep deploy/k8s honest: kustomize
// (the library kubectl -k uses) builds the base and every overlay, each
// resource decodes strictly into its Kubernetes type, every Deployment
// runs a real part of the cardroom binary from the one image after
// migrating its database, its environment loads with the binary's own
// configuration code and its ports and probes are the ones the binary
// listens on; disruption budgets, autoscalers and network policies say
// what the README promises; no secret is committed. It lives in its own
// module so that k8s.io/api and kustomize never become dependencies of
// the suite.
package check
