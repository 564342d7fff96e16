package common

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"pixdash/api"
	"pixdash/state"
	"pixdash/state/workflow"
)

// LocalError is an error raised on this side, not by the service, in the merchant's language:
// a workflow's local rule, a request the api package refused before sending it
// (*api.ValidationError), the local database. A refusal of the service keeps its own message
// (serviceText). In pt-BR an English sentence pixdash does not know is quoted after a
// Portuguese one, as the service's are. The result is sanitized.
func LocalError(tr Catalog, err error) string {
	return Sanitize(localErrorRaw(tr, err))
}

func localErrorRaw(tr Catalog, err error) string {
	if err == nil {
		return ""
	}
	var (
		ae    *api.Error
		ve    *api.ValidationError
		dm    *state.DamageError
		short workflow.BalanceShort
		busy  *state.RefundBusyError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &ae):
		s := ServiceText(tr, ae)
		if ae.TraceID != "" {
			s += " [trace " + ae.TraceID + "]"
		}
		return s
	case errors.As(err, &ve):
		return ValidationText(tr, ve)
	case errors.As(err, &dm):
		return damageDetail(tr, dm)
	case errors.As(err, &short):
		return tr.F("errtext.the_withdrawal_takes_and_the_spendable", short.Need.BRL(), short.Spendable.BRL())
	case errors.As(err, &busy):
		return tr.F("errtext.this_refund_is_being_sent_by", busy.Claim.PID, busy.Claim.Since.Format("15:04:05"))
	case errors.Is(err, workflow.ErrWithdrawalReadOnly):
		return tr.T("errtext.this_profile_is_read_only_withdrawals")
	case errors.Is(err, workflow.ErrRefundReadOnly):
		return tr.T("errtext.this_profile_is_read_only_refunds")
	case errors.Is(err, workflow.ErrWithdrawalNoBalance):
		return tr.T("errtext.the_spendable_balance_is_not_known")
	case errors.Is(err, workflow.ErrWithdrawalNoKey), errors.Is(err, workflow.ErrRefundNoKey):
		return tr.T("errtext.the_form_lost_the_key_minted")
	case errors.Is(err, workflow.ErrRefundPartial):
		return tr.T("errtext.the_service_refunds_the_whole_amount")
	case errors.Is(err, workflow.ErrRefundLongReason):
		return tr.F("errtext.the_reason_must_be_at_most", api.MaxRefundReason)
	case errors.Is(err, workflow.ErrRefundDone), errors.Is(err, state.ErrRefundTaken):
		return tr.T("errtext.this_charge_was_already_refunded_from")
	case strings.HasPrefix(msg, "recording the ") && strings.Contains(msg, "(nothing was sent)") && errors.Unwrap(err) != nil:
		// The workflow's record before the request could not be written.
		return tr.T("errtext.it_could_not_be_recorded_before") + ": " + localErrorRaw(tr, errors.Unwrap(err))
	case errors.Is(err, state.ErrDiskFull), errors.Is(err, state.ErrNoAccess), errors.Is(err, state.ErrIO),
		errors.Is(err, state.ErrDamaged), errors.Is(err, state.ErrBusy):
		return transportHint(tr, err)
	}
	if tr.Lang != LangPT {
		return msg
	}
	if s := LocalMessage(tr, msg); s != msg {
		return s
	}
	return tr.T("errtext.detail_in_english") + " " + msg
}

// ValidationText is a request the api package refused before sending it, problem by problem,
// in the merchant's language (nothing was sent).
func ValidationText(tr Catalog, ve *api.ValidationError) string {
	if tr.Lang != LangPT {
		return ve.Error()
	}
	msgs := make([]string, 0, len(ve.Problems))
	for _, p := range ve.Problems {
		m := p.Msg
		prefix := ""
		if h := api.FieldSubAccountHeader + ": "; strings.HasPrefix(m, h) {
			prefix, m = h, strings.TrimPrefix(m, h)
		}
		if s := LocalMessage(tr, m); s != m {
			m = s
		} else if s := ServiceMessage(tr, m); s != "" {
			m = s
		}
		msgs = append(msgs, prefix+m)
	}
	return tr.T("errtext.invalid_request_nothing_was_sent") + " " + strings.Join(msgs, "; ")
}

