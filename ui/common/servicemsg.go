package common

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"pixdash/api"
)

// The service answers in English (class-validator messages such as "amount must not be greater
// than 9999999999.99") and sometimes in Portuguese. In pt-BR the messages pixdash knows are
// translated; any other English message is shown after "O serviço respondeu:", so a merchant
// never reads a bare English sentence as if it were the dashboard's. The trace id is added by
// describeErr as before.

// msgRule translates one message shape: re matches the whole message, pt is a format that takes
// the submatches (a field first, when the shape names one).
type msgRule struct {
	re *regexp.Regexp
	pt string
	// field: the first submatch is a request field, shown by its Portuguese name.
	field bool
}

// fieldRE is a request field as class-validator names it: amount, customer.name, split.0.amount.
const fieldRE = `([A-Za-z][A-Za-z0-9_.\-]*)`

func rule(re, pt string, field bool) msgRule {
	return msgRule{re: regexp.MustCompile(`^` + re + `$`), pt: pt, field: field}
}

// serviceRules are the service's messages pixdash translates.
var serviceRules = []msgRule{
	rule(fieldRE+` must not be greater than the transaction amount (\S+)`, "%s não pode ser maior que o valor da transação (%s)", true),
	rule(fieldRE+` must not be greater than (\S+) \(what is left to refund\)`, "%s não pode ser maior que %s (o que resta a estornar)", true),
	rule(fieldRE+` must not be greater than (\S+)`, "%s não pode ser maior que %s", true),
	rule(fieldRE+` must not be less than (\S+)`, "%s não pode ser menor que %s", true),
	rule(fieldRE+` is required`, "falta %s", true),
	rule(fieldRE+` should not be empty`, "%s não pode ficar em branco", true),
	rule(fieldRE+` must be shorter than or equal to (\d+) characters`, "%s deve ter no máximo %s caracteres", true),
	rule(fieldRE+` must be longer than or equal to (\d+) characters`, "%s deve ter no mínimo %s caracteres", true),
	rule(fieldRE+` must be a string`, "%s deve ser um texto", true),
	rule(fieldRE+` must be a number(?: conforming to the specified constraints)?`, "%s deve ser um número", true),
	rule(fieldRE+` must be an integer number`, "%s deve ser um número inteiro", true),
	rule(fieldRE+` must be a UUID`, "%s deve ser um UUID", true),
	rule(fieldRE+` must be an object`, "%s deve ser um objeto", true),
	rule(fieldRE+` must be an array`, "%s deve ser uma lista", true),
	rule(fieldRE+` must be an email`, "%s deve ser um e-mail", true),
	rule(fieldRE+` must be one of the following values: (.+)`, "%s deve ser um destes valores: %s", true),
	rule(fieldRE+` must have at most 2 decimal places`, "%s deve ter no máximo 2 casas decimais", true),
	rule(fieldRE+` must match the pattern (.+)`, "%s deve seguir o padrão %s", true),
	rule(fieldRE+` must not be negative`, "%s não pode ser menor que zero", true),
	rule(`payerDocument must have 11 \(CPF\) or 14 \(CNPJ\) digits`, "o documento do pagador deve ter 11 (CPF) ou 14 (CNPJ) dígitos", false),
	rule(`amount exceeds the wallet's spendable balance of (\S+)`, "o valor passa do saldo disponível da carteira (%s)", false),
	rule(`reference '(.*)' is already used in this account`, "a referência '%s' já é usada nesta conta", false),
	rule(`the account reached its maximum of (\d+) sub-accounts`, "a conta atingiu o máximo de %s subcontas", false),
	rule(`'principal' is reserved for the main account`, "'principal' é reservado para a conta principal", false),
	rule(`Insufficient balance: spendable (\S+), required (\S+)`, "saldo insuficiente: disponível %s, necessário %s", false),
	rule(`Insufficient balance`, "saldo insuficiente", false),
	rule(`Transaction already refunded`, "a transação já foi estornada", false),
	rule(`(?i)Transaction not found`, "transação não encontrada", false),
	rule(`(?i)Sub-account not found`, "subconta não encontrada", false),
	rule(`(?i)Project not found`, "projeto não encontrado", false),
	rule(`(?i)(?:Balance block|Block) not found`, "bloqueio não encontrado", false),
	rule(`(?i)Withdrawal not found`, "saque não encontrado", false),
	rule(`Token expired`, "token de acesso expirado", false),
	rule(`Invalid access token`, "token de acesso inválido", false),
	rule(`Access token is required.*`, "o token de acesso é obrigatório", false),
	rule(regexp.QuoteMeta(api.MessageInvalidCredentials), "credenciais inválidas", false),
	rule(regexp.QuoteMeta(api.MessageCredentialsRequired), "client_id e client_secret são obrigatórios", false),
	rule(regexp.QuoteMeta(api.MessagePaymentServiceDown), "o serviço de pagamento está temporariamente indisponível", false),
	rule(regexp.QuoteMeta(api.MessageUnexpected), "ocorreu um erro inesperado", false),
	rule(`Insufficient permissions\. Required: (.+)`, "permissão insuficiente; é preciso: %s", false),
	rule(`Idempotency-Key must be between 8 and 255 characters`, "o Idempotency-Key deve ter de 8 a 255 caracteres", false),
}

