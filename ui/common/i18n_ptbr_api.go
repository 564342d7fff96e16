package common

import "pixdash/api"

// PtBRAPI are the pt-BR labels of the API's enum values (see catalog.Enum and enumEN).
var PtBRAPI = map[any]string{
	api.StatusPending:   "pendente",
	api.StatusCompleted: "concluída",
	api.StatusFailed:    "falhou",
	api.StatusCancelled: "cancelada",

	api.TypePayment:            "recebimento",
	api.TypeFee:                "tarifa",
	api.TypeRefund:             "estorno",
	api.TypeChargeback:         "contestação",
	api.TypeWithdrawal:         "saque",
	api.TypeAdjustment:         "ajuste",
	api.TypeReferralCommission: "comissão de indicação",
	api.TypeInternalTransfer:   "transferência interna",

	api.MethodPix:        "PIX",
	api.MethodCreditCard: "cartão de crédito",
	api.MethodBoleto:     "boleto",

	api.RefundPending:   "pendente",
	api.RefundConfirmed: "confirmado",
	api.RefundFailed:    "falhou",

	api.BlockAwaitingResponse: "aguarda resposta",
	api.BlockDefended:         "contestado",
	api.BlockApproved:         "aprovado",
	api.BlockRejected:         "rejeitado",

	BlockType(api.BlockTypeMED):            "MED",
	BlockType(api.BlockTypeJudicial):       "judicial",
	BlockType(api.BlockTypeAdministrative): "administrativo",

	api.SubAccountApproved:  "aprovada",
	api.SubAccountActive:    "ativa",
	api.SubAccountSuspended: "suspensa",

	api.RefundRequestPending:   "pendente",
	api.RefundRequestConfirmed: "confirmado",
	api.RefundRequestError:     "erro",

	api.WithdrawalPending:    "pendente",
	api.WithdrawalProcessing: "em processamento",
	api.WithdrawalCompleted:  "concluído",
	api.WithdrawalFailed:     "falhou",
	api.WithdrawalReversed:   "revertido",
}