// damageProblemRE is one finding of the store's check (state.DamageError's Problems).
var (
	damageCountRE  = regexp.MustCompile(`^(index|table) (\S+) lists (\d+) (.+) where there are (\d+)$`)
	damageReadRE   = regexp.MustCompile(`^(index|table) (\S+) cannot be read \((.*)\)$`)
	damageWhatPTBR = map[string]string{"paid charges": "cobranças pagas", "charges": "cobranças",
		"refund and block events": "eventos de estorno e bloqueio", "events": "eventos", "withdrawals": "saques"}
)

// damageDetail names the damaged file and what the check found, in the merchant's language.
// The findings pixdash writes itself are translated; what SQLite reports is quoted as its own.
func damageDetail(tr Catalog, dm *state.DamageError) string {
	if tr.Lang != LangPT {
		return dm.Error()
	}
	ps := dm.Problems
	more := ""
	if len(ps) > 3 {
		more = " " + tr.F("errtext.and_more", len(ps)-3)
		ps = ps[:3]
	}
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, damageProblem(p))
	}
	return tr.F("errtext.file", dm.File, strings.Join(out, "; ")+more)
}

// damageProblem is one finding in Portuguese.
func damageProblem(p string) string {
	what := func(kind, name string) string {
		if kind == "table" {
			return "a tabela " + name
		}
		return "o índice " + name
	}
	read := func(kind string) string {
		if kind == "table" {
			return "lida"
		}
		return "lido"
	}
	if m := damageCountRE.FindStringSubmatch(p); m != nil {
		w := damageWhatPTBR[m[4]]
		if w == "" {
			w = m[4]
		}
		return fmt.Sprintf("%s lista %s %s, mas há %s", what(m[1], m[2]), m[3], w, m[5])
	}
	if m := damageReadRE.FindStringSubmatch(p); m != nil {
		return fmt.Sprintf("%s não pode ser %s (SQLite: %s)", what(m[1], m[2]), read(m[1]), sqliteText(m[3]))
	}
	return "SQLite: " + sqliteText(p)
}

// sqliteText is SQLite's report of a damaged file, its usual sentence in Portuguese.
func sqliteText(s string) string {
	return strings.ReplaceAll(s, "database disk image is malformed", "arquivo do banco de dados malformado")
}

// localRulesFix are more of pixdash's own English messages from packages without a catalog:
// ParseBRL's empty field, the sub-account reference and Idempotency-Key rules
// (api.ValidateWallet, api.ValidateIdempotencyKey) and the requests the client refuses to send.
var localRulesFix = []msgRule{
	rule(`enter an amount`, "informe um valor", false),
	rule(`reference (".*") is too short: 2 to 32 characters`, "a referência %s é curta demais: de 2 a 32 caracteres", false),
	rule(`reference is too long \((\d+) characters\): 2 to 32`, "a referência é longa demais (%s caracteres): de 2 a 32", false),
	rule(`reference (".*") may use only lowercase letters, digits, '-' and '_', starting with a letter or digit`,
		"a referência %s só pode ter letras minúsculas, dígitos, '-' e '_', começando por letra ou dígito", false),
	rule(`"principal" is reserved for the main account`, "\"principal\" é reservado para a conta principal", false),
	rule(`idempotency key must be (\d+) to (\d+) characters, got (\d+)`, "a chave de idempotência deve ter de %s a %s caracteres (tem %s)", false),
	rule(`X-Sub-Account is not accepted on (\S+): it always acts on the main account`, "o X-Sub-Account não é aceito em %s: essa rota age sempre na conta principal", false),
	rule(`transaction id, externalReference or idempotency key is required`, "falta o id da transação, a externalReference ou a chave de idempotência", false),
	rule(`the transaction id to refund is required`, "falta o id da transação a estornar", false),
	rule(`the refund endpoint takes no Idempotency-Key`, "o estorno não aceita Idempotency-Key", false),
	rule(`the (charge|sub-account|withdrawal|project) request is missing`, "falta o pedido (%s)", false),
	rule(`exactly one of amount and netAmount must be given(?:, not both)?`, "informe o valor ou o valor líquido (netAmount), só um dos dois", false),
}

func init() { localRules = append(localRules, localRulesFix...) }
