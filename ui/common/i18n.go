package common

import (
	"fmt"

	"pixdash/api"
	"pixdash/api/i18n"
)

// Lang is a user-interface language (the catalog's: one type for the dashboard, the reports
// and the command line).
type Lang = i18n.Lang

// Supported languages.
const (
	LangEN = i18n.English
	LangPT = i18n.Portuguese
)

// ParseLang maps a config value to a Lang (default English), with the catalog's one parser.
func ParseLang(s string) Lang {
	if l, ok := i18n.Parse(s); ok {
		return l
	}
	return LangEN
}

// Catalog gives the UI's messages by id (pixdash/api/i18n); every user-facing string goes
// through it. Its results are sanitized: arguments and English data are often text from outside.
type Catalog struct{ Lang Lang }

func (c Catalog) cat() i18n.Catalog { return i18n.For(c.Lang) }

// T returns the message id in the catalog's language. A string that is no id is English data
// (a state, another package's message) and is translated by its text when the catalog knows
// it, else shown as it came, sanitized.
func (c Catalog) T(id string) string {
	return Sanitize(c.cat().T(id))
}

// F formats the message id with args; the result is sanitized, since its arguments are often
// text from outside (wallet names, service messages).
func (c Catalog) F(id string, args ...any) string {
	return Sanitize(c.cat().F(id, args...))
}

// N formats the plural message id for the count n, its form chosen by the language's CLDR
// plural rule. args default to n alone, and are given when the format names more than one
// figure ("%d of %d events": shown, n).
func (c Catalog) N(id string, n int, args ...any) string {
	return Sanitize(c.cat().N(id, n, args...))
}

// BlockType is a balance block's blockType, typed so Enum can tell it from other text.
type BlockType string

// EnumEN are the English labels of the API's enum values; ptBRAPI has the pt-BR ones.
var EnumEN = map[any]string{
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

	BlockType(api.BlockTypeMED):            "MED",
	BlockType(api.BlockTypeJudicial):       "judicial",
	BlockType(api.BlockTypeAdministrative): "administrative",

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
func (c Catalog) Enum(v any) string {
	if c.Lang == LangPT {
		if s, ok := PtBRAPI[v]; ok {
			return s
		}
	}
	if s, ok := EnumEN[v]; ok {
		return s
	}
	return Sanitize(fmt.Sprint(v))
}
