package api

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// PixKeyType names the kind of a PIX key; unknown values are kept.
type PixKeyType string

// PIX key types the service accepts for withdrawals.
const (
	PixKeyCPF    PixKeyType = "cpf"
	PixKeyCNPJ   PixKeyType = "cnpj"
	PixKeyEmail  PixKeyType = "email"
	PixKeyPhone  PixKeyType = "phone"
	PixKeyRandom PixKeyType = "random"
)

// PixKeyTypes lists the accepted PIX key types in display order.
var PixKeyTypes = []PixKeyType{PixKeyCPF, PixKeyCNPJ, PixKeyEmail, PixKeyPhone, PixKeyRandom}

// Known reports whether t is an accepted key type.
func (t PixKeyType) Known() bool {
	for _, k := range PixKeyTypes {
		if t == k {
			return true
		}
	}
	return false
}

// DocumentType says whether a document is a CPF or a CNPJ.
type DocumentType string

// Document types of a withdrawal's holder.
const (
	DocumentCPF  DocumentType = "cpf"
	DocumentCNPJ DocumentType = "cnpj"
)

// WithdrawalStatus is a withdrawal's status; unknown values are kept.
type WithdrawalStatus string

// Withdrawal statuses: the creation reply says pending or processing; the outcome arrives
// only through withdrawal_* events (reversed is the state after withdrawal_reversed).
const (
	WithdrawalPending    WithdrawalStatus = "pending"
	WithdrawalProcessing WithdrawalStatus = "processing"
	WithdrawalCompleted  WithdrawalStatus = "completed"
	WithdrawalFailed     WithdrawalStatus = "failed"
	WithdrawalReversed   WithdrawalStatus = "reversed"
)

// Final reports whether no further change is expected.
func (s WithdrawalStatus) Final() bool {
	return s == WithdrawalCompleted || s == WithdrawalFailed || s == WithdrawalReversed
}

// CreateWithdrawalRequest is the body of POST /withdrawals. Exactly one of Amount (gross,
// debited from the balance) and NetAmount (what the recipient receives) is set.
type CreateWithdrawalRequest struct {
	PixKey             string       `json:"pixKey"`
	PixKeyType         PixKeyType   `json:"pixKeyType"`
	HolderName         string       `json:"holderName"`
	HolderDocument     string       `json:"holderDocument"`
	HolderDocumentType DocumentType `json:"holderDocumentType"`
	Amount             *Money       `json:"amount,omitempty"`
	NetAmount          *Money       `json:"netAmount,omitempty"`
	ProjectID          string       `json:"projectId,omitempty"`
	ExternalReference  string       `json:"externalReference,omitempty"`
}

