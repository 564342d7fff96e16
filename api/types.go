package api

import (
	"encoding/json"
	"time"
)

// TxStatus is a transaction's status; unknown values from the server are kept as they came.
type TxStatus string

// Transaction statuses from the spec.
const (
	StatusPending   TxStatus = "pending"
	StatusCompleted TxStatus = "completed"
	StatusFailed    TxStatus = "failed"
	StatusCancelled TxStatus = "cancelled"
)

// Known reports whether s is one of the spec's values.
func (s TxStatus) Known() bool {
	switch s {
	case StatusPending, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Final reports whether no further change of status is expected.
func (s TxStatus) Final() bool { return s != StatusPending && s != "" }

// TxType is a transaction's type; unknown values are kept.
type TxType string

// Transaction types from the spec.
const (
	TypePayment            TxType = "payment"
	TypeFee                TxType = "fee"
	TypeRefund             TxType = "refund"
	TypeChargeback         TxType = "chargeback"
	TypeWithdrawal         TxType = "withdrawal"
	TypeAdjustment         TxType = "adjustment"
	TypeReferralCommission TxType = "referral_commission"
	TypeInternalTransfer   TxType = "internal_transfer"
)

// Known reports whether t is one of the spec's values.
func (t TxType) Known() bool {
	switch t {
	case TypePayment, TypeFee, TypeRefund, TypeChargeback, TypeWithdrawal, TypeAdjustment, TypeReferralCommission, TypeInternalTransfer:
		return true
	}
	return false
}

// PaymentMethod is how a transaction is paid; unknown values are kept.
type PaymentMethod string

// Payment methods from the spec.
const (
	MethodPix        PaymentMethod = "pix"
	MethodCreditCard PaymentMethod = "credit_card"
	MethodBoleto     PaymentMethod = "boleto"
)

// Known reports whether m is one of the spec's values.
func (m PaymentMethod) Known() bool {
	return m == MethodPix || m == MethodCreditCard || m == MethodBoleto
}

// RefundStatus is the state of a blocked deposit's return to the payer; unknown values are kept.
type RefundStatus string

// Refund statuses from the spec.
const (
	RefundPending   RefundStatus = "pending"
	RefundConfirmed RefundStatus = "confirmed"
	RefundFailed    RefundStatus = "failed"
)

// Known reports whether s is one of the spec's values.
func (s RefundStatus) Known() bool {
	return s == RefundPending || s == RefundConfirmed || s == RefundFailed
}

// BlockStatus is a balance block's status; unknown values are kept.
type BlockStatus string

// Balance block statuses from the spec.
const (
	BlockAwaitingResponse BlockStatus = "awaiting_response"
	BlockDefended         BlockStatus = "defended"
	BlockApproved         BlockStatus = "approved"
	BlockRejected         BlockStatus = "rejected"
)

// BlockStatuses lists the spec's balance block statuses in display order.
var BlockStatuses = []BlockStatus{BlockAwaitingResponse, BlockDefended, BlockApproved, BlockRejected}

// Known reports whether s is one of the spec's values.
func (s BlockStatus) Known() bool {
	for _, k := range BlockStatuses {
		if s == k {
			return true
		}
	}
	return false
}

// Known block types; the spec shows only "med", the others are assumptions.
const (
	BlockTypeMED            = "med"
	BlockTypeJudicial       = "judicial"
	BlockTypeAdministrative = "administrative"
)

// SubAccountStatus is a sub-account's status; unknown values are kept.
type SubAccountStatus string

// Sub-account statuses: approved is the spec's status at creation, active what the service
// lists for a working wallet, suspended the state behind SUB_ACCOUNT_SUSPENDED.
const (
	SubAccountApproved  SubAccountStatus = "approved"
	SubAccountActive    SubAccountStatus = "active"
	SubAccountSuspended SubAccountStatus = "suspended"
)

// Usable reports whether the wallet may originate and receive charges as far as pixdash can
// tell: approved and active are, suspended is not, and an unknown status is left for the
// service to judge (never refused locally).
func (s SubAccountStatus) Usable() bool { return s != SubAccountSuspended }

// Known reports whether s is one of the statuses above.
func (s SubAccountStatus) Known() bool {
	return s == SubAccountApproved || s == SubAccountActive || s == SubAccountSuspended
}

// Transaction is the body of GET /transactions/{id}.
type Transaction struct {
	ID                  string          `json:"id"`
	Status              TxStatus        `json:"status"`
	Type                TxType          `json:"type"`
	PaymentMethod       PaymentMethod   `json:"paymentMethod"`
	Amount              Money           `json:"amount"`
	Currency            string          `json:"currency"`
	Description         string          `json:"description,omitempty"`
	ExternalReference   string          `json:"externalReference,omitempty"`
	CustomerID          string          `json:"customerId,omitempty"`
	ProjectID           string          `json:"projectId,omitempty"`
	Metadata            map[string]any  `json:"metadata,omitempty"`
	PixCopyPaste        string          `json:"pixCopyPaste,omitempty"`
	ExpiresAt           *time.Time      `json:"expiresAt,omitempty"`
	PaidAt              *time.Time      `json:"paidAt,omitempty"`
	E2EID               string          `json:"e2eId,omitempty"`
	CounterpartName     string          `json:"counterpartName,omitempty"`
	CounterpartDocument string          `json:"counterpartDocument,omitempty"`
	FailureReason       string          `json:"failureReason,omitempty"`
	BlockedDeposit      *BlockedDeposit `json:"blockedDeposit,omitempty"`
	CreatedAt           time.Time       `json:"createdAt"`
	UpdatedAt           *time.Time      `json:"updatedAt,omitempty"`
	// Raw is the reply exactly as received, unknown members included (nil when built locally).
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the transaction and keeps the raw reply.
func (t *Transaction) UnmarshalJSON(b []byte) error {
	type plain Transaction
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = Transaction(p)
	t.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// BlockedDeposit describes a received deposit that account policy refused; it was not credited.
type BlockedDeposit struct {
	Reason string  `json:"reason"`
	Refund *Refund `json:"refund"`
}

// Reasons a deposit is blocked.
const (
	ReasonCNPJPayerNotAllowed = "cnpj_payer_not_allowed"
)

// Refund is the return of a blocked deposit to its payer.
type Refund struct {
	Status    RefundStatus `json:"status"`
	E2EID     *string      `json:"e2eId"`
	SettledAt *time.Time   `json:"settledAt"`
}

// Customer is the payer data sent with a charge; all fields optional.
type Customer struct {
	Name     string `json:"name,omitempty"`
	Document string `json:"document,omitempty"`
	Email    string `json:"email,omitempty"`
	Phone    string `json:"phone,omitempty"`
}

// IsZero reports whether no field is set.
func (c Customer) IsZero() bool { return c == Customer{} }

// SplitItem is one leg of a split: a destination wallet and a fixed amount.
type SplitItem struct {
	SubAccount string `json:"subAccount"`
	Amount     Money  `json:"amount"`
}

// CreatePixRequest is the body of POST /pix.
type CreatePixRequest struct {
	Amount            Money          `json:"amount"`
	Description       string         `json:"description,omitempty"`
	Customer          *Customer      `json:"customer,omitempty"`
	ProjectID         string         `json:"projectId,omitempty"`
	PspCredentialID   string         `json:"pspCredentialId,omitempty"`
	ExpiresIn         int            `json:"expiresIn,omitempty"`
	ExternalReference string         `json:"externalReference,omitempty"`
	Metadata          map[string]any `json:"metadata,omitempty"`
	Split             []SplitItem    `json:"split,omitempty"`
}

// PixCharge is the 201 response of POST /pix.
type PixCharge struct {
	ID                string      `json:"id"`
	Status            TxStatus    `json:"status"`
	Amount            Money       `json:"amount"`
	Currency          string      `json:"currency"`
	PixCopyPaste      string      `json:"pixCopyPaste"`
	ExpiresAt         time.Time   `json:"expiresAt"`
	CreatedAt         time.Time   `json:"createdAt"`
	QRCodeBase64      string      `json:"qrCodeBase64,omitempty"`
	PspPaymentID      string      `json:"pspPaymentId,omitempty"`
	PspCredentialID   string      `json:"pspCredentialId,omitempty"`
	ExternalReference string      `json:"externalReference,omitempty"`
	Split             []SplitItem `json:"split,omitempty"`
}

// SubAccount is a child wallet of the main account.
type SubAccount struct {
	ID        string           `json:"id"`
	Reference string           `json:"reference"`
	Name      string           `json:"name"`
	Status    SubAccountStatus `json:"status"`
	CreatedAt time.Time        `json:"createdAt"`
}

// CreateSubAccountRequest is the body of POST /sub-accounts.
type CreateSubAccountRequest struct {
	Reference string `json:"reference"`
	Name      string `json:"name"`
}

// Project is an item of GET /projects.
type Project struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Color       string    `json:"color,omitempty"`
	CreatedAt   time.Time `json:"createdAt"`
	Description string    `json:"description,omitempty"`
	LogoURL     string    `json:"logoUrl,omitempty"`
	// UpdatedAt is sent by GET /projects/{id} and the list; nil when absent.
	UpdatedAt *time.Time `json:"updatedAt,omitempty"`
}

// CreateProjectRequest is the body of POST /projects.
type CreateProjectRequest struct {
	Name        string `json:"name"`
	Color       string `json:"color"`
	Description string `json:"description,omitempty"`
	LogoURL     string `json:"logoUrl,omitempty"`
}

// ProjectList is the page returned by GET /projects.
type ProjectList struct {
	Items      []Project `json:"items"`
	Total      int       `json:"total"`
	Page       int       `json:"page"`
	Limit      int       `json:"limit"`
	TotalPages int       `json:"totalPages"`
}

// BalanceBlock is an item of GET /balance-blocks.
type BalanceBlock struct {
	ID                string      `json:"id"`
	TransactionID     string      `json:"transactionId"`
	Amount            Money       `json:"amount"`
	Status            BlockStatus `json:"status"`
	BlockType         string      `json:"blockType"`
	ReferenceNumber   string      `json:"referenceNumber,omitempty"`
	Reason            string      `json:"reason,omitempty"`
	CreatedAt         time.Time   `json:"createdAt"`
	ExternalReference string      `json:"externalReference,omitempty"`
	E2EID             string      `json:"e2eId,omitempty"`
	ResolutionReason  string      `json:"resolutionReason,omitempty"`
	ResolvedAt        *time.Time  `json:"resolvedAt,omitempty"`
}

// BalanceBlockList is the body of GET /balance-blocks.
type BalanceBlockList struct {
	Items []BalanceBlock `json:"items"`
	Total int            `json:"total"`
}

// TokenResponse is the body of POST /auth.
type TokenResponse struct {
	AccessToken Secret `json:"-"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int    `json:"expires_in"`
}

// UnmarshalJSON reads the token into a Secret so it cannot leak through printing.
func (t *TokenResponse) UnmarshalJSON(b []byte) error {
	var raw struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int    `json:"expires_in"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*t = TokenResponse{AccessToken: Secret(raw.AccessToken), TokenType: raw.TokenType, ExpiresIn: raw.ExpiresIn}
	return nil
}

// WalletPrincipal is the reserved reference for the main account.
const WalletPrincipal = "principal"