// localRules are pixdash's own English messages that come from packages without a catalog
// (amounts parsed by api.ParseBRL).
var localRules = []msgRule{
	rule(`(".*") has more than 2 decimal places`, "%s tem mais de 2 casas decimais", false),
	rule(`(".*") is not an amount: use digits and a decimal comma, e\.g\. 1\.234,56`, "%s não é um valor: use dígitos e vírgula decimal, ex.: 1.234,56", false),
	rule(`(".*") is not an amount`, "%s não é um valor", false),
	rule(`(".*") has no digits`, "%s não tem dígitos", false),
	rule(`(".*") mixes separators: use 1\.234,56 or 1234\.56`, "%s mistura separadores: use 1.234,56 ou 1234.56", false),
	rule(`(".*") has more than one decimal comma`, "%s tem mais de uma vírgula decimal", false),
	rule(`(".*") has misplaced thousands dots`, "%s tem pontos de milhar fora do lugar", false),
	rule(`(".*") is too large`, "%s é grande demais", false),
	rule(`(".*") is negative`, "%s é negativo", false),
}

// fieldPT names the request fields in Portuguese.
var fieldPT = map[string]string{
	"amount": "o valor", "description": "a descrição", "expiresIn": "a validade (expiresIn)",
	"externalReference": "a referência externa", "projectId": "o projeto", "metadata": "os metadados",
	"customer": "o pagador", "customer.name": "o nome do pagador", "customer.document": "o CPF/CNPJ do pagador",
	"customer.email": "o e-mail do pagador", "customer.phone": "o telefone do pagador", "split": "o split",
	"name": "o nome", "reference": "a referência", "reason": "o motivo", "payerName": "o nome do pagador",
	"pixKey": "a chave PIX", "pixKeyType": "o tipo de chave PIX", "holderName": "o titular",
	"holderDocument": "o documento do titular", "transactionId": "a transação",
}

// splitFieldRE is a leg's field: split.0.amount.
var splitFieldRE = regexp.MustCompile(`^split\.(\d+)\.(\w+)$`)

// fieldName is a request field in Portuguese ("split.0.amount" is the first leg's amount).
func fieldName(f string) string {
	if s, ok := fieldPT[f]; ok {
		return s
	}
	if m := splitFieldRE.FindStringSubmatch(f); m != nil {
		n, _ := strconv.Atoi(m[1])
		what := map[string]string{"amount": "o valor", "subAccount": "a carteira", "percentage": "o percentual"}[m[2]]
		if what == "" {
			what = m[2]
		}
		return fmt.Sprintf("%s da parte %d do split", what, n+1)
	}
	return f
}

// brNumber writes a decimal number the Brazilian way (9999999999.99 → 9.999.999.999,99); other
// text is left as it is.
func brNumber(s string) string {
	if m, err := api.ParseDecimal(s); err == nil && strings.Contains(s, ".") {
		return strings.TrimSpace(strings.TrimPrefix(m.BRL(), "R$"))
	}
	return s
}

// apply translates msg by the first rule that matches it.
func apply(rules []msgRule, msg string) (string, bool) {
	for _, r := range rules {
		m := r.re.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		args := make([]any, 0, len(m)-1)
		for i, s := range m[1:] {
			if r.field && i == 0 {
				args = append(args, fieldName(s))
				continue
			}
			args = append(args, brNumber(s))
		}
		out := fmt.Sprintf(r.pt, args...)
		return strings.ToUpper(out[:1]) + out[1:], true
	}
	return "", false
}

// ptWords are words that show a message is already in Portuguese (the service writes some so).
var ptWords = regexp.MustCompile(`(?i)(^|[^\p{L}])(não|nao|já|ja|é|de|da|do|das|dos|na|no|nesta|neste|para|com|uma|conta|cobrança|cobranca|valor|subconta|deve|está|esta|foi|soma|usado|usada|inválido|invalido)([^\p{L}]|$)`)

// ServiceMessage is a message of the service in the merchant's language: in pt-BR a known one is
// translated, one already in Portuguese is kept, and any other is quoted after "O serviço
// respondeu:". A list of messages (joined with "; ") is translated one by one.
func ServiceMessage(tr Catalog, msg string) string {
	if tr.Lang != LangPT || strings.TrimSpace(msg) == "" {
		return msg
	}
	parts := strings.Split(msg, "; ")
	var unknown []string
	var known []string
	for _, p := range parts {
		if s, ok := apply(serviceRules, strings.TrimSpace(p)); ok {
			known = append(known, s)
			continue
		}
		if ptWords.MatchString(p) {
			known = append(known, p)
			continue
		}
		unknown = append(unknown, p)
	}
	out := strings.Join(known, "; ")
	if len(unknown) > 0 {
		quoted := tr.T("servicemsg.the_service_answered") + " " + strings.Join(unknown, "; ")
		if out == "" {
			return quoted
		}
		out += "; " + quoted
	}
	return out
}

// LocalMessage translates one of pixdash's own English messages that come from a package
// without a catalog (an amount's parse error); others are returned as they are.
func LocalMessage(tr Catalog, msg string) string {
	if tr.Lang != LangPT {
		return msg
	}
	if s, ok := apply(localRules, msg); ok {
		return s
	}
	// The api package checks requests with the service's own words (api.CheckCreatePix).
	if s, ok := apply(serviceRules, msg); ok {
		return s
	}
	return msg
}
