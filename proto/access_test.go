package proto_test

import (
	"slices"
	"strings"
	"testing"

	authv1 "github.com/cardroom/cardroom/proto/gen/go/cardroom/auth/v1"
	_ "github.com/cardroom/cardroom/proto/gen/go/cardroom/seating/v1"
	_ "github.com/cardroom/cardroom/proto/gen/go/cardroom/table/v1"
	_ "github.com/cardroom/cardroom/proto/gen/go/cardroom/tournament/v1"
	_ "github.com/cardroom/cardroom/proto/gen/go/cardroom/wallet/v1"
	"github.com/cardroom/cardroom/proto/openapi"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// services are every service of the suite: the four the gateway fronts and
// the service-only ones the parts call each other by.
var services = []protoreflect.FullName{
	"cardroom.table.v1.TableService",
	"cardroom.tournament.v1.TournamentService",
	"cardroom.wallet.v1.WalletService",
	"cardroom.seating.v1.SeatingService",
	"cardroom.table.v1.TournamentTableService",
	"cardroom.table.v1.CashTableLedgerService",
}

// TestEveryRPCDeclaresAccess guards the platform's deny-when-absent rule:
// an RPC added without (cardroom.auth.v1.access) would be unreachable, and
// one with an empty role list and public=false would be too.
func TestEveryRPCDeclaresAccess(t *testing.T) {
	t.Parallel()
	var count int
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(fd.Package()), "cardroom.") {
			return true
		}
		for i := range fd.Services().Len() {
			sd := fd.Services().Get(i)
			for j := range sd.Methods().Len() {
				md := sd.Methods().Get(j)
				count++
				access, ok := proto.GetExtension(md.Options(), authv1.E_Access).(*authv1.Access)
				if !ok || access == nil {
					t.Errorf("%s: no (cardroom.auth.v1.access) option", md.FullName())
					continue
				}
				if !access.GetPublic() && len(access.GetRoles()) == 0 {
					t.Errorf("%s: access lists no roles and is not public", md.FullName())
				}
				for _, r := range access.GetRoles() {
					if r == authv1.Role_ROLE_UNSPECIFIED {
						t.Errorf("%s: access grants ROLE_UNSPECIFIED", md.FullName())
					}
				}
			}
		}
		return true
	})
	if count < 10 {
		t.Fatalf("found %d RPCs in cardroom.* packages, want at least 10 (are the generated packages linked?)", count)
	}
}

// TestEveryRPCHasHTTPRoute checks that apps reach every RPC they may call
// through the gateway, and that the merged OpenAPI document names each
// route; and that no RPC only the service role may call has a route at
// all: the parts' calls to each other (wallet holds and cash-outs, the
// tournament's table controls, ...) never pass the public gateway. The
// gateway refuses to start with such a route too (gateway.New), and the
// service refuses every role but service; this keeps a new RPC from
// slipping through with a route.
func TestEveryRPCHasHTTPRoute(t *testing.T) {
	t.Parallel()
	doc := string(openapi.JSON())
	var serviceOnlyRPCs int
	for _, name := range services {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(name)
		if err != nil {
			t.Fatalf("find %s: %v", name, err)
		}
		methods := d.(protoreflect.ServiceDescriptor).Methods()
		for i := range methods.Len() {
			md := methods.Get(i)
			rule, ok := proto.GetExtension(md.Options(), annotations.E_Http).(*annotations.HttpRule)
			routed := ok && rule != nil && rule.GetPattern() != nil
			if serviceOnly(md) {
				serviceOnlyRPCs++
				if routed {
					t.Errorf("%s: only the service role may call it, yet it has the REST route %s; remove its google.api.http option", md.FullName(), httpPath(rule))
				}
				continue
			}
			if !routed {
				t.Errorf("%s: no google.api.http route", md.FullName())
				continue
			}
			path := httpPath(rule)
			if !strings.Contains(doc, `"`+path+`"`) {
				t.Errorf("%s: route %s missing from openapi document", md.FullName(), path)
			}
		}
	}
	if serviceOnlyRPCs == 0 {
		t.Fatal("no service-only RPC found: the wallet's holds and cash-outs are service-only")
	}
}

// TestEveryServiceIsChecked keeps services in step with the files: a
// service added to a cardroom package is checked by the tests above.
func TestEveryServiceIsChecked(t *testing.T) {
	t.Parallel()
	protoregistry.GlobalFiles.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if !strings.HasPrefix(string(fd.Package()), "cardroom.") {
			return true
		}
		for i := range fd.Services().Len() {
			if name := fd.Services().Get(i).FullName(); !slices.Contains(services, name) {
				t.Errorf("service %s is not in this file's services list", name)
			}
		}
		return true
	})
}

func serviceOnly(md protoreflect.MethodDescriptor) bool {
	access, _ := proto.GetExtension(md.Options(), authv1.E_Access).(*authv1.Access)
	if access.GetPublic() {
		return false
	}
	for _, r := range access.GetRoles() {
		if r != authv1.Role_ROLE_SERVICE {
			return false
		}
	}
	return true
}

func httpPath(rule *annotations.HttpRule) string {
	switch p := rule.GetPattern().(type) {
	case *annotations.HttpRule_Get:
		return p.Get
	case *annotations.HttpRule_Post:
		return p.Post
	case *annotations.HttpRule_Put:
		return p.Put
	case *annotations.HttpRule_Patch:
		return p.Patch
	case *annotations.HttpRule_Delete:
		return p.Delete
	case *annotations.HttpRule_Custom:
		return p.Custom.GetPath()
	}
	return ""
}
