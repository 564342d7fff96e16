package api

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The service's Node SDK names members the PHP SDK's fixtures do not show: blockId,
// refundTransactionId, reversalTransactionId, completedAt/expiredAt/refundedAt/failedAt and
// environment. The decoder takes them as variants of the members it knows.
func TestDecodeEvent_NodeSDKVariants(t *testing.T) {
	at := time.Date(2026, 11, 23, 14, 31, 5, 280_000_000, time.UTC)
	const stamp = "2026-11-23T14:31:05.280Z"
	envelope := func(kind, data string) []byte {
		return fmt.Appendf(nil, `{"event":%q,"eventId":"evt-%s","timestamp":"2026-11-23T14:31:06.000Z","data":{%s}}`, kind, kind, data)
	}
	cases := []struct {
		name  string
		body  []byte
		check func(e *Event) string
	}{
		{"payment_completed: completedAt stands for paidAt", envelope("payment_completed", `"id":"tx-1","status":"completed","amount":12.34,"completedAt":"`+stamp+`","environment":"sandbox"`),
			func(e *Event) string {
				if e.PaidAt == nil || !e.PaidAt.Equal(at) || e.OccurredAt() == nil || !e.OccurredAt().Equal(at) || e.Environment != Sandbox || e.TransactionID != "tx-1" {
					return fmt.Sprintf("paidAt %v occurred %v env %q tx %q", e.PaidAt, e.OccurredAt(), e.Environment, e.TransactionID)
				}
				return ""
			}},
		{"payment_completed: paidAt wins over completedAt", envelope("payment_completed", `"id":"tx-1","paidAt":"2026-11-23T14:00:00.000Z","completedAt":"`+stamp+`"`),
			func(e *Event) string {
				if e.PaidAt == nil || e.PaidAt.Equal(at) || e.CompletedAt == nil || !e.CompletedAt.Equal(at) {
					return fmt.Sprintf("paidAt %v completedAt %v", e.PaidAt, e.CompletedAt)
				}
				return ""
			}},
		{"payment_expired: expiredAt", envelope("payment_expired", `"id":"tx-2","status":"cancelled","expiredAt":"`+stamp+`"`),
			func(e *Event) string {
				if e.OccurredAt() == nil || !e.OccurredAt().Equal(at) || e.TransactionID != "tx-2" {
					return fmt.Sprintf("occurred %v tx %q", e.OccurredAt(), e.TransactionID)
				}
				return ""
			}},
		{"payment_failed (blocked deposit): failedAt", envelope("payment_failed", `"id":"tx-3","status":"failed","failedAt":"`+stamp+`","blockedDeposit":{"reason":"CNPJ_PAYER_NOT_ALLOWED"}`),
			func(e *Event) string {
				if e.OccurredAt() == nil || !e.OccurredAt().Equal(at) || e.BlockedDeposit == nil || e.DecodeErr != "" {
					return fmt.Sprintf("occurred %v blocked %+v err %q", e.OccurredAt(), e.BlockedDeposit, e.DecodeErr)
				}
				return ""
			}},
		{"refund_completed: refundTransactionId is the refund line", envelope("refund_completed", `"transactionId":"tx-4","refundTransactionId":"tx-4r","amount":5,"refundedAt":"`+stamp+`"`),
			func(e *Event) string {
				if e.ID != "tx-4r" || e.TransactionID != "tx-4" || e.OccurredAt() == nil || !e.OccurredAt().Equal(at) {
					return fmt.Sprintf("id %q tx %q occurred %v", e.ID, e.TransactionID, e.OccurredAt())
				}
				return ""
			}},
		{"refund_completed: id wins over refundTransactionId", envelope("refund_completed", `"id":"tx-5r","transactionId":"tx-5","refundTransactionId":"other"`),
			func(e *Event) string {
				if e.ID != "tx-5r" || e.RefundTransactionID != "other" {
					return fmt.Sprintf("id %q refund %q", e.ID, e.RefundTransactionID)
				}
				return ""
			}},
		{"balance_block_created: blockId is the block", envelope("balance_block_created", `"blockId":"blk-1","transactionId":"tx-6","amount":3,"status":"awaiting_response","blockType":"med","environment":"production"`),
			func(e *Event) string {
				if e.ID != "blk-1" || e.BalanceBlock == nil || e.BalanceBlock.ID != "blk-1" || e.TransactionID != "tx-6" || e.Environment != Production {
					return fmt.Sprintf("id %q block %+v tx %q env %q", e.ID, e.BalanceBlock, e.TransactionID, e.Environment)
				}
				return ""
			}},
		{"withdrawal_reversed: reversalTransactionId kept", envelope("withdrawal_reversed", `"withdrawalId":"wd-1","reversalTransactionId":"tx-7","status":"reversed"`),
			func(e *Event) string {
				if e.WithdrawalID != "wd-1" || e.ReversalTransactionID != "tx-7" {
					return fmt.Sprintf("withdrawal %q reversal %q", e.WithdrawalID, e.ReversalTransactionID)
				}
				return ""
			}},
		{"withdrawal_completed: completedAt", envelope("withdrawal_completed", `"withdrawalId":"wd-2","completedAt":"`+stamp+`"`),
			func(e *Event) string {
				if e.OccurredAt() == nil || !e.OccurredAt().Equal(at) {
					return fmt.Sprintf("occurred %v", e.OccurredAt())
				}
				return ""
			}},
		{"environment at the top level", []byte(`{"event":"payment_completed","eventId":"e-top","environment":"production","data":{"id":"tx-8"}}`),
			func(e *Event) string {
				if e.Environment != Production {
					return fmt.Sprintf("env %q", e.Environment)
				}
				return ""
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, err := DecodeEvent(c.body)
			if err != nil {
				t.Fatal(err)
			}
			if msg := c.check(e); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// A signed event whose environment is not the receiver's is refused with 422, counted and
// remembered with its reason; one that does not say, or says the receiver's, is taken.
func TestReceiver_RefusesOtherEnvironment(t *testing.T) {
	body := func(id, env string) []byte {
		member := ""
		if env != "" {
			member = fmt.Sprintf(`,"environment":%q`, env)
		}
		return fmt.Appendf(nil, `{"event":"payment_completed","eventId":%q,"data":{"id":"tx-%s","amount":1%s}}`, id, id, member)
	}
	cases := []struct {
		name     string
		recvEnv  Environment
		body     []byte
		want     int
		wrongEnv uint64
	}{
		{"sandbox event at a production receiver", Production, body("e1", "sandbox"), http.StatusUnprocessableEntity, 1},
		{"production event at a sandbox receiver", Sandbox, body("e2", "production"), http.StatusUnprocessableEntity, 1},
		{"top-level environment", Sandbox, []byte(`{"event":"payment_completed","eventId":"e3","environment":"production","data":{"id":"tx"}}`), http.StatusUnprocessableEntity, 1},
		{"same environment", Sandbox, body("e4", "sandbox"), http.StatusOK, 0},
		{"same environment, other case", Sandbox, body("e5", "Sandbox"), http.StatusOK, 0},
		{"event without environment", Production, body("e6", ""), http.StatusOK, 0},
		{"receiver without environment", "", body("e7", "production"), http.StatusOK, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := NewReceiver(testWebhookSecret, WithEnvironment(c.recvEnv))
			code, text := deliverWebhook(r, c.body, Sign(c.body, testWebhookSecret))
			if code != c.want {
				t.Fatalf("status %d (%s), want %d", code, text, c.want)
			}
			st := r.Stats()
			if st.WrongEnvironment != c.wrongEnv {
				t.Errorf("WrongEnvironment %d, want %d", st.WrongEnvironment, c.wrongEnv)
			}
			ev := takeEvent(r)
			if c.wrongEnv > 0 {
				if ev != nil || st.Accepted != 0 {
					t.Errorf("refused event handed on: %+v, accepted %d", ev, st.Accepted)
				}
				if st.LastRejection.Reason != RejectEnvironment || !strings.Contains(st.LastRejection.Detail, "this receiver is for "+string(c.recvEnv)) {
					t.Errorf("last rejection %+v", st.LastRejection)
				}
				if !strings.Contains(text, "another environment") {
					t.Errorf("answer %q", text)
				}
			} else if ev == nil || st.Accepted != 1 {
				t.Errorf("event not taken: accepted %d", st.Accepted)
			}
		})
	}
	// An unsigned delivery claiming the other environment is a signature refusal (401) first.
	r := NewReceiver(testWebhookSecret, WithEnvironment(Production))
	if code, _ := deliverWebhook(r, body("e8", "sandbox"), "sha256=00"); code != http.StatusUnauthorized || r.Stats().WrongEnvironment != 0 {
		t.Errorf("unsigned: %d, stats %+v", code, r.Stats())
	}
}