// Withdrawal is the 201 reply of POST /withdrawals.
type Withdrawal struct {
	ID                     string           `json:"id"`
	ProjectID              string           `json:"projectId,omitempty"`
	Amount                 Money            `json:"amount"`
	FeeAmount              Money            `json:"feeAmount"`
	NetAmount              Money            `json:"netAmount"`
	Status                 WithdrawalStatus `json:"status"`
	SnapshotPixKey         string           `json:"snapshotPixKey,omitempty"`
	SnapshotPixKeyType     PixKeyType       `json:"snapshotPixKeyType,omitempty"`
	SnapshotHolderName     string           `json:"snapshotHolderName,omitempty"`
	SnapshotHolderDocument string           `json:"snapshotHolderDocument,omitempty"`
	FailureReason          string           `json:"failureReason,omitempty"`
	PspReference           string           `json:"pspReference,omitempty"`
	CreatedAt              time.Time        `json:"createdAt"`
	ProcessedAt            *time.Time       `json:"processedAt,omitempty"`
	ExternalReference      string           `json:"externalReference,omitempty"`
	// Raw is the reply exactly as received, unknown members included.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the withdrawal and keeps the raw reply.
func (w *Withdrawal) UnmarshalJSON(b []byte) error {
	type plain Withdrawal
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*w = Withdrawal(p)
	w.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// Field names of POST /withdrawals used by FieldProblem.
const (
	FieldPixKey             = "pixKey"
	FieldPixKeyType         = "pixKeyType"
	FieldHolderName         = "holderName"
	FieldHolderDocument     = "holderDocument"
	FieldHolderDocumentType = "holderDocumentType"
	FieldNetAmount          = "netAmount"
)

// ErrWithdrawalMinimum refuses a withdrawal's amount (or netAmount) below MinWithdrawalAmount.
var ErrWithdrawalMinimum = errors.New("a withdrawal is at least R$ 1,00")

// CheckWithdrawalAmount is the service's minimum for a withdrawal's amount or netAmount, the
// one rule of CheckCreateWithdrawal, the withdrawal form and the emulator.
func CheckWithdrawalAmount(a Money) error {
	if a < MinWithdrawalAmount {
		return ErrWithdrawalMinimum
	}
	return nil
}

// CheckCreateWithdrawal checks a POST /withdrawals body before it is sent: required fields,
// the enums, exactly one of amount and netAmount (each at least R$ 1,00) and the lengths.
// The key's format per type and the documents' check digits are the caller's to check.
func CheckCreateWithdrawal(r *CreateWithdrawalRequest) []FieldProblem {
	var ps []FieldProblem
	req := func(field, v string) {
		if strings.TrimSpace(v) == "" {
			ps = append(ps, FieldProblem{field, field + " should not be empty"})
		}
	}
	req(FieldPixKey, r.PixKey)
	if !r.PixKeyType.Known() {
		ps = append(ps, FieldProblem{FieldPixKeyType, "pixKeyType must be one of the following values: cpf, cnpj, email, phone, random"})
	}
	req(FieldHolderName, r.HolderName)
	req(FieldHolderDocument, r.HolderDocument)
	if r.HolderDocumentType != DocumentCPF && r.HolderDocumentType != DocumentCNPJ {
		ps = append(ps, FieldProblem{FieldHolderDocumentType, "holderDocumentType must be one of the following values: cpf, cnpj"})
	}
	switch {
	case r.Amount == nil && r.NetAmount == nil:
		ps = append(ps, FieldProblem{FieldAmount, "exactly one of amount and netAmount must be given"})
	case r.Amount != nil && r.NetAmount != nil:
		ps = append(ps, FieldProblem{FieldAmount, "exactly one of amount and netAmount must be given, not both"})
	case r.Amount != nil && CheckWithdrawalAmount(*r.Amount) != nil:
		ps = append(ps, FieldProblem{FieldAmount, "amount must not be less than 1"})
	case r.NetAmount != nil && CheckWithdrawalAmount(*r.NetAmount) != nil:
		ps = append(ps, FieldProblem{FieldNetAmount, "netAmount must not be less than 1"})
	}
	if r.ProjectID != "" && !IsUUID(r.ProjectID) {
		ps = append(ps, FieldProblem{FieldProjectID, "projectId must be a UUID"})
	}
	if utf8.RuneCountInString(r.ExternalReference) > MaxExternalRef {
		ps = append(ps, FieldProblem{FieldExternalRef, "externalReference must be shorter than or equal to 255 characters"})
	}
	return ps
}

// CreateWithdrawal sends a PIX withdrawal (POST /withdrawals). Like CreatePix it always carries
// an Idempotency-Key (pass the one minted when the form opened with WithIdempotencyKey) and
// retries with the same key and body; when the outcome is unknown the error carries the key
// (IdempotencyKeyOf). The reply's status is never final: the outcome arrives as an event.
func (c *Client) CreateWithdrawal(ctx context.Context, req *CreateWithdrawalRequest, opts ...RequestOption) (*Withdrawal, error) {
	if req == nil {
		return nil, invalid("body", "the withdrawal request is missing")
	}
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	if ps := CheckCreateWithdrawal(req); len(ps) > 0 {
		return nil, &ValidationError{Problems: ps}
	}
	if ro.IdempotencyKey == "" {
		ro.IdempotencyKey = NewIdempotencyKey()
	}
	var out Withdrawal
	call := &apiRequest{method: http.MethodPost, path: "/withdrawals", body: req, out: &out, opts: ro}
	if err := c.call(ctx, call); err != nil {
		if call.uncertain {
			return nil, &outcomeError{key: ro.IdempotencyKey, what: "withdrawal", err: err}
		}
		return nil, err
	}
	return &out, nil
}

// RefundRequestStatus is the status of a refund request as POST /transactions/{id}/refund answers it, in capitals.
type RefundRequestStatus string

// Refund request statuses.
const (
	RefundRequestPending   RefundRequestStatus = "PENDING"
	RefundRequestConfirmed RefundRequestStatus = "CONFIRMED"
	RefundRequestError     RefundRequestStatus = "ERROR"
)

// RefundRequest is the body of POST /transactions/{id}/refund.
type RefundRequest struct {
	Reason string `json:"reason,omitempty"`
}

// RefundResult is the 201 reply of POST /transactions/{id}/refund. PENDING means the payment
// institution took it; refund_completed confirms it.
type RefundResult struct {
	OriginalTransactionID  string              `json:"originalTransactionId"`
	PspProvider            string              `json:"pspProvider,omitempty"`
	PspRefundTransactionID string              `json:"pspRefundTransactionId,omitempty"`
	Status                 RefundRequestStatus `json:"status"`
}

// RefundTransaction asks the service to refund a completed payment (POST
// /transactions/{id}/refund). It is sent once: the service takes no Idempotency-Key here, so
// after an uncertain failure read the transaction before asking again.
func (c *Client) RefundTransaction(ctx context.Context, id string, req *RefundRequest, opts ...RequestOption) (*RefundResult, error) {
	if id == "" {
		return nil, invalid("id", "the transaction id to refund is required")
	}
	if req == nil {
		req = &RefundRequest{}
	}
	if utf8.RuneCountInString(req.Reason) > MaxRefundReason {
		return nil, invalid("reason", "reason must be shorter than or equal to 255 characters")
	}
	ro, err := resolveOptions(opts)
	if err != nil {
		return nil, err
	}
	if ro.IdempotencyKey != "" {
		return nil, invalid("Idempotency-Key", "the refund endpoint takes no Idempotency-Key")
	}
	var out RefundResult
	path := "/transactions/" + escapeSegment(id) + "/refund"
	if err := c.call(ctx, &apiRequest{method: http.MethodPost, path: path, body: req, out: &out, opts: ro}); err != nil {
		return nil, err
	}
	return &out, nil
}
