package ui

import (
	"fmt"

	"pixdash/api"
)

// Lang is a user-interface language.
type Lang string

// Supported languages.
const (
	LangEN Lang = "en"
	LangPT Lang = "pt-BR"
)

// ParseLang maps a config value to a Lang (default English).
func ParseLang(s string) Lang {
	switch s {
	case "pt-BR", "pt", "pt_BR", "pt-br":
		return LangPT
	}
	return LangEN
}

// catalog translates the UI's English message ids; every user-facing string goes through it.
type catalog struct{ lang Lang }

// T returns msg in the catalog's language (the id itself in English). An id without a
// translation is sanitized: statuses and reasons from outside are translated through T.
func (c catalog) T(msg string) string {
	if c.lang == LangPT {
		for _, t := range ptBRTables {
			if s, ok := t[msg]; ok {
				return s
			}
		}
	}
	return sanitize(msg)
}

// ptBRTables are the pt-BR catalogs: the shell's and one per view.
var ptBRTables = []map[string]string{ptBR, ptBRInspector, ptBRWallets, ptBRSplit, ptBRBlocks, ptBREvents, ptBRRoot, ptBRQR, ptBROnPaid, ptBRExport, ptBRRefund, ptBRSearch, ptBRWithdrawal, ptBRDay}

// ptBRHas reports whether msg has a pt-BR translation.
func ptBRHas(msg string) bool {
	for _, t := range ptBRTables {
		if _, ok := t[msg]; ok {
			return true
		}
	}
	return false
}

// F formats a translated format string; the result is sanitized, since its arguments are often
// text from outside (wallet names, service messages).
func (c catalog) F(format string, args ...any) string {
	return sanitize(fmt.Sprintf(c.T(format), args...))
}

// N formats a count with its noun in the catalog's language: one when n is 1, other otherwise.
// Both are format strings; args default to n alone ("%d charge", "%d charges"), and are given
// when the format names more than one figure ("%d of %d event", "%d of %d events", shown, n).
func (c catalog) N(n int, one, other string, args ...any) string {
	if len(args) == 0 {
		args = []any{n}
	}
	if n == 1 {
		return c.F(one, args...)
	}
	return c.F(other, args...)
}

// blockType is a balance block's blockType, typed so Enum can tell it from other text.
type blockType string

// enumEN are the English labels of the API's enum values; ptBRAPI has the pt-BR ones.
var enumEN = map[any]string{
	api.StatusPending:   "pending",
	api.StatusCompleted: "completed",
	api.StatusFailed:    "failed",
	api.StatusCancelled: "cancelled",

	api.TypePayment:            "incoming payment",
	api.TypeFee:                "fee",
	api.TypeRefund:             "refund",
	api.TypeChargeback:         "chargeback",
	api.TypeWithdrawal:         "withdrawal",
	api.TypeAdjustment:         "adjustment",
	api.TypeReferralCommission: "referral commission",
	api.TypeInternalTransfer:   "internal transfer",

	api.MethodPix:        "PIX",
	api.MethodCreditCard: "credit card",
	api.MethodBoleto:     "boleto",

	api.RefundPending:   "pending",
	api.RefundConfirmed: "confirmed",
	api.RefundFailed:    "failed",

	api.BlockAwaitingResponse: "awaiting response",
	api.BlockDefended:         "defended",
	api.BlockApproved:         "approved",
	api.BlockRejected:         "rejected",

	blockType(api.BlockTypeMED):            "MED",
	blockType(api.BlockTypeJudicial):       "judicial",
	blockType(api.BlockTypeAdministrative): "administrative",

	api.SubAccountApproved:  "approved",
	api.SubAccountActive:    "active",
	api.SubAccountSuspended: "suspended",

	api.RefundRequestPending:   "pending",
	api.RefundRequestConfirmed: "confirmed",
	api.RefundRequestError:     "error",

	api.WithdrawalPending:    "pending",
	api.WithdrawalProcessing: "processing",
	api.WithdrawalCompleted:  "completed",
	api.WithdrawalFailed:     "failed",
	api.WithdrawalReversed:   "reversed",

	api.EventPaymentCompleted:     "payment received",
	api.EventPaymentExpired:       "charge expired",
	api.EventPaymentFailed:        "payment failed",
	api.EventRefundCompleted:      "refund completed",
	api.EventWithdrawalCompleted:  "withdrawal completed",
	api.EventWithdrawalFailed:     "withdrawal failed",
	api.EventWithdrawalReversed:   "withdrawal reversed",
	api.EventBalanceBlockCreated:  "block opened",
	api.EventBalanceBlockApproved: "block approved",
	api.EventBalanceBlockRejected: "block rejected",
}

// Enum returns the label of an API enum value (a transaction's status, type or payment method,
// a refund's, block's, sub-account's or withdrawal's status, a block's type, a webhook event's
// kind) in the catalog's language. A value the spec does not name is shown as it came, sanitized; "" stays "".
func (c catalog) Enum(v any) string {
	if c.lang == LangPT {
		if s, ok := ptBRAPI[v]; ok {
			return s
		}
	}
	if s, ok := enumEN[v]; ok {
		return s
	}
	return sanitize(fmt.Sprint(v))
}
