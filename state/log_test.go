package state

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"pixdash/api"
)

// TestStoreLogsEachWrite: with WithLogger, each committed write leaves one debug line with the
// kind of record, the operation and its id; never the payer's document.
func TestStoreLogsEachWrite(t *testing.T) {
	const cpf = "52998224725"
	var buf bytes.Buffer
	s := OpenMemory(WithLogger(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	defer s.Close()
	ctx := context.Background()
	key := api.NewIdempotencyKey()
	sub := Submission{Key: key, Wallet: "loja-a", Request: api.CreatePixRequest{Amount: 1234, Customer: &api.Customer{Name: "Ana", Document: cpf}}}
	if err := s.BeginSubmission(ctx, sub); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompleteSubmission(ctx, key, Charge{ID: "tx-1", Wallet: "loja-a", Amount: 1234, Status: api.TxStatus("pending")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApplyEvent(ctx, testEvent(t, "evt-1", api.EventKind("payment_completed"), "tx-1")); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEventVerdict(ctx, "evt-1", VerdictDisputed, "amount differs for payer "+cpf); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRefund(ctx, Refund{ChargeID: "tx-1", Key: api.NewIdempotencyKey(), State: RefundRequested}); err != nil {
		t.Fatal(err)
	}
	wkey := api.NewIdempotencyKey()
	if _, err := s.PutWithdrawal(ctx, Withdrawal{Key: wkey, Wallet: "loja-a", HolderDocument: cpf, Amount: 500, State: WithdrawalRequested}); err != nil {
		t.Fatal(err)
	}
	key2 := api.NewIdempotencyKey()
	if err := s.BeginSubmission(ctx, Submission{Key: key2}); err != nil {
		t.Fatal(err)
	}
	if err := s.AbandonSubmission(ctx, key2); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		if m["msg"] == "state: write" && m["level"] == "DEBUG" {
			got = append(got, m["record"].(string)+" "+m["op"].(string)+" "+m["id"].(string))
		}
	}
	want := []string{
		"submission begin " + key,
		"submission complete " + key,
		"charge upsert tx-1",
		"event stored evt-1",
		"verdict disputed evt-1",
		"refund put tx-1",
		"withdrawal put " + wkey,
		"submission begin " + key2,
		"submission abandon " + key2,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("write lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out := buf.String(); strings.Contains(out, cpf) || strings.Contains(out, "Ana") {
		t.Errorf("the log holds the payer's document or name:\n%s", out)
	}
}

// TestStoreWithoutLoggerIsQuiet: a store without a logger writes fine and logs nothing (no panic).
func TestStoreWithoutLoggerIsQuiet(t *testing.T) {
	s := OpenMemory(WithLogger(nil))
	defer s.Close()
	if _, err := s.UpsertCharge(context.Background(), Charge{ID: "tx-q"}); err != nil {
		t.Fatal(err)
	}
}
