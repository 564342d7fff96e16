package sandbox

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"pixdash/api"
)

// TestWireJSON_Milliseconds: every timestamp member is written as the service writes it (UTC,
// three fractional digits), in place; metadata and other strings are left as they came.
func TestWireJSON_Milliseconds(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"nine digits", `{"createdAt":"2026-11-23T14:31:31.035943160Z"}`, `{"createdAt":"2026-11-23T14:31:31.035Z"}`},
		{"eight digits", `{"paidAt":"2026-11-23T14:31:31.03594316Z"}`, `{"paidAt":"2026-11-23T14:31:31.035Z"}`},
		{"none", `{"expiresAt":"2026-11-23T14:31:31Z"}`, `{"expiresAt":"2026-11-23T14:31:31.000Z"}`},
		{"an offset", `{"updatedAt":"2026-11-23T11:31:31.5-03:00"}`, `{"updatedAt":"2026-11-23T14:31:31.500Z"}`},
		{"envelope timestamp", `{"timestamp":"2026-11-23T14:31:31.1Z","traceId":"x"}`, `{"timestamp":"2026-11-23T14:31:31.100Z","traceId":"x"}`},
		{"nested in a list", `{"items":[{"id":"a","createdAt":"2026-11-23T14:31:31Z","split":[{"settledAt":"2026-11-23T14:31:32.2Z"}]}],"total":1}`,
			`{"items":[{"id":"a","createdAt":"2026-11-23T14:31:31.000Z","split":[{"settledAt":"2026-11-23T14:31:32.200Z"}]}],"total":1}`},
		{"metadata is the merchant's", `{"metadata":{"createdAt":"2026-01-01T00:00:00Z","x":{"paidAt":"2026-01-01T00:00:00Z"}},"createdAt":"2026-01-01T00:00:00Z"}`,
			`{"metadata":{"createdAt":"2026-01-01T00:00:00Z","x":{"paidAt":"2026-01-01T00:00:00Z"}},"createdAt":"2026-01-01T00:00:00.000Z"}`},
		{"other members untouched", `{"description":"2026-11-23T14:31:31Z","At":"2026-11-23T14:31:31Z"}`, `{"description":"2026-11-23T14:31:31Z","At":"2026-11-23T14:31:31Z"}`},
		{"not a time", `{"createdAt":"ontem","resolvedAt":null}`, `{"createdAt":"ontem","resolvedAt":null}`},
		{"numbers kept exactly", `{"amount":10.50,"n":1e3,"ok":true,"v":null,"createdAt":"2026-11-23T14:31:31Z"}`, `{"amount":10.50,"n":1e3,"ok":true,"v":null,"createdAt":"2026-11-23T14:31:31.000Z"}`},
		{"escapes kept", `{"name":"a\u003cb\"c","createdAt":"2026-11-23T14:31:31Z"}`, `{"name":"a\u003cb\"c","createdAt":"2026-11-23T14:31:31.000Z"}`},
		{"empty containers", `{"a":{},"b":[],"c":[{}]}`, `{"a":{},"b":[],"c":[{}]}`},
		{"not JSON", `{"createdAt":`, `{"createdAt":`},
	}
	for _, c := range cases {
		if got := string(wireJSON([]byte(c.in))); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// FuzzWireJSON: the rewrite keeps valid JSON valid and changes nothing but time members.
func FuzzWireJSON(f *testing.F) {
	f.Add([]byte(`{"createdAt":"2026-11-23T14:31:31.03594316Z","metadata":{"paidAt":"x"},"items":[1,"a",{"b":null}]}`))
	f.Add([]byte(`[{"timestamp":"2026-11-23T14:31:31Z"}]`))
	f.Add([]byte(`"2026-11-23T14:31:31Z"`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		out := wireJSON(b)
		if !json.Valid(out) {
			t.Fatalf("invalid output %q from %q", out, b)
		}
		var in, got any
		_ = json.Unmarshal(b, &in)
		_ = json.Unmarshal(out, &got)
		var strip func(v any) any
		strip = func(v any) any {
			switch x := v.(type) {
			case map[string]any:
				for k, kv := range x {
					if isTimeMember(k) {
						if s, ok := kv.(string); ok {
							if _, ok := serviceTime(s); ok {
								x[k] = "T"
								continue
							}
						}
					}
					x[k] = strip(kv)
				}
			case []any:
				for i := range x {
					x[i] = strip(x[i])
				}
			}
			return v
		}
		// Outside time members the values are equal.
		if !reflect.DeepEqual(strip(in), strip(got)) {
			t.Fatalf("%q became %q", b, out)
		}
	})
}

// TestDecodeObject_EmptyArray: [] (PHP's empty array, what the SDK sends without fields) is an
// empty object; any other array is still refused.
func TestDecodeObject_EmptyArray(t *testing.T) {
	for _, c := range []struct {
		body string
		ok   bool
	}{
		{`[]`, true}, {` [ ] `, true}, {"[\n]", true}, {`{}`, true},
		{`[1]`, false}, {`[{}]`, false}, {`["reason"]`, false}, {`[`, false}, {`null`, false}, {`""`, false},
	} {
		var v struct {
			Reason *string `json:"reason"`
		}
		p := decodeObject([]byte(c.body), &v)
		if (p == nil) != c.ok || v.Reason != nil {
			t.Errorf("%q: problem %v, reason %v; want ok %v", c.body, p, v.Reason, c.ok)
		}
	}
}

// TestDashboardClientReadsServiceShapes: pixdash's own client reads every reply in the service's
// shapes (milliseconds, null members, list items without updatedAt, fee-free withdrawal).
func TestDashboardClientReadsServiceShapes(t *testing.T) {
	e := newEnvFixture(t, DefaultFixture())
	c, err := api.NewClient(e.base, "mp_test_demo_full", "demo-full-secret", api.WithClock(e.clock.Now), api.WithHTTPClient(e.hs.Client()))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	blocks, err := c.ListBalanceBlocks(ctx, "")
	if err != nil || len(blocks.Items) == 0 {
		t.Fatalf("blocks %+v %v", blocks, err)
	}
	for _, b := range blocks.Items {
		resolved := b.Status == api.BlockApproved || b.Status == api.BlockRejected
		if b.CreatedAt.IsZero() || resolved != (b.ResolvedAt != nil) {
			t.Errorf("block %+v", b)
		}
	}
	projects, err := c.ListAllProjects(ctx)
	if err != nil || len(projects) == 0 {
		t.Fatalf("projects %+v %v", projects, err)
	}
	for _, p := range projects {
		if p.CreatedAt.IsZero() || p.UpdatedAt != nil {
			t.Errorf("list item %+v", p)
		}
		one, err := c.GetProject(ctx, p.ID)
		if err != nil || one.UpdatedAt == nil || one.LogoURL != p.LogoURL {
			t.Errorf("project %+v %v", one, err)
		}
	}
	pc, err := c.CreatePix(ctx, &api.CreatePixRequest{Amount: 1234, Description: "Venda"})
	if err != nil || pc.CreatedAt.IsZero() || pc.ExpiresAt.IsZero() {
		t.Fatalf("pix %+v %v", pc, err)
	}
	tx, err := c.GetTransaction(ctx, pc.ID)
	if err != nil || !tx.CreatedAt.Equal(pc.CreatedAt) {
		t.Fatalf("transaction %+v %v", tx, err)
	}
	one := api.Money(100)
	wd, err := c.CreateWithdrawal(ctx, &api.CreateWithdrawalRequest{PixKey: "loja@example.com", PixKeyType: api.PixKeyEmail,
		HolderName: "Padaria", HolderDocument: "11222333000181", HolderDocumentType: api.DocumentCNPJ, Amount: &one})
	if err != nil || wd.Amount != 100 || wd.NetAmount != 100 || wd.FeeAmount != 0 || wd.FailureReason != "" || wd.ProcessedAt != nil {
		t.Fatalf("withdrawal of R$ 1,00: %+v %v", wd, err)
	}
	if _, err := c.RefundTransaction(ctx, pc.ID, nil); err == nil {
		t.Error("a pending charge was refunded")
	}
}
