package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	authv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/auth/v1"
	seatingv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	tablev1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	tournamentv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	walletv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
)

// docs/SECURITY.md markers around the generated access table.
const (
	securityDoc   = "../../docs/SECURITY.md"
	accessBegin   = "<!-- access table: generated; go test ./cmd/cardroom -run TestSecurityDocIsCurrent -update rewrites it -->\n"
	accessEnd     = "<!-- end of access table -->"
	gRPCOnlyRoute = "— (gRPC only)"
)

// suiteServices are the services' names, in the order the table lists
// them: the four the gateway fronts, then any other of the cardroom
// packages (the service-only ones), by name.
func suiteServices() []string {
	names := []string{
		tablev1.TableService_ServiceDesc.ServiceName,
		tournamentv1.TournamentService_ServiceDesc.ServiceName,
		walletv1.WalletService_ServiceDesc.ServiceName,
		seatingv1.SeatingService_ServiceDesc.ServiceName,
	}
	var more []string
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if strings.HasPrefix(string(fd.Package()), "cardroom.") {
			for i := range fd.Services().Len() {
				if n := string(fd.Services().Get(i).FullName()); !slices.Contains(names, n) {
					more = append(more, n)
				}
			}
		}
		return true
	})
	slices.Sort(more)
	return append(names, more...)
}

// accessTable returns the Markdown table of every RPC: its REST route (none
// for the service-only ones) and the roles its access rule names.
func accessTable(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("| RPC | REST route | roles |\n|---|---|---|\n")
	for _, name := range suiteServices() {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			t.Fatal(err)
		}
		sd := d.(protoreflect.ServiceDescriptor)
		for i := range sd.Methods().Len() {
			md := sd.Methods().Get(i)
			access, _ := proto.GetExtension(md.Options(), authv1.E_Access).(*authv1.Access)
			var roles []string
			for _, r := range access.GetRoles() {
				roles = append(roles, strings.ToLower(strings.TrimPrefix(r.String(), "ROLE_")))
			}
			if access.GetPublic() {
				roles = []string{"public"}
			}
			route := gRPCOnlyRoute
			if rule, ok := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule); ok && rule != nil {
				if m, p := httpBinding(rule); p != "" {
					route = fmt.Sprintf("`%s %s`", m, p)
				}
			}
			fmt.Fprintf(&b, "| %s.%s | %s | %s |\n", sd.Name(), md.Name(), route, strings.Join(roles, ", "))
		}
	}
	return b.String()
}

func httpBinding(rule *annotations.HttpRule) (string, string) {
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return "GET", p.Get
	case *annotations.HttpRule_Post:
		return "POST", p.Post
	case *annotations.HttpRule_Put:
		return "PUT", p.Put
	case *annotations.HttpRule_Patch:
		return "PATCH", p.Patch
	case *annotations.HttpRule_Delete:
		return "DELETE", p.Delete
	case *annotations.HttpRule_Custom:
		return p.Custom.GetKind(), p.Custom.GetPath()
	}
	return "", ""
}

// TestSecurityDocIsCurrent keeps docs/SECURITY.md's table of who may call
// each RPC in step with the access options in the protos.
func TestSecurityDocIsCurrent(t *testing.T) {
	t.Parallel()
	generatedSection(t, securityDoc, accessBegin, accessEnd, accessTable(t),
		"docs/SECURITY.md's access table is stale: run `go test ./cmd/cardroom -run TestSecurityDocIsCurrent -update`")
}
